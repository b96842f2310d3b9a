import Foundation

/// The thread that makes ``DurableActionLog``s durable, with group commit: one flush of a sink
/// covers every line appended to it before the flush started.
///
/// Create one for a server and give it to every durable log: all of them share its thread.
/// Each round, it takes the lines every log appended since the previous round, writes them to
/// the logs' sinks, flushes each sink once, and then acknowledges those lines. Lines appended
/// while a round is under way wait for the next round, so however many actions arrive during
/// an `fsync`, they cost one more `fsync`, not one each.
///
/// When a round has several sinks to flush (one log file per game, say), it flushes them at
/// once, on up to `concurrentFlushes` threads: `fsync`s of different files then overlap, and a
/// journaling file system commits them together.
///
/// The threads sleep while there is nothing to write (no polling), and end once the committer
/// is released and its work is done.
public final class ActionLogCommitter: Sendable {
  private let queue: CommitQueue

  /// Creates a committer and starts its threads.
  ///
  /// - Parameters:
  ///   - name: The committer thread's name, as debuggers and `top -H` show it.
  ///   - concurrentFlushes: How many sinks a round may flush at the same time (the committer's
  ///     thread and `concurrentFlushes - 1` helpers, which only wait on I/O). 8 by default.
  public init(name: String = "action-log-committer", concurrentFlushes: Int = 8) {
    precondition(concurrentFlushes > 0, "Unidirectional: concurrentFlushes must be positive")
    let queue = CommitQueue(pool: FlushPool(helpers: concurrentFlushes - 1, name: name))
    self.queue = queue
    let thread = Thread { queue.run() }
    thread.name = name
    thread.start()
  }

  deinit {
    queue.stop()
  }

  /// Asks for a round that includes `log`'s pending lines.
  func schedule(_ log: any CommitParticipant) {
    queue.schedule(log)
  }
}

/// A log the committer commits: what one round takes from it, and what it is told after.
protocol CommitParticipant: AnyObject, Sendable {
  /// Where the log's lines go.
  var sink: any ActionLogSink { get }

  /// Takes the lines appended since the previous round, or `nil` if there are none (or the log
  /// failed).
  func takeBatch() -> CommitBatch?

  /// Tells the log that `batch` is durable, or why it is not.
  func finish(_ batch: CommitBatch, failure: ActionLogError?)
}

/// The lines one log appended between two rounds, and what to do once they are durable.
struct CommitBatch: Sendable {
  /// The lines, each ending with a newline.
  var lines: Data
  /// The sequence of the last entry in `lines`.
  var through: Int
  /// Snapshots to write once `lines` are durable, so a snapshot never covers entries the log
  /// could lose.
  var snapshots: [@Sendable () throws(ActionLogError) -> Void]
}

/// The committer's work list and its thread's loop, apart from the committer so that the
/// thread does not keep the committer alive.
private final class CommitQueue: @unchecked Sendable {
  // Safe: `scheduled` and `isStopped` are read and written only with `condition` locked.

  private let condition = NSCondition()
  private var scheduled: [any CommitParticipant] = []
  private var isStopped = false
  private let pool: FlushPool

  init(pool: FlushPool) {
    self.pool = pool
  }

  func schedule(_ log: any CommitParticipant) {
    condition.lock()
    scheduled.append(log)
    condition.signal()
    condition.unlock()
  }

  func stop() {
    condition.lock()
    isStopped = true
    condition.signal()
    condition.unlock()
  }

  /// The logs to commit next, waiting for some; `nil` once stopped with nothing left.
  private func next() -> [any CommitParticipant]? {
    condition.lock()
    defer { condition.unlock() }
    while scheduled.isEmpty && !isStopped { condition.wait() }
    if scheduled.isEmpty { return nil }
    defer { scheduled = [] }
    return scheduled
  }

  /// The thread's loop: one round per wake-up, covering every log scheduled meanwhile.
  func run() {
    while let logs = next() {
      let batches = logs.compactMap { log in log.takeBatch().map { (log, $0) } }
      var failures = [ActionLogError?](repeating: nil, count: batches.count)
      // All writes first, then all flushes: a sink's write may start its I/O while the
      // previous sink flushes.
      for (index, (log, batch)) in batches.enumerated() where !batch.lines.isEmpty {
        do throws(ActionLogError) {
          try log.sink.write(batch.lines)
        } catch {
          failures[index] = error
        }
      }
      let flushing = batches.indices.filter { failures[$0] == nil }
      let flushFailures = pool.flush(flushing.map { batches[$0].0.sink })
      for (index, failure) in zip(flushing, flushFailures) { failures[index] = failure }
      for (index, (log, batch)) in batches.enumerated() {
        log.finish(batch, failure: failures[index])
      }
    }
    pool.stop()
  }
}

/// Threads that flush the sinks of one round at the same time, with the committer's thread.
///
/// States: idle (`job` is `nil`, helpers wait); flushing (`job` set: each thread takes the next
/// sink until none is left; the last to finish wakes the committer's thread, which clears
/// `job`); stopped (helpers return).
private final class FlushPool: @unchecked Sendable {
  // Safe: `job` and `isStopped` are read and written only with `condition` locked; a job's
  // sinks are each flushed by the one thread that took its index.

  private struct Job {
    let sinks: [any ActionLogSink]
    var failures: [ActionLogError?]
    var next = 0
    var done = 0
  }

  private let condition = NSCondition()
  private var job: Job?
  private var isStopped = false
  private let helpers: Int

  init(helpers: Int, name: String) {
    self.helpers = helpers
    for index in 0..<helpers {
      let thread = Thread { [self] in work() }
      thread.name = "\(name)-flush-\(index + 1)"
      thread.start()
    }
  }

  /// Flushes every sink, at the same time where there are helpers; returns each one's failure.
  func flush(_ sinks: [any ActionLogSink]) -> [ActionLogError?] {
    guard sinks.count > 1, helpers > 0 else {
      return sinks.map { sink in
        do throws(ActionLogError) {
          try sink.flush()
          return nil
        } catch {
          return error
        }
      }
    }
    condition.lock()
    job = Job(sinks: sinks, failures: Array(repeating: nil, count: sinks.count))
    condition.broadcast()
    condition.unlock()
    takeTurns()
    condition.lock()
    while let job, job.done < job.sinks.count { condition.wait() }
    let failures = job?.failures ?? []
    job = nil
    condition.unlock()
    return failures
  }

  /// Flushes the job's next sink until none is left.
  private func takeTurns() {
    while true {
      condition.lock()
      guard var current = job, current.next < current.sinks.count else {
        condition.unlock()
        return
      }
      let index = current.next
      current.next += 1
      job = current
      condition.unlock()
      var failure: ActionLogError?
      do throws(ActionLogError) {
        try current.sinks[index].flush()
      } catch {
        failure = error
      }
      condition.lock()
      job?.failures[index] = failure
      job?.done += 1
      if let job, job.done == job.sinks.count { condition.broadcast() }
      condition.unlock()
    }
  }

  /// A helper's loop: waits for a job with sinks left, takes turns, until stopped.
  private func work() {
    while true {
      condition.lock()
      while !isStopped && (job.map { $0.next >= $0.sinks.count } ?? true) { condition.wait() }
      let stopped = isStopped
      condition.unlock()
      if stopped { return }
      takeTurns()
    }
  }

  func stop() {
    condition.lock()
    isStopped = true
    condition.broadcast()
    condition.unlock()
  }
}
