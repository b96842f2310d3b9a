import Foundation

/// A task executor with a thread of its own, for tests whose tasks must run while every thread
/// of the shared task pool may be blocked (by tests running in parallel on a two-core machine).
///
/// ```swift
/// let executor = ThreadExecutor()
/// await withTaskExecutorPreference(executor) { … }  // runs on the executor's thread
/// ```
///
/// The thread (which keeps the executor alive) runs until ``stop()``.
public final class ThreadExecutor: TaskExecutor, @unchecked Sendable {
  // Safe: `jobs` and `isStopped` are touched only with `condition` locked.
  private let condition = NSCondition()
  private var jobs: [UnownedJob] = []
  private var isStopped = false

  /// Starts the executor's thread.
  public init() {
    let thread = Thread { self.run() }
    thread.name = "ThreadExecutor"
    thread.start()
  }

  /// Stops the thread once the jobs enqueued so far have run.
  public func stop() {
    condition.lock()
    isStopped = true
    condition.broadcast()
    condition.unlock()
  }

  /// Runs `job` on the executor's thread, after the jobs enqueued before it.
  public func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    condition.lock()
    jobs.append(job)
    condition.signal()
    condition.unlock()
  }

  private func run() {
    while true {
      condition.lock()
      while jobs.isEmpty && !isStopped { condition.wait() }
      if jobs.isEmpty {
        condition.unlock()
        return
      }
      let job = jobs.removeFirst()
      condition.unlock()
      job.runSynchronously(on: asUnownedTaskExecutor())
    }
  }
}
