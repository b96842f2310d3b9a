/// A clock whose time moves only when a test advances it, one deadline at a time.
///
/// ```swift
/// let clock = TestClock()
/// let executor = TestExecutor()
/// let store = withDependencies { $0.continuousClock = clock } operation: {
///   Store(initialState: Timer.State(), effectExecutor: executor) { Timer() }
/// }
/// store.send(.start)                      // an effect ticks every second on `clock`
/// await clock.advance(by: .seconds(5))    // five ticks, each reduced before the next
/// ```
///
/// ## Stepping
///
/// ``advance(by:)`` and ``advance(to:)`` do not jump: they wake the sleepers whose deadlines
/// fall in the interval one at a time, in deadline order (ties in the order they began
/// sleeping), setting ``now`` to each deadline. Before the first and after each wake, the clock
/// drains the ``TestExecutor``s attached to it, until none has a job queued: the effects that
/// woke have run up to their next suspension, the actions they sent are reduced, and the
/// effects those started have run too, before time moves on. A sleep that an effect begins
/// meanwhile, with a deadline still in the interval, is woken in its turn: a repeating timer
/// advanced by five periods ticks five times.
///
/// An executor is attached to the clock by the store that runs on it (a `TestStore` always, a
/// ``Store`` given a ``TestExecutor``), when the clock is among the store's dependencies, and
/// by every effect of such a store that sleeps on the clock. What the clock does not drain,
/// it does not wait for: a sleeper outside any test executor (a plain store's effect on the
/// global executor, an unstructured `Task {}`) is only given a few `Task.yield()`s to run
/// after its wake, which does not make its next steps deterministic.
///
/// A sleeping task that is cancelled wakes at once with `CancellationError`.
///
/// States of a sleeper: registered (in `sleepers`, time not reached) → resumed (removed, by
/// `advance`, by `run`, or by cancellation).
public final class TestClock: Clock, Sendable {
  /// A point in the test clock's time.
  public typealias Instant = ImmediateClock.Instant

  private struct Sleeper {
    let id: UInt64
    let deadline: Instant
    let continuation: CheckedContinuation<Void, any Error>
    /// The test executor the sleeping task runs on, if any.
    let executor: TestExecutor?
  }

  /// An attached executor, held weakly: a clock outlives the test stores that used it.
  private struct AttachedExecutor {
    weak var executor: TestExecutor?
  }

  private struct Storage {
    var now = Instant()
    var nextID: UInt64 = 0
    var sleepers: [Sleeper] = []
    var executors: [AttachedExecutor] = []

    mutating func attach(_ executor: TestExecutor) {
      executors.removeAll { $0.executor == nil }
      guard !executors.contains(where: { $0.executor === executor }) else { return }
      executors.append(AttachedExecutor(executor: executor))
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
    // The executor of the sleeper's store, which the clock drains once it wakes the sleeper.
    let executor = EffectActivity.current?.activity.testExecutor
    let id = storage.withLock { storage in
      defer { storage.nextID += 1 }
      return storage.nextID
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation {
        (continuation: CheckedContinuation<Void, any Error>) in
        let resumeNow = storage.withLock { storage -> Bool in
          // Checked again here: a cancellation since the first check ran its handler before
          // this sleeper existed, so nothing else would wake it.
          guard deadline > storage.now, !Task.isCancelled else { return true }
          storage.sleepers.append(
            Sleeper(id: id, deadline: deadline, continuation: continuation, executor: executor))
          if let executor {
            storage.attach(executor)
            // Under the clock's lock, so that a wake cannot come before it.
            executor.clockSleepersChanged(by: 1)
          }
          return false
        }
        guard resumeNow else { return }
        if Task.isCancelled {
          continuation.resume(throwing: CancellationError())
        } else {
          continuation.resume()
        }
      }
    } onCancel: {
      let sleeper = storage.withLock { storage -> Sleeper? in
        guard let index = storage.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
        return storage.sleepers.remove(at: index)
      }
      guard let sleeper else { return }
      sleeper.executor?.clockSleepersChanged(by: -1)
      sleeper.continuation.resume(throwing: CancellationError())
    }
  }

  /// Drains `executor` whenever this clock steps (see "Stepping" above). A store given a
  /// ``TestExecutor`` attaches it to the test clocks among its dependencies by itself; call
  /// this for a clock an effect reaches some other way, before the first step, when an effect
  /// waits for something else before it first sleeps on the clock.
  ///
  /// The clock holds the executor weakly.
  ///
  /// - Parameter executor: The executor to drain.
  public func attach(_ executor: TestExecutor) {
    storage.withLock { $0.attach(executor) }
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
  /// a time in deadline order, and draining the attached executors after each.
  ///
  /// - Parameter instant: The time to move to.
  public func advance(to instant: Instant) async {
    await drainExecutors()
    while let sleeper = storage.withLock({ $0.takeNextSleeper(dueAt: instant) }) {
      await wake(sleeper)
    }
    storage.withLock { $0.now = Swift.max($0.now, instant) }
  }

  /// Wakes sleepers in deadline order until none is left, moving time to each deadline and
  /// draining the attached executors after each.
  ///
  /// A timer that never stops would make this run forever: once it has woken `limit` sleepers,
  /// it gives up and reports the problem through the dependencies' `reportIssue` (a test failure
  /// inside a test store's effects, a line on standard error otherwise). The limit is a count,
  /// not a time, so a loaded machine cannot stop a schedule short.
  ///
  /// - Parameter limit: How many sleepers to wake at most. Default: 10,000.
  public func run(limit: Int = 10_000) async {
    await drainExecutors()
    var woken = 0
    while let sleeper = storage.withLock({ storage -> Sleeper? in
      storage.takeNextSleeper(dueAt: Instant(offset: .seconds(Int64.max / 2)))
    }) {
      await wake(sleeper)
      woken += 1
      if woken >= limit, sleeperCount > 0 {
        DependencyValues.current.reportIssue(
          """
          TestClock.run() stopped after waking \(woken) sleepers, its limit: sleepers keep \
          being scheduled (a timer that never stops?). Advance by a duration instead, or stop \
          the timer first.
          """)
        return
      }
    }
  }

  /// Resumes one sleeper and drains the executors, so that what it does next happens before
  /// time moves on.
  private func wake(_ sleeper: Sleeper) async {
    sleeper.executor?.clockSleepersChanged(by: -1)
    sleeper.continuation.resume()
    if sleeper.executor == nil {
      // A sleeper outside any test executor: give it a chance to run before time moves on.
      for _ in 0..<10 { await Task.yield() }
    }
    await drainExecutors()
  }

  /// Drains every attached executor until none has a job queued (draining one can queue jobs
  /// on another: two stores whose effects talk to each other).
  private func drainExecutors() async {
    let executors = storage.withLock { storage in
      storage.executors.removeAll { $0.executor == nil }
      return storage.executors.compactMap(\.executor)
    }
    var drainedAny = true
    while drainedAny {
      drainedAny = false
      for executor in executors {
        await executor.drainUntilIdle()
      }
      for executor in executors where executor.hasQueuedJobs && !executor.isDrainingOnCurrentThread
      {
        drainedAny = true
      }
    }
  }
}
