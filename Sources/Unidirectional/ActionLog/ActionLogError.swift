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
    }
  }
}
