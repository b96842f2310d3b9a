/// Styles text for one output stream: with ANSI codes when that stream uses colour, plain
/// otherwise.
///
/// A ``Terminal`` has one styler per stream (``Terminal/outputStyler`` and
/// ``Terminal/errorStyler``), because standard output and standard error can go to different
/// places: `program 2> errors.txt` at a terminal colours the output but not the file of errors.
/// Renderings take a styler rather than a terminal, so tests can render with ``plain``.
public struct Styler: Sendable, Equatable {
  /// Whether ``styled(_:_:)`` adds ANSI colour codes.
  public let usesColor: Bool

  /// Creates a styler.
  ///
  /// - Parameter usesColor: Whether to add ANSI colour codes.
  public init(usesColor: Bool) {
    self.usesColor = usesColor
  }

  /// A styler that never adds colour codes (tests, files, pipes).
  public static let plain = Styler(usesColor: false)

  /// `text` in `style` when colour is on; `text` unchanged otherwise.
  ///
  /// - Parameters:
  ///   - text: The text to style.
  ///   - style: The style to show it in.
  /// - Returns: The text, wrapped in the style's code and a reset when colour is on.
  public func styled(_ text: some StringProtocol, _ style: TextStyle) -> String {
    usesColor ? "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m" : String(text)
  }
}
