import Foundation

/// Where a ``DurableActionLog`` puts its lines: a local file (``ActionLogFileSink``), or a log
/// service of your own.
///
/// The log's committer thread calls the sink, one call at a time, never concurrently: first
/// ``write(_:)`` with every line appended since the previous round, then ``flush()``. Once
/// `flush()` returns, the log acknowledges every line written before it, so `flush()` must not
/// return until they survive what you need them to survive: a crash of the machine for a
/// file (`fsync`), a loss of the machine for a replicated log service (a quorum's reply).
///
/// ```swift
/// final class ReplicatedSink: ActionLogSink {
///   func write(_ lines: Data) throws(ActionLogError) { buffer.append(lines) }
///   func flush() throws(ActionLogError) { try service.appendAndWaitForQuorum(buffer) … }
/// }
/// ```
///
/// A sink belongs to one log. Both methods run on the committer's own thread, so they may block.
///
/// An error stops the log: every waiter and every later one receives it (see
/// ``DurableActionLog/failure``). Except one: a sink whose storage is out of reach for a while
/// (a database restarting, a connection lost) throws ``ActionLogError/Reason/unavailable(_:)``
/// from `write` or `flush`, after forgetting every line of that round it has not made durable.
/// The log then keeps going: the waiters of that round receive the error (nothing of it is
/// acknowledged), and the next round hands the same lines to `write` again, before any newer
/// one. Such a sink paces its own retries (it may block for its backoff before reaching out
/// again, which delays the other logs of the committer too), and must accept lines it may
/// have made durable already (a reply lost with the connection) without keeping them twice.
public protocol ActionLogSink: AnyObject, Sendable {
  /// Appends `lines` after everything written before, in order.
  ///
  /// - Parameter lines: Whole lines, each ending with a newline: the log's header (in the first
  ///   call of a new log), then entries.
  /// - Throws: ``ActionLogError`` if the lines cannot be written.
  func write(_ lines: Data) throws(ActionLogError)

  /// Makes everything written so far durable, and returns once it is.
  ///
  /// - Throws: ``ActionLogError`` if it cannot be made durable.
  func flush() throws(ActionLogError)
}
