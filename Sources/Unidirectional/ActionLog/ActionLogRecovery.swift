/// A store's state recovered from a durable action log, the log reopened to carry on, and an
/// account of what recovery did.
///
/// Made by
/// ``DurableActionLog/recover(path:snapshotPath:program:schemaVersion:redactsSecrets:initialState:reducer:committer:)``.
public struct ActionLogRecovery<State, Action: Encodable & Sendable> {
  /// A last line that was cut off by a crash, found and removed from the log.
  public struct TornTail: Equatable, Sendable {
    /// The line, from 1 (the header is line 1).
    public let line: Int
    /// How many bytes were removed from the end of the log.
    public let bytes: Int
  }

  /// The state after the last durable entry: give it to the live store.
  public let state: State

  /// The log, reopened to append after its last good entry: give its interceptor to the live
  /// store.
  public let log: DurableActionLog<Action>

  /// The sequence of the last entry in `state`: 0 for an empty log.
  public let sequence: Int

  /// The sequence the snapshot recovery started from, or `nil` if it started from the initial
  /// state.
  public let snapshotSequence: Int?

  /// How many entries were replayed on top of the snapshot or initial state.
  public let replayedCount: Int

  /// The torn last line that was removed, or `nil` if the log ended cleanly.
  public let tornTail: TornTail?
}

extension ActionLogRecovery: Sendable where State: Sendable {}

extension ActionLogRecovery: CustomStringConvertible {
  /// One line for an operator: what was recovered, from where, and what was cut off.
  public var description: String {
    let start = snapshotSequence.map { "the snapshot at entry \($0)" } ?? "the initial state"
    var text = "recovered through entry \(sequence): \(start), then \(replayedCount) entries"
    if let tornTail {
      text += "; removed a torn last line (line \(tornTail.line), \(tornTail.bytes) bytes)"
    }
    return text
  }
}
