import Synchronization

/// The store's record of one registered observer.
///
/// ## The closure's states (`life`)
///
/// - `live`: registered; the owner of the store may start a run.
/// - `running`: the owner is running the closure (`beginRun` moved it here from `live`).
/// - `cancelledWhileRunning`: ``cancel()`` came during a run; the run finishes, and `endRun`
///   hands the closure over to be released.
/// - `cancelled`: it will never run again, and the closure has been handed over.
///
/// The owner and a cancelling thread meet only through these atomic transitions, so cancelling
/// takes no lock, and the closure (with everything it captured) is always released by whoever
/// moved it to `cancelled`, outside any lock (DESIGN invariant 2).
///
/// Everything else (`reads`, `ranAt`, `isScanned`, `isInGraph`) belongs to the thread that owns
/// the store.
@usableFromInline
final class ObserverRecord: @unchecked Sendable {
  // Safe: `body` is read only by whoever won `life`'s transition (see above); the other mutable
  // fields are used only by the thread that owns the store; `id` is immutable.

  private enum Life {
    static let live = 0
    static let running = 1
    static let cancelledWhileRunning = 2
    static let cancelled = 3
  }

  /// Registration order: a smaller id registered earlier and runs earlier.
  @usableFromInline let id: UInt64

  private let life = Atomic<Int>(Life.live)

  /// The closure, boxed: a run lends the box and calls the closure without taking a reference
  /// to its captures (see `beginRun`).
  @exclusivity(unchecked) private var body: ObserverBody?

  /// The probes of the latest run's reads, in the order they were made.
  @usableFromInline @exclusivity(unchecked) var reads = SmallArray<Probe>()

  /// The generation of the state the latest run read.
  @exclusivity(unchecked) var ranAt: UInt64 = 0

  /// Whether the observer is in the graph's list of observers checked after every action (it
  /// made a read that nothing else tells the change of).
  @exclusivity(unchecked) var isScanned = false

  /// Whether the observer is in the graph (its probes list it).
  @exclusivity(unchecked) var isInGraph = false

  /// Whether the store made this observer for itself (a child store's keeper), not a user.
  let isInternal: Bool

  @usableFromInline
  init(id: UInt64, body: @escaping @Sendable () -> Void, isInternal: Bool = false) {
    self.id = id
    self.body = ObserverBody(body)
    self.isInternal = isInternal
  }

  /// Whether ``cancel()`` was called.
  var isCancelled: Bool {
    life.load(ordering: .acquiring) >= Life.cancelledWhileRunning
  }

  /// Owner: whether a run is in progress (it may have been cancelled meanwhile).
  var isRunning: Bool {
    let life = life.load(ordering: .relaxed)
    return life == Life.running || life == Life.cancelledWhileRunning
  }

  /// Owner: starts a run; returns the closure, or `nil` if the observer was cancelled.
  ///
  /// The box is lent, not retained: the record keeps it until `endRun`, since a ``cancel()``
  /// during the run leaves it in place.
  @usableFromInline
  func beginRun() -> Unmanaged<ObserverBody>? {
    guard
      life.compareExchange(expected: Life.live, desired: Life.running, ordering: .acquiring)
        .exchanged
    else { return nil }
    // Live: only a cancellation takes the closure.
    return Unmanaged.passUnretained(body!)
  }

  /// Owner: ends a run. Returns the closure if it was cancelled meanwhile, for the caller to
  /// release outside any lock.
  @usableFromInline
  func endRun() -> ObserverBody? {
    if life.compareExchange(expected: Life.running, desired: Life.live, ordering: .releasing)
      .exchanged
    {
      return nil
    }
    life.store(Life.cancelled, ordering: .releasing)
    return takeBody()
  }

  /// Stops the observer: it will not start another run. Returns the closure if it is not running
  /// now, for the caller to release outside any lock; a run in progress releases it when it ends.
  func cancel() -> ObserverBody? {
    var current = life.load(ordering: .relaxed)
    while true {
      let next: Int
      switch current {
      case Life.live: next = Life.cancelled
      case Life.running: next = Life.cancelledWhileRunning
      default: return nil
      }
      let (exchanged, found) = life.compareExchange(
        expected: current, desired: next, ordering: .acquiringAndReleasing)
      if exchanged { return next == Life.cancelled ? takeBody() : nil }
      current = found
    }
  }

  private func takeBody() -> ObserverBody? {
    defer { body = nil }
    return body
  }
}

/// An observer's closure, in an object of its own: a caller that lends the object calls the
/// closure, a `let`, without retaining its context (a closure read from a `var` is copied
/// first).
@usableFromInline
final class ObserverBody: Sendable {
  @usableFromInline let call: @Sendable () -> Void

  init(_ call: @escaping @Sendable () -> Void) {
    self.call = call
  }
}

extension Array where Element == ObserverRecord {
  /// Where `observer` is, or would go, in this list ordered by id (registration order): a binary
  /// search, with a shortcut for the end, where new observers go.
  func position(of observer: ObserverRecord) -> Int {
    if let last, last.id < observer.id { return count }
    var low = 0
    var high = count
    while low < high {
      let mid = (low + high) / 2
      if self[mid].id < observer.id { low = mid + 1 } else { high = mid }
    }
    return low
  }
}
