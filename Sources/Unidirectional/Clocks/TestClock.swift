/// A clock whose time moves only when a test advances it, one deadline at a time.
///
/// ```swift
/// let clock = TestClock()
/// let store = withDependencies { $0.continuousClock = clock } operation: {
///   Store(initialState: Timer.State()) { Timer() }
/// }
/// store.send(.start)                      // an effect ticks every second on `clock`
/// await clock.advance(by: .seconds(5))    // five ticks, each reduced before the next
/// ```
///
/// ## Stepping
///
/// ``advance(by:)`` and ``advance(to:)`` do not jump: they wake the sleepers whose deadlines
/// fall in the interval one at a time, in deadline order (ties in the order they began
/// sleeping), setting ``now`` to each deadline. After waking a sleeper that belongs to a store's
/// effect, the clock waits until that store's effects are quiet (every effect task is asleep on
/// a test clock, waiting for another effect, or ended) so that the actions the sleeper sends,
/// and the effects those start, are reduced before time moves on. A sleep that an effect begins
/// meanwhile, with a deadline still in the interval, is woken in its turn: a repeating timer
/// advanced by five periods ticks five times.
///
/// An effect that waits on something other than a test clock (an `AsyncStream`, a socket) is
/// not quiet. The clock cannot see what it waits for, so it moves on once nothing has changed
/// for 50 ms while the process was idle. While the process uses at least half a processor (an
/// effect computes, or tests run in parallel), the effect may be ready to run and waiting for a
/// processor, so the clock goes on waiting, until about a second has passed without a change.
/// (Load from other processes is not seen.) The same holds for an effect that waits for tasks it
/// created itself (a task group, `async let`): a step that wakes one of them waits for such a
/// pause, so a child task that works for longer than a second without starting or ending an
/// effect is not waited for.
///
/// An effect's own task that the clock has just woken, one just started, or one whose merged
/// or cancellable effects just ended, is ready to run but may wait for a thread of the
/// cooperative pool: the clock waits for it to run, since it waits for nothing outside the
/// store, until 60 s have passed without a change (a safeguard, not a settle time).
///
/// A sleeping task that is cancelled wakes at once with `CancellationError`.
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
    /// The activity of the store whose effect sleeps.
    let activity: EffectActivity?
    /// Whether the sleeper is counted as parked while it sleeps.
    let parks: Bool
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

    /// Removes and returns the earliest sleeper due at `instant`, moving `now` to its deadline.
    mutating func takeNextSleeper(dueAt instant: Instant) -> Sleeper? {
      var next: Int?
      for index in sleepers.indices where sleepers[index].deadline <= instant {
        if let best = next,
          (sleepers[best].deadline, sleepers[best].id)
            <= (sleepers[index].deadline, sleepers[index].id)
        {
          continue
        }
        next = index
      }
      guard let next else { return nil }
      let sleeper = sleepers.remove(at: next)
      now = Swift.max(now, sleeper.deadline)
      return sleeper
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
  ///
  /// - Parameters:
  ///   - deadline: The instant the sleep ends at, once `advance` or `run` reaches it.
  ///   - tolerance: Ignored: the test clock wakes sleepers exactly at their deadlines.
  public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    try Task.checkCancellation()
    // The sleeper's store, and whether this task is one the store counts (see `EffectActivity`):
    // only counted tasks park; the sleep of a child task an effect created leaves the count
    // alone, and waking it waits for the store to settle.
    let context = EffectActivity.current
    let activity = context?.activity
    let parks = context?.isCurrentTask ?? false
    let id = storage.withLock { storage in
      defer { storage.nextID += 1 }
      return storage.nextID
    }
    // Whether this task parked: then whoever resumes it (a wake, or the cancellation handler)
    // counts it as waking, and it runs again once the sleep returns or throws.
    var didPark = false
    defer { if didPark { activity?.woke() } }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation {
        (continuation: CheckedContinuation<Void, any Error>) in
        let (resumeNow, waiters) = storage.withLock {
          storage -> (Bool, [CheckedContinuation<Void, Never>]) in
          // Checked again here: a cancellation since the first check ran its handler before
          // this sleeper existed, so nothing else would wake it.
          guard deadline > storage.now, !Task.isCancelled else { return (true, []) }
          storage.sleepers.append(
            Sleeper(
              id: id, deadline: deadline, continuation: continuation, activity: activity,
              parks: parks))
          // Counted under the clock's lock, so `advance` cannot resume it before it is parked.
          if parks { activity?.parked() }
          return (false, storage.takeSatisfiedWaiters())
        }
        didPark = parks && !resumeNow
        if resumeNow {
          if Task.isCancelled {
            continuation.resume(throwing: CancellationError())
          } else {
            continuation.resume()
          }
        }
        for waiter in waiters { waiter.resume() }
      }
    } onCancel: {
      let sleeper = storage.withLock { storage -> Sleeper? in
        guard let index = storage.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
        return storage.sleepers.remove(at: index)
      }
      if let sleeper {
        if sleeper.parks { sleeper.activity?.resumed() }
        sleeper.continuation.resume(throwing: CancellationError())
      }
    }
  }

  /// Waits until at least `count` tasks are sleeping on this clock.
  ///
  /// Rarely needed: a test store's `send` returns once the effects it started are quiet, and
  /// `advance` first lets the effects of the stores sleeping on it become quiet.
  ///
  /// - Parameter count: How many sleeping tasks to wait for.
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

  /// Moves time forward by `duration`, waking every sleeper whose deadline the interval reaches,
  /// one at a time in deadline order (see "Stepping" above).
  ///
  /// - Parameter duration: How far to move; by default zero, which wakes only sleepers that are
  ///   due now.
  public func advance(by duration: Duration = .zero) async {
    await advance(to: now.advanced(by: duration))
  }

  /// Moves time forward to `instant` (never backward), waking every sleeper due by then, one at
  /// a time in deadline order, and letting the effects of its store become quiet after each.
  ///
  /// - Parameter instant: The time to move to.
  public func advance(to instant: Instant) async {
    await waitForSleepingStoresToBeQuiet()
    while let sleeper = storage.withLock({ $0.takeNextSleeper(dueAt: instant) }) {
      await wake(sleeper)
    }
    storage.withLock { $0.now = Swift.max($0.now, instant) }
  }

  /// Wakes sleepers in deadline order until none is left, moving time to each deadline.
  ///
  /// A timer that never stops would make this run forever. Once it has woken 1,000 sleepers
  /// and `timeout` of wall time has passed, it gives up, reporting the problem through the
  /// dependencies' `reportIssue` (a test failure inside a test store's effects, a line on
  /// standard error otherwise). A shorter schedule always runs to its end, however long a
  /// loaded machine keeps its tasks waiting for threads.
  ///
  /// The wait after each wake counts against `timeout`: a step whose effect waits outside the
  /// store costs 50 ms, and up to about a second while the process is busy; a step whose
  /// effect waits for a thread lasts until it runs (see "Stepping" above). Advance by a
  /// duration instead when many such steps are due.
  ///
  /// - Parameter timeout: The wall-clock limit, once 1,000 sleepers have been woken. Default:
  ///   five seconds.
  public func run(timeout: Duration = .seconds(5)) async {
    await waitForSleepingStoresToBeQuiet()
    let deadline = ContinuousClock.now.advanced(by: timeout)
    var woken = 0
    while let sleeper = storage.withLock({ storage -> Sleeper? in
      storage.takeNextSleeper(dueAt: Instant(offset: .seconds(Int64.max / 2)))
    }) {
      await wake(sleeper)
      woken += 1
      // Both: wall time alone stopped short schedules on a loaded machine, leaving their
      // sleepers asleep; a count alone would let a timer that never stops run for minutes.
      if woken >= Self.runawayWakeCount, ContinuousClock.now >= deadline {
        DependencyValues.current.reportIssue(
          """
          TestClock.run() stopped after waking \(woken) sleepers, past its limit of \(timeout): \
          sleepers keep being scheduled (a timer that never stops?). Advance by a duration \
          instead, or stop the timer first.
          """)
        return
      }
    }
  }

  /// How many sleepers `run(timeout:)` wakes before its wall-clock limit applies: far more
  /// than a test's schedule holds, and a timer that never stops reaches it in well under a
  /// second.
  static let runawayWakeCount = 1_000

  /// Resumes one sleeper and waits until the effects of its store are quiet again.
  private func wake(_ sleeper: Sleeper) async {
    if sleeper.parks { sleeper.activity?.resumed() }
    sleeper.continuation.resume()
    if let activity = sleeper.activity {
      await activity.waitUntilQuiet()
    } else {
      // A sleeper outside any store's effect: give it a chance to run before time moves on.
      for _ in 0..<10 { await Task.yield() }
    }
  }

  /// Lets effects of the stores that sleep here, started meanwhile, reach their sleeps.
  private func waitForSleepingStoresToBeQuiet() async {
    let activities = storage.withLock { storage in
      storage.sleepers.compactMap(\.activity)
    }
    var seen: Set<ObjectIdentifier> = []
    for activity in activities where seen.insert(ObjectIdentifier(activity)).inserted {
      await activity.waitUntilQuiet()
    }
  }
}
