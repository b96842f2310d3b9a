import Foundation

/// An action log read back from a file written by ``ActionLogRecorder``, ready to replay.
///
/// ```swift
/// let log = try ActionLog<Counter.Action>(path: "session.jsonl")
/// let store = Store(initialState: Counter.State()) { Counter().ignoringEffects() }
/// log.replay(into: store)
/// if let error = log.error { print("stopped early: \(error)") }
/// ```
///
/// Reading never fails on a bad line: it keeps every entry up to the first line that is blank,
/// not a valid entry, cut off, or out of sequence, and describes that line in ``error``. A
/// replay then reaches the state right after the last good action.
public struct ActionLog<Action: Decodable & Sendable>: Sendable {
  /// The entries read, in order, up to the first bad line.
  public let entries: [ActionLogEntry<Action>]

  /// The first bad line, if reading stopped before the end of the file.
  public let error: ActionLogError?

  /// Reads the log at `path`.
  ///
  /// - Parameter path: A file written by ``ActionLogRecorder``.
  /// - Throws: ``ActionLogError`` with ``ActionLogError/Reason/fileError(_:)`` only if the file
  ///   cannot be read at all. Bad lines do not throw: see ``error``.
  public init(path: String) throws(ActionLogError) {
    guard let data = FileManager.default.contents(atPath: path) else {
      let reason =
        FileManager.default.fileExists(atPath: path)
        ? "the file cannot be read" : "no such file"
      throw ActionLogError(path: path, line: nil, reason: .fileError(reason))
    }
    self.init(data: data, path: path)
  }

  /// Reads a log from the bytes of a file.
  ///
  /// - Parameters:
  ///   - data: The file's contents: JSON lines.
  ///   - path: The name errors use for the file.
  public init(data: Data, path: String = "action log") {
    var entries: [ActionLogEntry<Action>] = []
    var error: ActionLogError?
    let decoder = JSONDecoder()
    let lines = data.split(separator: 0x0A, omittingEmptySubsequences: false)
    let endsWithNewline = data.last == 0x0A
    for (index, line) in lines.enumerated() {
      let number = index + 1
      let isLast = index == lines.count - 1
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
        let message = Self.summary(of: decodingError)
        let reason: ActionLogError.Reason =
          isLast && !endsWithNewline ? .truncated(message) : .invalidEntry(message)
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
