// Over 300 lines on purpose: the graph's indexes are `private`, kept consistent by the
// functions of this file alone.

/// Which observers of a store depend on which reads of its state, and which of them an action
/// made stale.
///
/// Not generic: it sees the state as raw bytes and leaves typed work to the probes, so the
/// per-action path needs no generic metadata.
///
/// ## After an action (`changes(in:)`)
///
/// 1. Safe probes that may have changed are evaluated at once: stored ones whose bytes changed
///    (`ByteIndex`), element ones whose element was written (`ElementGroup`). Element probes
///    that are not safe are only marked dirty. A row store's keeper whose row a probe of one of
///    its fields has just kept is skipped (see `ElementKeeping`).
/// 2. The observers to check are the subscribers of those probes, and the observers that made
///    a read nothing tells the change of (computed key paths, non-`Equatable` values).
/// 3. Each is checked by walking its reads **in the order it made them**, evaluating a lazy
///    probe only when the walk reaches it, and stopping at the first read whose value changed
///    since the observer's last run (DESIGN invariant 1): an earlier guard such as `count > 7`
///    protects a later `items[7]`. A probe is evaluated at most once per action, shared by every
///    observer that reaches it.
///
/// Cost grows with what changed and with the observers that make computed reads, not with the
/// number of observers.
///
/// ## Invariant between actions
///
/// Once an action's observers have run, every probe an observer uses holds the value of the
/// current state: safe probes because they were refreshed; lazy ones because either a checking
/// observer evaluated them, or every observer using them fired, and those that still make the
/// read give the probe the value they just read (`AccessRecorder`, `update`).
///
/// ## Ownership and re-entrancy
///
/// The graph belongs to the thread that owns the store (see `StoreGate`): no lock guards it.
/// While it evaluates probes (`isBusy`), user code runs (`==`, getters, deinits of old values);
/// anything that code asks of the graph (cancelling an observer, registering one, a tracked
/// read) waits in `deferred` until the pass is over. Probes and closures the graph drops are
/// released only once its structures are consistent again.
@usableFromInline
final class ObservationGraph: @unchecked Sendable {
  // Safe: used only by the thread that owns the store (see above).

  /// The number of actions whose changes were computed: the clock of `changedAt`, `verifiedAt`
  /// and `ranAt`.
  @usableFromInline @exclusivity(unchecked) private(set) var generation: UInt64 = 0

  /// Every probe in use, by what it reads.
  @exclusivity(unchecked) private var probes: [ReadKey: Probe] = [:]

  /// The stored probes, by the bytes they watch.
  @exclusivity(unchecked) private var byteIndex: ByteIndex

  /// Element probes, grouped by array, by key and in a list.
  @exclusivity(unchecked) private var groups: [AnyKeyPath: ElementGroup] = [:]
  @exclusivity(unchecked) private var groupList: [ElementGroup] = []

  /// Observers that made a read nothing tells the change of, checked after every action, in
  /// registration order.
  @exclusivity(unchecked) private var scanned: [ObserverRecord] = []

  /// Every observer in the graph, by id.
  @exclusivity(unchecked) private var observers: [UInt64: ObserverRecord] = [:]

  /// Reads tracked for Apple's Observation.
  @exclusivity(unchecked) private var tracked = TrackedReads()

  /// Whether the graph is evaluating probes (user code may run, and must not change the graph).
  @exclusivity(unchecked) private(set) var isBusy = false

  /// Requests made while the graph was busy, carried out once it is not.
  @exclusivity(unchecked) private var deferred: [ObservationRequest] = []

  /// Scratch for `changes(in:)`: the subscribers of safe probes whose value changed (their
  /// observers fire), and of dirty probes (their observers are checked). Empty between passes.
  @exclusivity(unchecked) private var certain = SubscriberUnion()
  @exclusivity(unchecked) private var uncertain = SubscriberUnion()
  /// Scratch for `changes(in:)`: the first safe probe whose value changed, while it is the only
  /// one (its subscribers are then the observers to run, as they are: no union to build).
  @exclusivity(unchecked) private var onlyChangedProbe: Unmanaged<Probe>?

  #if DEBUG
    /// Debug builds: the actions that qualify for a performance hint (see ``PerformanceHints``).
    @exclusivity(unchecked) private var hints = PerformanceHintCounter()
    /// Debug builds: hints due, printed once the pass is over.
    @exclusivity(unchecked) private var dueHints: [String] = []
    /// Debug builds, for tests: receives the hints instead of standard error. Set it while the
    /// store is idle, before the actions concerned.
    @exclusivity(unchecked) var performanceHintHandler: ((String) -> Void)?
    /// Debug builds, for tests: whether this graph counts toward hints, whatever
    /// `PerformanceHints.isEnabled` says (`nil`: as it says). Lets a test rely on a hint while
    /// another turns the process-wide setting off.
    @exclusivity(unchecked) var performanceHintsEnabledForTests: Bool?
  #endif

  init(stateSize: Int) {
    self.byteIndex = ByteIndex(stateSize: stateSize)
  }

  /// Whether nothing is observed or tracked: no work after an action.
  @usableFromInline
  var isEmpty: Bool {
    probes.isEmpty && tracked.isEmpty && scanned.isEmpty
  }

  /// Counts of what the graph holds for users' observers and tracked reads, for tests (what the
  /// store holds for itself, such as a child store's keeper, is not counted).
  var footprint: ObservationFootprint {
    ObservationFootprint(
      observers: observers.values.count { !$0.isInternal },
      probes: probes.values.count { $0.subscribers.contains { !$0.isInternal } },
      trackedReads: tracked.count)
  }

  // MARK: After an action

  /// What an action changed: the observers to run, in registration order, and the notifications
  /// to post to the store's registrar.
  @usableFromInline
  struct Changes {
    @usableFromInline var observers: [ObserverRecord] = []
    /// `nil` rather than empty when nothing is tracked: no array to release after every action.
    @usableFromInline var posts: [@Sendable () -> Void]?

    @usableFromInline
    init() {}
  }

  /// Brings the probes up to date with `state`, just committed, and returns what changed.
  @usableFromInline
  func changes(in state: UnsafeRawPointer) -> Changes {
    generation &+= 1
    let generation = self.generation
    isBusy = true
    #if DEBUG
      // One relaxed load per action, in debug builds only: release builds count nothing.
      let countsHints = performanceHintsEnabledForTests ?? PerformanceHints.isEnabled
    #endif

    // Observers that read a safe probe whose value changed fire, whatever their other reads:
    // nothing more is evaluated for them. Observers that read a dirty element probe, or a read
    // nothing tells the change of, are checked in the order of their reads.
    // The graph's scratch unions, empty between passes: a pass that used one empties it, and
    // destroys no union of its own (each optional list costs a release, even when `nil`).
    if !byteIndex.isEmpty {
      byteIndex.forEachProbeWhoseBytesChanged(in: state) { probe in
        #if DEBUG
          // Before the refresh, which forgets the old value: only for a value that many
          // observers read.
          let elementChanges =
            countsHints && probe.subscribers.count >= PerformanceHintCounter.minimumObservers
            ? probe.elementChanges(in: state) : nil
        #endif
        if probe.refresh(state) {
          probe.changedAt = generation
          fire(probe)
          #if DEBUG
            if let elementChanges { noteRerun(of: probe, elementChanges) }
          #endif
        }
      }
    }
    // Unchanged while busy: lent without a reference to each group.
    for index in groupList.indices {
      Unmanaged.passUnretained(groupList[index])._withUnsafeGuaranteedRef { group in
        group.forEachProbeWritten(in: state) { probe in
          // A row store's keeper whose row a field probe of the same store has just kept.
          if probe.keptAt == generation { return }
          if probe.isSafe {
            if probe.refresher(state, probe, false) {
              probe.changedAt = generation
              fire(probe)
            }
          } else {
            probe.dirtyAt = generation
            uncertain.add(probe.subscribers)
          }
        }
      }
    }
    var changes = Changes()
    if let only = onlyChangedProbe.take() {
      // The list itself: the store runs these observers after the pass, and a change of the
      // probe's subscribers meanwhile (an observer registered or cancelled) changes a copy.
      changes.observers = only._withUnsafeGuaranteedRef { $0.subscribers }
    } else if !certain.isEmpty {
      changes.observers = certain.takeObservers()
    }
    if !scanned.isEmpty || !uncertain.isEmpty {
      uncertain.add(scanned)
      let fired = changes.observers
      var checked: [ObserverRecord] = []
      var firedIndex = 0
      let toCheck = uncertain.takeObservers()
      #if DEBUG
        var evaluated = 0
      #endif
      for observer in toCheck {
        // Both lists are in registration order: skip the observers that fire anyway.
        while firedIndex < fired.count, fired[firedIndex].id < observer.id { firedIndex += 1 }
        if firedIndex < fired.count, fired[firedIndex] === observer { continue }
        #if DEBUG
          evaluated += 1
        #endif
        if hasChangedRead(observer, state: state) { checked.append(observer) }
      }
      #if DEBUG
        if countsHints { noteReevaluation(observers: evaluated, changed: checked.count) }
      #endif
      if !checked.isEmpty { changes.observers = Self.mergeUnique(fired, checked) }
    }
    if !tracked.isEmpty {
      changes.posts = tracked.changes(in: state)
    }
    isBusy = false
    if !deferred.isEmpty { performDeferred(state: state) }
    #if DEBUG
      if !dueHints.isEmpty { printDueHints() }
    #endif
    return changes
  }

  #if DEBUG
    /// Counts an action after which the subscribers of `probe`, a stored read of a collection
    /// with `changes`, re-run: those beyond the number of changed elements cannot have seen
    /// their element change (assuming each uses one).
    private func noteRerun(of probe: Probe, _ changes: ElementChanges) {
      let observers = probe.subscribers.count
      let unchanged = max(0, observers - changes.changed)
      guard
        let actions = hints.note(
          .rerun(probe.keyPath), observers: observers, unchanged: unchanged)
      else { return }
      dueHints.append(
        PerformanceHintCounter.rerunHint(
          keyPath: probe.keyPath, observers: observers, unchanged: unchanged, changes: changes,
          actions: actions))
    }

    /// Counts an action after which `observers` observers were checked in the order of their
    /// reads, and `changed` of them found a changed read.
    private func noteReevaluation(observers: Int, changed: Int) {
      guard
        let actions = hints.note(
          .reevaluation, observers: observers, unchanged: observers - changed)
      else { return }
      let example = scanned.lazy.compactMap { observer in
        observer.reads.first { $0.kind == .computed }?.keyPath
      }.first
      dueHints.append(
        PerformanceHintCounter.reevaluationHint(
          example: example, observers: observers, unchanged: observers - changed,
          actions: actions))
    }

    private func printDueHints() {
      let due = dueHints
      dueHints = []
      for hint in due {
        if let performanceHintHandler {
          performanceHintHandler(hint)
        } else {
          writeToStandardError(hint)
        }
      }
    }
  #endif

  /// Adds the subscribers of `probe`, whose value changed, to the observers to run.
  @inline(__always)
  private func fire(_ probe: Probe) {
    guard !probe.subscribers.isEmpty else { return }
    guard onlyChangedProbe != nil || !certain.isEmpty else {
      onlyChangedProbe = Unmanaged.passUnretained(probe)
      return
    }
    if let only = onlyChangedProbe.take() { certain.add(only.takeUnretainedValue().subscribers) }
    certain.add(probe.subscribers)
  }

  /// Whether a read of `observer`'s last run has changed since: its reads are checked in the
  /// order they were made, and a lazy probe is evaluated only when the walk reaches it.
  private func hasChangedRead(_ observer: ObserverRecord, state: UnsafeRawPointer) -> Bool {
    guard observer.isInGraph else { return false }
    @inline(__always) func changed(_ probe: Probe) -> Bool {
      if probe.needsEvaluation(at: generation) { probe.verify(state, at: generation) }
      return probe.changedAt > observer.ranAt
    }
    guard let head = observer.reads.head else { return false }
    if changed(head) { return true }
    for probe in observer.reads.tail where changed(probe) { return true }
    return false
  }

  /// The union of subscriber lists, each ordered by id: one list is used as it is (no copy), two
  /// are merged.
  ///
  /// Its lists are optionals: an empty union, the common case, then holds no array to release
  /// after every action.
  private struct SubscriberUnion {
    private var first: [ObserverRecord]?
    private var second: [ObserverRecord]?
    private var rest: [ObserverRecord]?

    var isEmpty: Bool { first == nil }

    mutating func add(_ observers: [ObserverRecord]) {
      guard !observers.isEmpty else { return }
      if first == nil {
        first = observers
      } else if second == nil {
        second = observers
      } else {
        rest = (rest ?? []) + observers
      }
    }

    /// The observers, ordered by id, without repeats; the union is left empty. Taken rather
    /// than copied: the common single list moves out without a retain and a release. Inlined,
    /// the merge of several lists out of line: a call cost as much as taking one list.
    @inline(__always)
    mutating func takeObservers() -> [ObserverRecord] {
      guard second == nil else { return takeMerged() }
      return first.take() ?? []
    }

    /// `takeObservers` of several lists.
    @inline(never)
    private mutating func takeMerged() -> [ObserverRecord] {
      defer { self = SubscriberUnion() }
      return observers
    }

    /// The observers, ordered by id, without repeats.
    var observers: [ObserverRecord] {
      guard let first else { return [] }
      guard let second else { return first }
      guard let rest else {
        // The common case of a row store with an observer: the row's keeper and the observer.
        return ObservationGraph.mergeUnique(first, second)
      }
      var all = first + second + rest
      ObservationGraph.sortUnique(&all)
      return all
    }
  }

  fileprivate static func sortUnique(_ observers: inout [ObserverRecord]) {
    observers.sort { $0.id < $1.id }
    var previous: UInt64?
    observers.removeAll { observer in
      defer { previous = observer.id }
      return observer.id == previous
    }
  }

  /// Merges two lists ordered by id into one, without repeats.
  private static func mergeUnique(_ lhs: [ObserverRecord], _ rhs: [ObserverRecord])
    -> [ObserverRecord]
  {
    var merged: [ObserverRecord] = []
    merged.reserveCapacity(lhs.count + rhs.count)
    var left = 0
    var right = 0
    while left < lhs.count || right < rhs.count {
      let next: ObserverRecord
      if right == rhs.count || (left < lhs.count && lhs[left].id <= rhs[right].id) {
        next = lhs[left]
        left += 1
      } else {
        next = rhs[right]
        right += 1
      }
      if merged.last !== next { merged.append(next) }
    }
    return merged
  }

  // MARK: Probes

  /// Files `probe`, just made from a read of `state` (the current state), unless a probe of the
  /// same read exists: then that one is returned, brought up to date with `probe`'s value if it
  /// was not current.
  @usableFromInline
  func probe(_ probe: Probe, state: UnsafeRawPointer) -> Probe {
    let key = probe.key
    if let existing = probes[key] {
      if existing.isLazy && existing.verifiedAt != generation {
        existing.adopt(probe)
        existing.verifiedAt = generation
      }
      return existing
    }
    probe.verifiedAt = generation
    probes[key] = probe
    probe.isFiled = true
    switch probe.kind {
    case .stored:
      if probe.byteCount > 0 { byteIndex.insert(probe, state: state) }
    case .element:
      group(for: probe, state: state).insert(probe, idHash: probe.elementIDHash)
    case .computed, .alwaysChanged:
      break
    }
    return probe
  }

  /// Gives a lazy probe that the running observer found by prediction the value it just read,
  /// if the probe's value is not current.
  @inlinable
  func freshen<Value>(_ probe: Probe, with value: Value) {
    guard probe.isLazy, probe.verifiedAt != generation else { return }
    if probe.kind != .alwaysChanged {
      unsafeDowncast(probe, to: ValueProbe<Value>.self).value = value
    }
    probe.verifiedAt = generation
  }

  private func group(for probe: Probe, state: UnsafeRawPointer) -> ElementGroup {
    let array = probe.arrayKeyPath!
    if let group = groups[array] { return group }
    let group = probe.makeGroup(state: state)
    groups[array] = group
    groupList.append(group)
    return group
  }

  /// Drops `probe` if nothing uses it any more, into `garbage` (to release once consistent).
  private func removeIfUnused(_ probe: Probe, into garbage: inout [Probe]) {
    guard probe.isUnused else { return }
    let key = probe.key
    guard probes[key] === probe else { return }
    probes[key] = nil
    probe.isFiled = false
    switch probe.kind {
    case .stored:
      if probe.byteCount > 0 { byteIndex.remove(probe) }
    case .element:
      if let group = probe.group, group.remove(probe, idHash: probe.elementIDHash) {
        groups[group.array] = nil
        groupList.removeAll { $0 === group }
      }
    case .computed, .alwaysChanged:
      break
    }
    garbage.append(probe)
  }

  // MARK: Observers

  /// Files an observer whose first run read `reads` on `state`, the current state.
  func insert(_ observer: ObserverRecord, reads: some Collection<Probe>, state: UnsafeRawPointer) {
    observer.isInGraph = true
    observers[observer.id] = observer
    update(observer, reads: reads, unchanged: false, state: state)
  }

  /// Re-subscribes `observer` after a run on `state`, the current state, that made `reads`.
  ///
  /// - Parameter unchanged: The run made exactly the reads of the last one, in order (cheap).
  func update(
    _ observer: ObserverRecord, reads: some Collection<Probe>, unchanged: Bool,
    state: UnsafeRawPointer
  ) {
    observer.ranAt = generation
    guard !unchanged else { return }
    let old = observer.reads
    var new = SmallArray<Probe>()
    for probe in reads {
      // A probe dropped during the run (its last other observer was cancelled) is filed again:
      // its value is the one just read.
      new.append(probe.isFiled ? probe : self.probe(probe, state: state))
    }
    observer.reads = new
    var isScanned = false
    for probe in new {
      probe.subscribe(observer)
      if probe.kind == .computed || probe.kind == .alwaysChanged { isScanned = true }
    }
    var garbage: [Probe] = []
    for probe in old where !new.contains(where: { $0 === probe }) {
      probe.unsubscribe(observer)
      removeIfUnused(probe, into: &garbage)
    }
    setScanned(observer, isScanned)
    withExtendedLifetime(garbage) {}
  }

  /// Removes an observer from the graph: it will not be checked again.
  func remove(_ observer: ObserverRecord) {
    guard observer.isInGraph else { return }
    guard !isBusy else {
      deferred.append(.remove(observer))
      return
    }
    observer.isInGraph = false
    observers[observer.id] = nil
    setScanned(observer, false)
    var garbage: [Probe] = []
    for probe in observer.reads {
      probe.unsubscribe(observer)
      removeIfUnused(probe, into: &garbage)
    }
    // A run in progress (the observer cancelled itself) still reads its probes unretained (see
    // `AccessRecorder.running`): the run lets them go when it ends.
    if !observer.isRunning { observer.reads = SmallArray() }
    withExtendedLifetime(garbage) {}
  }

  /// Drops the probes of a run that will not be filed (its observer was cancelled meanwhile),
  /// if no other observer uses them.
  func dropIfUnused(_ probes: some Collection<Probe>) {
    var garbage: [Probe] = []
    for probe in probes { removeIfUnused(probe, into: &garbage) }
    withExtendedLifetime(garbage) {}
  }

  /// Removes every observer and tracked read (when the store is going away); returns the
  /// observers' closures, for the caller to release.
  func removeAll() -> [ObserverBody] {
    var bodies: [ObserverBody] = []
    for observer in observers.values {
      observer.isInGraph = false
      if let body = observer.cancel() { bodies.append(body) }
      observer.reads = SmallArray()
    }
    let garbage = (observers, probes, tracked.removeAll())
    observers = [:]
    probes = [:]
    groups = [:]
    groupList = []
    scanned = []
    byteIndex = ByteIndex(stateSize: byteIndex.stateSize)
    withExtendedLifetime(garbage) {}
    return bodies
  }

  private func setScanned(_ observer: ObserverRecord, _ isScanned: Bool) {
    guard observer.isScanned != isScanned else { return }
    observer.isScanned = isScanned
    let index = scanned.position(of: observer)
    if isScanned {
      scanned.insert(observer, at: index)
    } else if index < scanned.count, scanned[index] === observer {
      scanned.remove(at: index)
    }
  }

  // MARK: Deferred work

  /// Asks for a change while the graph may be busy: done now if it is not.
  func perform(_ request: ObservationRequest, state: UnsafeRawPointer) {
    if isBusy {
      deferred.append(request)
    } else {
      carryOut(request, state: state)
    }
  }

  private func performDeferred(state: UnsafeRawPointer) {
    while !deferred.isEmpty {
      let requests = deferred
      deferred = []
      for request in requests { carryOut(request, state: state) }
    }
  }

  private func carryOut(_ request: ObservationRequest, state: UnsafeRawPointer) {
    switch request {
    case .remove(let observer):
      remove(observer)
    case .register(let observer, let reads, _):
      guard !observer.isCancelled else { return }
      insert(observer, reads: reads.map { probe($0, state: state) }, state: state)
    case .track(let entry, let thread, _):
      tracked.insert(entry, thread: thread)
    }
  }
}
