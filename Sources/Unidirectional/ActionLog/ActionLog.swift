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
/// It reads both layouts (see ``ActionLogHeader``): the recorder's plain JSON lines, and a
/// ``DurableActionLog``'s checksummed ones, whose checksums it verifies.
///
/// Reading never fails on a bad entry: it keeps every entry up to the first line that is blank,
/// not a valid entry (or whose checksum does not verify), cut off, out of sequence, or recorded
/// with a ``Secret`` redacted, and
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
  /// - Throws: ``ActionLogError`` if the file cannot be read or is empty
  ///   (``ActionLogError/Reason/fileError(_:)``) or its header does not match
  ///   (``ActionLogError/Reason/otherProgram(recorded:reading:)``,
  ///   ``ActionLogError/Reason/otherActionType(recorded:reading:)``,
  ///   ``ActionLogError/Reason/newerSchema(recorded:supported:)``,
  ///   ``ActionLogError/Reason/unsupportedFormat(found:supported:)``, or
  ///   ``ActionLogError/Reason/invalidEntry(_:)`` for a malformed header). Bad entries do not
  ///   throw: see ``error``.
  public init(
    path: String, program: String = ActionLogHeader.currentProgram, schemaVersion: Int = 1
  ) throws(ActionLogError) {
    // Read to the end, not by the size `stat` gives: a device such as /dev/null has none.
    guard let file = FileHandle(forReadingAtPath: path) else {
      let reason =
        FileManager.default.fileExists(atPath: path)
        ? "the file cannot be read" : "no such file"
      throw ActionLogError(path: path, line: nil, reason: .fileError(reason))
    }
    defer { try? file.close() }
    guard let data = try? file.readToEnd() ?? Data() else {
      throw ActionLogError(path: path, line: nil, reason: .fileError("the file cannot be read"))
    }
    // A recorder writes the header line as it creates the file: an empty file was never a log
    // (most likely the wrong file, or /dev/null).
    guard !data.isEmpty else {
      throw ActionLogError(
        path: path, line: nil,
        reason: .fileError("the file is empty; a recorded log starts with a header line"))
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
    let header = try ActionLogHeader.read(
      from: lines.first ?? Data(), path: path, program: program,
      actionType: String(reflecting: Action.self), schemaVersion: schemaVersion)
    if header != nil { lines = lines.dropFirst() }
    let format = header?.format ?? ActionLogHeader.recorderFormat
    var entries: [ActionLogEntry<Action>] = []
    var error: ActionLogError?
    reading: for (index, line) in zip(lines.indices, lines) {
      let number = index + 1
      let isLast = index == lines.endIndex - 1
      if line.isEmpty {
        // The empty piece after the final newline is the end of the file, not a line; so are
        // blank lines after the last entry (an editor may add one).
        if isLast || lines[index...].allSatisfy(\.isEmpty) { break }
        error = ActionLogError(path: path, line: number, reason: .emptyLine)
        break
      }
      let entry: ActionLogEntry<Action>
      let isTorn = isLast && !endsWithNewline
      switch Self.decodeEntry(line, format: format, isTorn: isTorn, decoder: decoder) {
      case .entry(let decoded): entry = decoded
      case .bad(.invalidEntry(let message)) where header == nil && entries.isEmpty:
        // Without a header, a first entry that is not one of these actions most likely comes
        // from another program's log: say so, not just what the decoder found.
        let reason = ActionLogError.Reason.invalidEntry(
          "the log has no header line naming its program (logs recorded before headers "
            + "existed have none), and its first entry is not an action of "
            + "\(String(reflecting: Action.self)): it was probably recorded by another "
            + "program (\(message))")
        error = ActionLogError(path: path, line: number, reason: reason)
        break reading
      case .bad(let reason):
        error = ActionLogError(path: path, line: number, reason: reason)
        break reading
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
}

extension ActionLog {
  /// The entry on `line` (without its newline) of a log in `format`, or why it is not one:
  /// `.redacted`, `.truncated` for a line that is not whole (`isTorn`), `.invalidEntry` (a
  /// checksum that does not verify included).
  static func decodeEntry(
    _ line: some Collection<UInt8>, format: Int, isTorn: Bool, decoder: JSONDecoder
  ) -> DecodedLine {
    switch ActionLogLine.payload(of: line, format: format) {
    case .json(let json): decodeJSON(json, isTorn: isTorn, decoder: decoder)
    case .bad(let problem): .bad(isTorn ? .truncated(problem) : .invalidEntry(problem))
    }
  }

  /// The entry whose JSON is `json` (its checksum, if any, verified), or why it is not one.
  static func decodeJSON(_ json: Data, isTorn: Bool, decoder: JSONDecoder) -> DecodedLine {
    do {
      return .entry(try decoder.decode(ActionLogEntry<Action>.self, from: json))
    } catch {
      if let redaction = try? decoder.decode(RedactionProbe.self, from: json) {
        return .bad(.redacted(redaction.redacted))
      }
      let message = ActionLogError.summary(of: error)
      return .bad(isTorn ? .truncated(message) : .invalidEntry(message))
    }
  }

  /// A line read: an entry, or why it is not one.
  enum DecodedLine {
    case entry(ActionLogEntry<Action>)
    case bad(ActionLogError.Reason)
  }
}

/// The `redacted` key of an entry whose action holds redacted secrets.
private struct RedactionProbe: Decodable {
  let redacted: [String]
}
