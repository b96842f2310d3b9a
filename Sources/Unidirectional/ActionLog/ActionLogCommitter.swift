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
/// The thread sleeps while there is nothing to write (no polling), and ends once the committer
/// is released and its work is done.
public final class ActionLogCommitter: Sendable {
  private let queue = CommitQueue()

  /// Creates a committer and starts its thread.
  ///
  /// - Parameter name: The thread's name, as debuggers and `top -H` show it.
  public init(name: String = "action-log-committer") {
    let queue = self.queue
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
      for (index, (log, _)) in batches.enumerated() where failures[index] == nil {
        do throws(ActionLogError) {
          try log.sink.flush()
        } catch {
          failures[index] = error
        }
      }
      for (index, (log, batch)) in batches.enumerated() {
        log.finish(batch, failure: failures[index])
      }
    }
  }
}
