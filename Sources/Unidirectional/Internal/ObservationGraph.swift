/// Which observers depend on which key paths of a store's state, and which of them an action
/// made stale.
///
/// Guarded by the owning store's lock. Cost per action: one comparison per distinct observed
/// key path (shared by all the observers that read it), plus the observers that fire; nothing
/// per observer that does not fire.
struct ObservationGraph<State> {
  /// Every probe with at least one subscriber, keyed by key path.
  private var probes: [AnyKeyPath: Probe<State>] = [:]

  /// The same probes as a list, the order they are refreshed in after each action.
  private var liveProbes: [Probe<State>] = []

  /// One-shot probes for key paths read outside our observers, so that Apple's
  /// `withObservationTracking` and `Observations` hear when they change (see
  /// `RegistrarProbe`).
  private var registrarProbes: [AnyKeyPath: RegistrarProbe<State>] = [:]

  /// The same registrar probes as a list.
  private var liveRegistrarProbes: [RegistrarProbe<State>] = []

  /// Every registered observer, by id.
  private var observers: [UInt64: ObserverRecord<State>] = [:]

  /// The id the next observer gets.
  private var nextObserverID: UInt64 = 0

  /// What an action changed: the observers to run, in registration order, and the registrar
  /// notifications to post.
  struct Changes {
    var observers: [ObserverRecord<State>] = []
    var registrarNotifications: [RegistrarProbe<State>] = []

    var isEmpty: Bool { observers.isEmpty && registrarNotifications.isEmpty }
  }

  /// Refreshes every live probe against the new state and returns what changed.
  mutating func changes(in state: inout State) -> Changes {
    var changes = Changes()
    if liveProbes.isEmpty && liveRegistrarProbes.isEmpty { return changes }
    withUnsafePointer(to: &state) { state in
      var changedProbes = 0
      for probe in liveProbes where probe.refresh(state) {
        changedProbes += 1
        if changedProbes == 1 {
          // The common case shares the probe's already ordered array: no copy, no sort.
          changes.observers = probe.subscribers
        } else {
          changes.observers.append(contentsOf: probe.subscribers)
        }
      }
      if changedProbes > 1 {
        changes.observers.sort { $0.id < $1.id }
        var previous: UInt64?
        changes.observers.removeAll { observer in
          defer { previous = observer.id }
          return observer.id == previous
        }
      }
      var index = 0
      while index < liveRegistrarProbes.count {
        let probe = liveRegistrarProbes[index]
        if probe.refresh(state) {
          // One-shot, like Apple's observations: the next tracked read arms it again.
          changes.registrarNotifications.append(probe)
          removeRegistrarProbe(at: index)
        } else {
          index += 1
        }
      }
    }
    return changes
  }

  /// Registers a new observer whose first run read `keyPaths`.
  mutating func register(
    body: @escaping @Sendable () -> Void, reads keyPaths: [AnyKeyPath], state: inout State
  ) -> ObserverRecord<State> {
    let observer = ObserverRecord<State>(id: nextObserverID, body: body)
    nextObserverID += 1
    observers[observer.id] = observer
    update(observer, reads: keyPaths, state: &state)
    return observer
  }

  /// Re-subscribes `observer` after a run that read `keyPaths`. Cheap when it read the same key
  /// paths as last time, which is the common case.
  mutating func update(_ observer: ObserverRecord<State>, reads keyPaths: [AnyKeyPath], state: inout State) {
    guard observer.body != nil, observer.keyPaths != keyPaths else { return }
    observer.keyPaths = keyPaths
    var seen = Set<ObjectIdentifier>()
    var newProbes: [Probe<State>] = []
    newProbes.reserveCapacity(keyPaths.count)
    for keyPath in keyPaths {
      let probe = probe(for: keyPath, state: &state)
      if seen.insert(ObjectIdentifier(probe)).inserted { newProbes.append(probe) }
    }
    for probe in observer.probes where !seen.contains(ObjectIdentifier(probe)) {
      probe.unsubscribe(observer)
      removeIfUnused(probe)
    }
    for probe in newProbes { probe.subscribe(observer) }
    observer.probes = newProbes
  }

  /// Removes an observer: it will not run again.
  ///
  /// - Returns: The observer's closure, for the caller to release after unlocking (releasing
  ///   captures may run arbitrary code).
  @discardableResult
  mutating func remove(_ observer: ObserverRecord<State>) -> (@Sendable () -> Void)? {
    guard let body = observer.body else { return nil }
    observer.body = nil
    observers[observer.id] = nil
    for probe in observer.probes {
      probe.unsubscribe(observer)
      removeIfUnused(probe)
    }
    observer.probes = []
    observer.keyPaths = []
    return body
  }

  /// Removes every observer (when the store is going away).
  mutating func removeAll() -> [@Sendable () -> Void] {
    observers.values.compactMap { remove($0) }
  }

  /// Arms a one-shot registrar probe for a key path read outside our observers, and returns
  /// the store key path to report to the registrar.
  mutating func armRegistrarProbe<Value>(
    _ keyPath: KeyPath<State, Value>,
    state: inout State,
    makeProbe: (UnsafePointer<State>) -> RegistrarProbe<State>
  ) -> AnyKeyPath {
    if let probe = registrarProbes[keyPath] { return probe.storeKeyPath }
    let probe = withUnsafePointer(to: &state) { makeProbe($0) }
    probe.slot = liveRegistrarProbes.count
    liveRegistrarProbes.append(probe)
    registrarProbes[keyPath] = probe
    return probe.storeKeyPath
  }

  private mutating func probe(for keyPath: AnyKeyPath, state: inout State) -> Probe<State> {
    if let probe = probes[keyPath] { return probe }
    guard let factory = keyPath as? any ProbeFactory else {
      preconditionFailure("Unidirectional: \(keyPath) is not a KeyPath")
    }
    let probe: Probe<State> = withUnsafePointer(to: &state) { factory.makeProbe(state: $0) }
    probe.slot = liveProbes.count
    liveProbes.append(probe)
    probes[keyPath] = probe
    return probe
  }

  private mutating func removeIfUnused(_ probe: Probe<State>) {
    guard probe.subscribers.isEmpty, probes[probe.keyPath] === probe else { return }
    probes[probe.keyPath] = nil
    let last = liveProbes.removeLast()
    if last !== probe {
      liveProbes[probe.slot] = last
      last.slot = probe.slot
    }
  }

  private mutating func removeRegistrarProbe(at index: Int) {
    let probe = liveRegistrarProbes[index]
    registrarProbes[probe.keyPath] = nil
    let last = liveRegistrarProbes.removeLast()
    if index < liveRegistrarProbes.count {
      liveRegistrarProbes[index] = last
      last.slot = index
    }
  }
}

/// A one-shot probe that tells a store's `ObservationRegistrar` when a key path read outside
/// our own observers changes.
///
/// Apple's `withObservationTracking` learns of reads through `ObservationRegistrar.access`; it
/// learns of changes only if someone calls `willSet`/`didSet` for that key path. Any read of a
/// store outside our observers arms one of these; after the next action that changes the value,
/// the store posts the change to the registrar and the probe is dropped, exactly as Apple's
/// one-shot observations are.
final class RegistrarProbe<State>: @unchecked Sendable {
  // Safe: created and refreshed under the owning store's lock; `post` is immutable.

  /// The key path of the state this probe watches.
  let keyPath: AnyKeyPath

  /// The key path on the store that was reported to the registrar.
  let storeKeyPath: AnyKeyPath

  /// Posts `willSet` and `didSet` for `storeKeyPath` to the store's registrar.
  let post: @Sendable () -> Void

  /// Index in the graph's list.
  var slot = 0

  private let probe: Probe<State>

  init(
    keyPath: AnyKeyPath, storeKeyPath: AnyKeyPath, probe: Probe<State>,
    post: @escaping @Sendable () -> Void
  ) {
    self.keyPath = keyPath
    self.storeKeyPath = storeKeyPath
    self.probe = probe
    self.post = post
  }

  func refresh(_ state: UnsafePointer<State>) -> Bool {
    probe.refresh(state)
  }
}
