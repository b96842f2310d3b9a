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
///
/// ``command`` and ``argument`` are `Substring`s of the line: compare them with string literals
/// as they are, and convert them to keep or parse them:
///
/// ```swift
/// switch line.command {
/// case "add": return .send(.addTapped(title: String(line.argument)))
/// case "start":
///   guard let seconds = Int(line.argument) else { return .failure("start takes a number") }
///   return .send(.startTapped(seconds: seconds))
/// default: return .failure("unknown command '\(InputLine.excerpt(line.command))'")
/// }
/// ```
public struct InputLine: Sendable, Equatable {
  /// The first word, or an empty string for a blank line. A `Substring` of the line:
  /// `String(command)` makes a `String` of it.
  public let command: Substring
  /// Everything after the first word, without surrounding whitespace; empty if there is none.
  /// A `Substring` of the line: `String(argument)` keeps it as text, `Int(argument)` parses a
  /// number.
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
  /// Control characters (see ``isControlCharacter(_:)``) are written escaped, as `\u{1B}`, so
  /// that a quoted escape sequence is shown instead of played back to the terminal.
  ///
  /// - Parameters:
  ///   - text: The text to quote.
  ///   - limit: The most characters kept.
  /// - Returns: The text, or its first `limit` characters followed by `…`, with its control
  ///   characters escaped.
  public static func excerpt(_ text: some StringProtocol, limit: Int = 40) -> String {
    let kept = text.count > limit ? String(text.prefix(limit)) + "…" : String(text)
    guard kept.unicodeScalars.contains(where: isControlCharacter) else { return kept }
    var quoted = ""
    for scalar in kept.unicodeScalars {
      if isControlCharacter(scalar) {
        quoted += escaped(scalar)
      } else {
        quoted.unicodeScalars.append(scalar)
      }
    }
    return quoted
  }

  /// Whether `scalar` is a control character: C0 (U+0000–U+001F, the tab included), DEL
  /// (U+007F) or C1 (U+0080–U+009F, which holds the 8-bit CSI, U+009B).
  ///
  /// A terminal acts on these instead of showing them: an arrow key typed at a prompt arrives as
  /// `ESC [ A`, and a pasted `ESC [ 2 J` clears the screen.
  ///
  /// - Parameter scalar: The scalar to classify.
  /// - Returns: `true` for the 65 control characters of Unicode (general category `Cc`).
  public static func isControlCharacter(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
  }

  /// Why `line` is refused as input, or `nil` if it holds no control character but tabs.
  ///
  /// A line with a control character in it is refused whole: what was typed is not what the
  /// screen shows, so no part of it is acted on. A tab is the one exception: it separates words
  /// as a space does. The message quotes the line and names the first control character, both
  /// escaped:
  ///
  /// ```swift
  /// InputLine.controlCharacterProblem(in: "add \u{1B}[A")
  /// // the line 'add \u{1B}[A' contains a control character (\u{1B}); type plain text
  /// ```
  ///
  /// ``REPL`` refuses such a line before its `interpret` closure sees it; a program that reads
  /// lines in a loop of its own calls this first.
  ///
  /// - Parameter line: The line as read, without its line ending.
  /// - Returns: A one-line message for an `error:` line, or `nil`.
  public static func controlCharacterProblem(in line: some StringProtocol) -> String? {
    guard let bad = line.unicodeScalars.first(where: { isControlCharacter($0) && $0 != "\t" })
    else { return nil }
    return "the line '\(excerpt(line))' contains a control character (\(escaped(bad))); "
      + "type plain text"
  }

  /// `scalar` as Swift writes it in a string literal, with at least two hex digits: `\u{1B}`.
  private static func escaped(_ scalar: Unicode.Scalar) -> String {
    let digits = String(scalar.value, radix: 16, uppercase: true)
    return "\\u{" + (digits.count < 2 ? "0" : "") + digits + "}"
  }
}
