/// One line of command input, split into its command word and the rest.
///
/// ```swift
/// let line = InputLine("  email   blob@example.com ")
/// line.command   // "email"
/// line.argument  // "blob@example.com"
/// ```
///
/// Surrounding whitespace is ignored; the argument keeps the spaces inside it, so a command
/// can take free text (`add Buy milk`).
public struct InputLine: Sendable, Equatable {
  /// The first word, or an empty string for a blank line.
  public let command: Substring
  /// Everything after the first word, without surrounding whitespace; empty if there is none.
  public let argument: Substring

  /// Splits `text` into a command and its argument.
  ///
  /// - Parameter text: The line, with or without its line ending.
  public init(_ text: some StringProtocol) {
    let line = Self.trimming(text)
    guard let space = line.firstIndex(where: \.isWhitespace) else {
      (command, argument) = (line, "")
      return
    }
    (command, argument) = (line[..<space], Self.trimming(line[space...]))
  }

  /// Whether the line has nothing but whitespace.
  public var isBlank: Bool { command.isEmpty }

  /// The words of the argument, split on whitespace.
  public var arguments: [Substring] {
    argument.split(whereSeparator: \.isWhitespace)
  }

  /// `text` without leading and trailing whitespace.
  ///
  /// - Parameter text: The text to trim.
  /// - Returns: The text between its first and last characters that are not whitespace.
  public static func trimming(_ text: some StringProtocol) -> Substring {
    let text = Substring(text)
    guard let first = text.firstIndex(where: { !$0.isWhitespace }) else { return "" }
    let last = text.lastIndex(where: { !$0.isWhitespace })!
    return text[first...last]
  }

  /// `text` cut to `limit` characters with an ellipsis, to quote user input in a one-line
  /// error message without letting a long paste flood it.
  ///
  /// - Parameters:
  ///   - text: The text to quote.
  ///   - limit: The most characters kept.
  /// - Returns: The text, or its first `limit` characters followed by `…`.
  public static func excerpt(_ text: some StringProtocol, limit: Int = 40) -> String {
    text.count > limit ? String(text.prefix(limit)) + "…" : String(text)
  }
}
