/// A clock whose time moves only when a test advances it.
///
/// ```swift
/// let clock = TestClock()
/// let task = store.send(.startTimer)       // an effect sleeps one second on `clock`
/// await clock.waitForSleepers(count: 1)   // the effect has reached its sleep
/// await clock.advance(by: .seconds(1))    // it wakes up
/// ```
///
/// Sleepers wake in deadline order (earliest first, ties in the order they began sleeping) when
/// `advance` reaches their deadline. A sleeping task that is cancelled wakes at once with
/// `CancellationError`. Nothing here polls or yields: waiting is done with continuations.
///
/// States of a sleeper: registered (in `sleepers`, time not reached) → resumed (removed, by
/// `advance` or by cancellation).
public final class TestClock: Clock, Sendable {
  /// A point in the test clock's time.
  public typealias Instant = ImmediateClock.Instant

  private struct Sleeper {
    let id: UInt64
    let deadline: Instant
    let continuation: CheckedContinuation<Void, any Error>
  }

  private struct Storage {
    var now = Instant()
    var nextID: UInt64 = 0
    var sleepers: [Sleeper] = []
    /// Tests waiting for `sleepers.count` to reach a number.
    var sleeperWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    mutating func takeSatisfiedWaiters() -> [CheckedContinuation<Void, Never>] {
      let count = sleepers.count
      let ready = sleeperWaiters.filter { $0.count <= count }.map(\.continuation)
      sleeperWaiters.removeAll { $0.count <= count }
      return ready
    }
  }

  private let storage = Locked(Storage())

  /// Creates a clock at time zero.
  public init() {}

  /// The current time.
  public var now: Instant {
    storage.withLock { $0.now }
  }

  /// Zero: sleeps are exact.
  public var minimumResolution: Duration { .zero }

  /// The number of tasks sleeping on this clock.
  public var sleeperCount: Int {
    storage.withLock { $0.sleepers.count }
  }

  /// Suspends until `advance` reaches `deadline` (or returns at once if it has).
  ///
  /// - Throws: `CancellationError` if the task is cancelled, before or during the sleep.
  public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    try Task.checkCancellation()
    let id = storage.withLock { storage in
      defer { storage.nextID += 1 }
      return storage.nextID
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation {
        (continuation: CheckedContinuation<Void, any Error>) in
        let (resumeNow, waiters) = storage.withLock {
          storage -> (Bool, [CheckedContinuation<Void, Never>]) in
          guard deadline > storage.now else { return (true, []) }
          storage.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
          return (false, storage.takeSatisfiedWaiters())
        }
        if resumeNow { continuation.resume() }
        for waiter in waiters { waiter.resume() }
      }
    } onCancel: {
      let sleeper = storage.withLock { storage -> Sleeper? in
        guard let index = storage.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
        return storage.sleepers.remove(at: index)
      }
      sleeper?.continuation.resume(throwing: CancellationError())
    }
  }

  /// Waits until at least `count` tasks are sleeping on this clock.
  ///
  /// Use it before `advance` so that an effect that was just started has reached its sleep.
  public func waitForSleepers(count: Int = 1) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let ready = storage.withLock { storage -> Bool in
        guard storage.sleepers.count < count else { return true }
        storage.sleeperWaiters.append((count, continuation))
        return false
      }
      if ready { continuation.resume() }
    }
  }

  /// Moves time forward by `duration`, waking every sleeper whose deadline it reaches, in
  /// deadline order.
  public func advance(by duration: Duration = .zero) async {
    await advance(to: now.advanced(by: duration))
  }

  /// Moves time forward to `instant` (never backward), waking due sleepers in deadline order.
  public func advance(to instant: Instant) async {
    let due = storage.withLock { storage -> [Sleeper] in
      storage.now = Swift.max(storage.now, instant)
      let now = storage.now
      let due = storage.sleepers.filter { $0.deadline <= now }
        .sorted { ($0.deadline, $0.id) < ($1.deadline, $1.id) }
      storage.sleepers.removeAll { $0.deadline <= now }
      return due
    }
    for sleeper in due { sleeper.continuation.resume() }
  }

  /// Advances to the latest deadline of the current sleepers, waking all of them in order.
  public func run() async {
    let last = storage.withLock { $0.sleepers.map(\.deadline).max() }
    if let last { await advance(to: last) }
  }
}
