#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A task executor that runs jobs only when a test drains it, so that a test knows, as a fact,
/// when a store's effects have nothing left to do.
///
/// Give one to a store (``Store/init(initialState:reducer:interceptors:onIssue:effectExecutor:)``):
/// its effects then prefer this executor (SE-0417). Every job of theirs (a task's first run,
/// and every resumption after an `await`) is queued here, and runs when ``drain()`` is called,
/// one at a time, in the order queued. A `TestStore` makes one for its store and drains it at
/// every step; a ``TestClock`` drains the executors attached to it after each deadline it wakes.
///
/// ```swift
/// let executor = TestExecutor()
/// let store = Store(initialState: Feature.State(), effectExecutor: executor) { Feature() }
/// store.send(.start)        // the effect's task is queued, not running
/// executor.drain()          // it runs until it waits for something
/// ```
///
/// After ``drain()`` returns, the effects are *quiet*: no job is queued and none runs. Each is
/// asleep on a clock, waiting for another task, or waiting for something outside the executor.
///
/// What follows the preference, and so runs here: an effect's own code, `async let` and
/// task-group children, default actors' methods, `Task.yield()`, continuations resumed from any
/// thread, and cancellation handlers' bodies. What does not: an unstructured `Task {}` or
/// `Task.detached` created inside an effect, `MainActor.run` and other actors with executors of
/// their own (the effect comes back here after them), and a store created inside an effect.
///
/// States: *idle* (nothing queued, no drain running) → *draining* (one thread runs jobs until
/// the queue is empty) → idle. Once ``release()`` is called, the executor is *released*: every
/// job queued then or later runs on the global concurrent executor, so that tasks left behind
/// by a finished test end by themselves.
public final class TestExecutor: TaskExecutor, Sendable {
  private struct State {
    /// Jobs not yet run, oldest first, starting at `head`.
    var jobs: [UnownedJob] = []
    var head = 0
    /// The thread running `drain()`, if any.
    var drainingThread: pthread_t?
    /// Grows on every enqueue, at the end of every drain, and on every `wakeWaiters()`.
    var generation: UInt64 = 0
    /// Tasks suspended in `waitForChange`, by id.
    var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    var nextWaiterID: UInt64 = 0
    var isReleased = false
    /// Jobs run since the executor was created.
    var jobsRun: UInt64 = 0
    /// Tasks of this executor asleep on a `TestClock`: only a test can wake them.
    var clockSleepers = 0

    var hasQueuedJobs: Bool { head < jobs.count }

    mutating func takeWaiters() -> [CheckedContinuation<Void, Never>] {
      generation &+= 1
      guard !waiters.isEmpty else { return [] }
      defer { waiters = [:] }
      return Array(waiters.values)
    }

    mutating func popJob() -> UnownedJob? {
      guard head < jobs.count else { return nil }
      let job = jobs[head]
      head += 1
      if head == jobs.count {
        jobs.removeAll(keepingCapacity: true)
        head = 0
      }
      return job
    }
  }

  private let state = Locked(State())

  /// Creates an executor with no jobs.
  public init() {}

  /// Queues `job` until the next ``drain()`` (or, once released, hands it to the global
  /// concurrent executor).
  ///
  /// Called by the Swift runtime for tasks that prefer this executor; not for tests to call.
  ///
  /// - Parameter job: The job: a task's first run, or its resumption after an `await`.
  public func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    let (isReleased, waiters) = state.withLock { state in
      guard !state.isReleased else { return (true, [CheckedContinuation<Void, Never>]()) }
      state.jobs.append(job)
      return (false, state.takeWaiters())
    }
    if isReleased {
      runOnGlobalExecutor(job)
      return
    }
    for waiter in waiters { waiter.resume() }
  }

  /// Runs queued jobs, one at a time in the order they were queued, including the jobs that
  /// running them queues, until none is left.
  ///
  /// Each job runs on the calling thread. A call made while a drain is running (from inside a
  /// job, or from another thread) returns at once: the drain in progress runs the jobs.
  ///
  /// - Returns: The number of jobs run.
  @discardableResult
  public func drain() -> Int {
    let starts = state.withLock { state -> Bool in
      guard state.drainingThread == nil else { return false }
      state.drainingThread = pthread_self()
      return true
    }
    guard starts else { return 0 }
    let unownedSelf = asUnownedTaskExecutor()
    var count = 0
    while true {
      // Taking the last job and ending the drain are one step, so that a job queued by another
      // thread meanwhile is either taken here or finds no drain running.
      let (job, waiters) = state.withLock {
        state -> (UnownedJob?, [CheckedContinuation<Void, Never>]) in
        if let job = state.popJob() {
          state.jobsRun += 1
          return (job, [])
        }
        state.drainingThread = nil
        return (nil, state.takeWaiters())
      }
      guard let job else {
        for waiter in waiters { waiter.resume() }
        return count
      }
      job.runSynchronously(on: unownedSelf)
      count += 1
    }
  }

  /// Whether a job is queued, waiting for ``drain()``.
  public var hasQueuedJobs: Bool {
    state.withLock { $0.hasQueuedJobs }
  }

  /// Whether nothing is queued and no drain is running: every task that prefers this executor
  /// is suspended or has ended.
  public var isIdle: Bool {
    state.withLock { !$0.hasQueuedJobs && $0.drainingThread == nil }
  }

  /// The number of jobs run since the executor was created.
  public var jobsRun: UInt64 {
    state.withLock { $0.jobsRun }
  }

  /// Stops holding jobs: those queued now, and every job queued from now on, run on the global
  /// concurrent executor. A test store calls this as it goes away, so that effects it leaves
  /// behind (cancelled, or waiting for something outside) run to their end instead of leaking.
  public func release() {
    let (jobs, waiters) = state.withLock {
      state -> ([UnownedJob], [CheckedContinuation<Void, Never>]) in
      state.isReleased = true
      var jobs: [UnownedJob] = []
      while let job = state.popJob() { jobs.append(job) }
      return (jobs, state.takeWaiters())
    }
    for job in jobs { runOnGlobalExecutor(job) }
    for waiter in waiters { waiter.resume() }
  }

  private func runOnGlobalExecutor(_ job: UnownedJob) {
    // The job still prefers this executor: it runs as if here, on a thread of the global
    // executor, and its later jobs come back through `enqueue`, which sends them there too.
    Task.detached {
      job.runSynchronously(on: self.asUnownedTaskExecutor())
    }
  }

  // MARK: Waiting (for test stores and test clocks)

  /// Whether the current thread is running a job of this executor (a wait for quiet from there
  /// would wait for itself).
  package var isDrainingOnCurrentThread: Bool {
    state.withLock { state in
      guard let thread = state.drainingThread else { return false }
      return pthread_equal(thread, pthread_self()) != 0
    }
  }

  /// A number that grows whenever a job is queued, a drain ends, or ``wakeWaiters()`` is
  /// called: read it before checking a condition, then pass it to ``waitForChange(after:)``.
  package var generation: UInt64 {
    state.withLock { $0.generation }
  }

  /// Wakes the tasks waiting in ``waitForChange(after:)``, for a change the executor does not
  /// see (an action reduced on another thread).
  package func wakeWaiters() {
    let waiters = state.withLock { $0.takeWaiters() }
    for waiter in waiters { waiter.resume() }
  }

  /// Suspends until ``generation`` is past `seen`: a job was queued, a drain ended, or
  /// ``wakeWaiters()`` was called. Returns at once if that happened already.
  ///
  /// It never times out by itself: a caller with a deadline wakes it with ``wakeWaiters()``.
  package func waitForChange(after seen: UInt64) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let registered = state.withLock { state -> Bool in
        guard state.generation == seen else { return false }
        state.waiters[state.nextWaiterID] = continuation
        state.nextWaiterID += 1
        return true
      }
      if !registered { continuation.resume() }
    }
  }

  /// Suspends until ``generation`` is past `seen`, or until `deadline` (a wall-clock limit for
  /// waits on work outside the executor, which a passing test does not reach).
  package func waitForChange(after seen: UInt64, until deadline: ContinuousClock.Instant) async {
    guard ContinuousClock.now < deadline else { return }
    let timer = Task.detached {
      guard (try? await Task.sleep(until: deadline, clock: .continuous)) != nil else { return }
      self.wakeWaiters()
    }
    await waitForChange(after: seen)
    timer.cancel()
  }

  /// The number of this executor's tasks asleep on a `TestClock`.
  package var clockSleeperCount: Int {
    state.withLock { $0.clockSleepers }
  }

  /// A task of this executor began (`+1`) or ended (`-1`) a sleep on a test clock.
  package func clockSleepersChanged(by delta: Int) {
    state.withLock { $0.clockSleepers += delta }
  }

  /// Drains until `task` has ended (the caller waits for it, as it would with `task.value`).
  package func drain(until task: Task<Void, Never>) async {
    let isDone = Locked(false)
    await withTaskGroup(of: Void.self) { group in
      // The group's child waits on the task the usual way; the loop drains meanwhile, and the
      // child wakes it once the task has ended.
      group.addTask {
        await task.value
        isDone.withLock { $0 = true }
        self.wakeWaiters()
      }
      while true {
        await drainUntilIdle()
        // Read before the checks, so that a change after them ends the wait at once.
        let seen = generation
        if isDone.withLock({ $0 }) { break }
        if hasQueuedJobs { continue }
        await waitForChange(after: seen)
      }
    }
  }

  /// Drains, then, while a drain on another thread is running, waits for it to end and drains
  /// again: returns once the executor is idle (or at once, on a thread that is draining it).
  ///
  /// On the draining thread (a wait inside an effect, for effects on the same executor), it
  /// cannot wait for idle: it yields while jobs are queued, so that the drain it runs inside
  /// runs them (a caller that loops while jobs are queued would spin otherwise), and returns.
  package func drainUntilIdle() async {
    while true {
      let seen = generation
      drain()
      if isDrainingOnCurrentThread {
        if hasQueuedJobs { await Task.yield() }
        return
      }
      if isIdle { return }
      await waitForChange(after: seen)
    }
  }
}
