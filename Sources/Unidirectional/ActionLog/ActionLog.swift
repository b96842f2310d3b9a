import Foundation

/// An action log read back from a file written by ``ActionLogRecorder``, ready to replay.
///
/// ```swift
/// let log = try ActionLog<Counter.Action>(path: "session.jsonl", program: "counter")
/// let store = Store(initialState: Counter.State()) { Counter().ignoringEffects() }
/// log.replay(into: store)
/// if let error = log.error { print("stopped early: \(error)") }
/// ```
///
/// Reading first checks the log's ``ActionLogHeader``: a log from another program, of another
/// action type or with a newer schema version is refused with an error naming both sides.
/// Logs written before headers existed (their first line is an entry) are still read, without
/// that check.
///
/// Reading never fails on a bad entry: it keeps every entry up to the first line that is blank,
/// not a valid entry, cut off, out of sequence, or recorded with a ``Secret`` redacted, and
/// describes that line in ``error``. A replay then reaches the state right after the last good
/// action. Line numbers count the file's lines, header included.
public struct ActionLog<Action: Decodable & Sendable>: Sendable {
  /// The log's header, or `nil` for a log written before headers existed.
  public let header: ActionLogHeader?

  /// The entries read, in order, up to the first bad line.
  public let entries: [ActionLogEntry<Action>]

  /// The first bad line, if reading stopped before the end of the file.
  public let error: ActionLogError?

  /// Reads the log at `path`.
  ///
  /// - Parameters:
  ///   - path: A file written by ``ActionLogRecorder``.
  ///   - program: The reading program's name, which must be the one in the header.
  ///   - schemaVersion: The newest version of the actions' encoding this program decodes.
  /// - Throws: ``ActionLogError`` if the file cannot be read
  ///   (``ActionLogError/Reason/fileError(_:)``) or its header does not match
  ///   (``ActionLogError/Reason/otherProgram(recorded:reading:)``,
  ///   ``ActionLogError/Reason/otherActionType(recorded:reading:)``,
  ///   ``ActionLogError/Reason/newerSchema(recorded:supported:)``,
  ///   ``ActionLogError/Reason/newerFormat(_:)``, or
  ///   ``ActionLogError/Reason/invalidEntry(_:)`` for a malformed header). Bad entries do not
  ///   throw: see ``error``.
  public init(
    path: String, program: String = ActionLogHeader.currentProgram, schemaVersion: Int = 1
  ) throws(ActionLogError) {
    guard let data = FileManager.default.contents(atPath: path) else {
      let reason =
        FileManager.default.fileExists(atPath: path)
        ? "the file cannot be read" : "no such file"
      throw ActionLogError(path: path, line: nil, reason: .fileError(reason))
    }
    try self.init(data: data, path: path, program: program, schemaVersion: schemaVersion)
  }

  /// Reads a log from the bytes of a file.
  ///
  /// - Parameters:
  ///   - data: The file's contents: JSON lines.
  ///   - path: The name errors use for the file.
  ///   - program: The reading program's name, which must be the one in the header.
  ///   - schemaVersion: The newest version of the actions' encoding this program decodes.
  /// - Throws: ``ActionLogError`` if the header does not match, as
  ///   ``init(path:program:schemaVersion:)`` does.
  public init(
    data: Data, path: String = "action log",
    program: String = ActionLogHeader.currentProgram, schemaVersion: Int = 1
  ) throws(ActionLogError) {
    let decoder = JSONDecoder()
    var lines = data.split(separator: 0x0A, omittingEmptySubsequences: false)[...]
    let endsWithNewline = data.last == 0x0A
    let header = try Self.header(
      of: lines.first ?? Data(), path: path, program: program,
      schemaVersion: schemaVersion, decoder: decoder)
    if header != nil { lines = lines.dropFirst() }
    var entries: [ActionLogEntry<Action>] = []
    var error: ActionLogError?
    for (index, line) in zip(lines.indices, lines) {
      let number = index + 1
      let isLast = index == lines.endIndex - 1
      if line.isEmpty {
        // The empty piece after the final newline is the end of the file, not a line.
        if isLast { break }
        error = ActionLogError(path: path, line: number, reason: .emptyLine)
        break
      }
      let entry: ActionLogEntry<Action>
      do {
        entry = try decoder.decode(ActionLogEntry<Action>.self, from: Data(line))
      } catch let decodingError {
        let reason: ActionLogError.Reason
        if let redaction = try? decoder.decode(RedactionProbe.self, from: Data(line)) {
          reason = .redacted(redaction.redacted)
        } else {
          let message = Self.summary(of: decodingError)
          reason = isLast && !endsWithNewline ? .truncated(message) : .invalidEntry(message)
        }
        error = ActionLogError(path: path, line: number, reason: reason)
        break
      }
      let expected = entries.count + 1
      guard entry.sequence == expected else {
        error = ActionLogError(
          path: path, line: number, reason: .sequenceGap(expected: expected, found: entry.sequence))
        break
      }
      entries.append(entry)
    }
    self.header = header
    self.entries = entries
    self.error = error
  }

  /// The header on `line` checked against the reader, or `nil` if the line is not a header
  /// (a log from before headers, or an empty file).
  private static func header(
    of line: Data.SubSequence, path: String, program: String, schemaVersion: Int,
    decoder: JSONDecoder
  ) throws(ActionLogError) -> ActionLogHeader? {
    // An object with an `actionLog` key is a header; anything else is left to the entries.
    guard (try? decoder.decode(HeaderProbe.self, from: Data(line)))?.actionLog != nil else {
      return nil
    }
    let fail = { (reason: ActionLogError.Reason) in
      ActionLogError(path: path, line: 1, reason: reason)
    }
    let header: ActionLogHeader
    do {
      header = try decoder.decode(ActionLogHeader.self, from: Data(line))
    } catch {
      throw fail(.invalidEntry("not a valid header: \(summary(of: error))"))
    }
    guard header.format <= ActionLogHeader.currentFormat else {
      throw fail(.newerFormat(header.format))
    }
    guard header.program == program else {
      throw fail(.otherProgram(recorded: header.program, reading: program))
    }
    let actionType = String(reflecting: Action.self)
    guard header.actionType == actionType else {
      throw fail(.otherActionType(recorded: header.actionType, reading: actionType))
    }
    guard header.schemaVersion <= schemaVersion else {
      throw fail(.newerSchema(recorded: header.schemaVersion, supported: schemaVersion))
    }
    return header
  }

  /// Sends every entry's action to `store`, in order.
  ///
  /// The log already holds the actions the original store's effects fed back, so `store` must
  /// not run effects: create it with ``Reducer/ignoringEffects()``. Then, from the same initial
  /// state, it reaches the state the original store had after the last entry (provided the
  /// reducer itself is deterministic: it reads no clock, random number or other dependency
  /// outside its effects).
  ///
  /// It stops where reading stopped (see ``error``); in particular before the first action
  /// recorded with a ``Secret`` redacted, which cannot be rebuilt, and which every later action
  /// may depend on.
  ///
  /// - Parameter store: A fresh store, with the initial state the recorded store had.
  public func replay<State>(into store: Store<State, Action>) {
    for entry in entries { store.send(entry.action) }
  }

  /// A one-line account of a decoding error, without the coding path noise.
  private static func summary(of error: any Error) -> String {
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

/// The one key that tells a header line from an entry.
private struct HeaderProbe: Decodable {
  let actionLog: Int?
}

/// The `redacted` key of an entry whose action holds redacted secrets.
private struct RedactionProbe: Decodable {
  let redacted: [String]
}
