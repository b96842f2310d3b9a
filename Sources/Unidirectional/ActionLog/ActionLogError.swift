/// Why an action log could not be written, or could be read only up to a line.
public struct ActionLogError: Error, Equatable, Sendable, CustomStringConvertible {
  /// What went wrong.
  public enum Reason: Equatable, Sendable {
    /// The file could not be opened, read or written; the text says why.
    case fileError(String)
    /// A blank line in the middle of the log.
    case emptyLine
    /// The line is not a complete JSON entry, or its action does not decode; the text says
    /// what the decoder found.
    case invalidEntry(String)
    /// The last line ends without a newline and does not decode: the log was cut off while it
    /// was being written.
    case truncated(String)
    /// The line's sequence number is not the one after the previous line's: lines are missing
    /// or out of order.
    case sequenceGap(expected: Int, found: Int)
    /// The recorder was asked to create a log where a file already exists, without
    /// `overwrite: true`.
    case fileExists
    /// The log was recorded by another program than the one reading it.
    case otherProgram(recorded: String, reading: String)
    /// The log holds another action type than the one the reader decodes.
    case otherActionType(recorded: String, reading: String)
    /// The log was recorded with a newer version of the actions' encoding than the reader
    /// supports.
    case newerSchema(recorded: Int, supported: Int)
    /// The header names a version of the log's layout (see ``ActionLogHeader``) that this
    /// library does not read: `found`, where it reads only the versions in `supported`.
    case unsupportedFormat(found: Int, supported: [Int])
    /// A line of a checksummed log (format version 2) that does not verify, at byte
    /// `byteOffset` of the file, with valid entries after it: the file was damaged after those
    /// were written, not cut off by a crash. `problem` says what was found. Recovery changes
    /// nothing and refuses; recovering with `repairingDamage: true` moves the line and
    /// everything after it to a quarantine file and keeps the entries before it.
    case damaged(byteOffset: Int, problem: String)
    /// The action on this line holds secrets (see ``Secret``) that were redacted when it was
    /// recorded, so it cannot be replayed: the paths say where in the action they were.
    case redacted([String])
    /// The sink's storage cannot be reached for now (a database that is down, a connection
    /// lost); the text says why. A sink throws it only for a round it kept nothing of: the log
    /// does not stop, the waiters of that round receive it, and the same lines are written
    /// again in a later round (see ``ActionLogSink``).
    case unavailable(String)
    /// The sink's writer lost its right to write the log: another writer was granted it since
    /// (a lease taken over, a newer fencing token); the text says by whom. Nothing of the round
    /// was written, and the log stops: the writer must drop what it serves from this log, and
    /// the new writer recovers it.
    case fenced(String)
  }

  /// The file concerned.
  public let path: String

  /// The line (from 1) where reading stopped, or `nil` for a problem with the whole file.
  public let line: Int?

  /// What went wrong.
  public let reason: Reason

  /// Creates an error.
  ///
  /// - Parameters:
  ///   - path: The file concerned.
  ///   - line: The line, from 1, or `nil`.
  ///   - reason: What went wrong.
  public init(path: String, line: Int?, reason: Reason) {
    self.path = path
    self.line = line
    self.reason = reason
  }

  /// One line naming the file, the line and the problem.
  public var description: String {
    let place = line.map { "\(path), line \($0)" } ?? path
    switch reason {
    case .fileError(let message):
      return "\(place): \(message)"
    case .emptyLine:
      return "\(place): empty line in the middle of the log"
    case .invalidEntry(let message):
      return "\(place): not a valid entry: \(message)"
    case .truncated(let message):
      return "\(place): the log ends in the middle of an entry (truncated): \(message)"
    case .sequenceGap(let expected, let found):
      return "\(place): sequence number \(found) where \(expected) was expected "
        + "(lines are missing or out of order)"
    case .fileExists:
      return "\(place): the file already exists; not overwriting it (to replace it, record "
        + "with overwrite: true, which programs offer as --force)"
    case .otherProgram(let recorded, let reading):
      return "\(place): the log was recorded by '\(recorded)', not by '\(reading)': "
        + "replay it with '\(recorded)'"
    case .otherActionType(let recorded, let reading):
      return "\(place): the log holds actions of type \(recorded), not \(reading)"
    case .newerSchema(let recorded, let supported):
      return "\(place): the log was recorded with schema version \(recorded) of its actions; "
        + "this program reads versions up to \(supported)"
    case .unsupportedFormat(let found, let supported):
      let versions = supported.map(String.init).joined(separator: ", ")
      return "\(place): the log's format version is \(found), which this library does not read "
        + "(it reads format versions \(versions)); read it with the library that wrote it"
    case .damaged(let offset, let problem):
      return "\(place): damaged entry at byte offset \(offset) (\(problem)), with valid entries "
        + "after it: this is damage to the file, not a write cut off by a crash, and nothing "
        + "was changed. To keep the entries before it and move this line and all after it to "
        + "a quarantine file beside the log, recover with "
        + "DurableActionLog.recover(path:…, repairingDamage: true) (a log kept as records, "
        + "such as a database's rows: move that record and those after it aside, then recover)"
    case .unavailable(let message):
      return "\(place): the log's storage is unavailable (\(message)): nothing of this round "
        + "was acknowledged; its entries are kept and written again once the storage is back"
    case .fenced(let message):
      return "\(place): this writer was fenced off the log (\(message)): nothing of this round "
        + "was written; stop serving from this log and let its new writer recover it"
    case .redacted(let paths):
      let secrets = paths.map { $0.isEmpty ? "the whole action" : $0 }
      return "\(place): cannot replay this action: its secret "
        + "(\(secrets.joined(separator: ", "))) was redacted when it was recorded; "
        + "the replay stops before it"
    }
  }
}

extension ActionLogError {
  /// A one-line account of a decoding error, without the coding path noise.
  static func summary(of error: any Error) -> String {
    guard let error = error as? DecodingError else { return "\(error)" }
    let describe = { (context: DecodingError.Context) -> String in
      let path = context.codingPath.map(\.stringValue).joined(separator: ".")
      return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
    }
    switch error {
    case .dataCorrupted(let context): return describe(context)
    case .keyNotFound(let key, let context):
      let path = (context.codingPath + [key]).map(\.stringValue).joined(separator: ".")
      return "missing '\(path)'"
    case .typeMismatch(_, let context), .valueNotFound(_, let context): return describe(context)
    @unknown default: return "\(error)"
    }
  }
}
