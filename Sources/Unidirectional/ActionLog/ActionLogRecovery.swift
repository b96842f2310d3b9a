/// A store's state recovered from a durable action log, the log reopened to carry on, and an
/// account of what recovery did.
///
/// Made by
/// ``DurableActionLog/recover(path:snapshotPath:program:schemaVersion:redactsSecrets:repairingDamage:initialState:reducer:committer:)``.
public struct ActionLogRecovery<State, Action: Encodable & Sendable> {
  /// The end of the log that recovery cut off and moved to a quarantine file: lines a crash
  /// cut off in the middle of a write (a torn tail), or, when recovering with
  /// `repairingDamage: true`, a damaged line and everything after it.
  ///
  /// In a checksummed log (format version 2), the torn tail is every line from the first that
  /// does not verify, when no line after it verifies: those writes never completed, so none of
  /// them was acknowledged. In a log of format version 1, it is the last line, if it has no
  /// newline or is not a valid entry.
  public struct TornTail: Equatable, Sendable {
    /// The first line cut, from 1 (the header is line 1).
    public let line: Int
    /// How many bytes were cut from the end of the log.
    public let bytes: Int
    /// Where the cut starts: the byte offset, from 0, of ``line`` in the log as it was found.
    public let offset: Int
    /// How many lines were cut, the last possibly without its newline.
    public let entryCount: Int
    /// The file beside the log that holds the cut bytes, exactly as they were
    /// (`<log>.quarantine-N`, mode 0600, written and `fsync`ed before the log was cut).
    public let quarantinePath: String
    /// Whether the cut was a repair of damage (valid entries followed the first bad line, and
    /// recovery was asked to repair) rather than a torn tail.
    public let isRepair: Bool
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

  /// What was cut from the end of the log and moved to a quarantine file, or `nil` if the log
  /// ended cleanly.
  public let tornTail: TornTail?

  /// Whether the log's last entry verified but had no newline, and recovery added it: the
  /// write of the entry completed, up to its newline.
  public let completedLastLine: Bool
}

extension ActionLogRecovery: Sendable where State: Sendable {}

extension ActionLogRecovery: CustomStringConvertible {
  /// One line for an operator: what was recovered, from where, and what was cut off.
  public var description: String {
    let start = snapshotSequence.map { "the snapshot at entry \($0)" } ?? "the initial state"
    var text = "recovered through entry \(sequence): \(start), then \(replayedCount) entries"
    if completedLastLine { text += "; completed the last entry's newline" }
    if let tornTail {
      text +=
        "; moved \(tornTail.isRepair ? "a damaged part" : "a torn tail") (from line "
        + "\(tornTail.line), byte \(tornTail.offset): \(tornTail.entryCount) "
        + "line\(tornTail.entryCount == 1 ? "" : "s"), "
        + "\(tornTail.bytes) bytes) to \(tornTail.quarantinePath)"
    }
    return text
  }
}
