/// A style for a piece of terminal text: an ANSI select-graphic-rendition code.
///
/// Apply one with ``Styler/styled(_:_:)`` (or ``Terminal/styled(_:_:)`` for standard output),
/// which leaves the text plain when its stream does not use colour.
public enum TextStyle: String, Sendable, CaseIterable {
  /// Bold or bright text.
  case bold = "1"
  /// Faint text, for hints and progress.
  case dim = "2"
  /// Red, for errors.
  case red = "31"
  /// Green.
  case green = "32"
  /// Yellow.
  case yellow = "33"
  /// Blue.
  case blue = "34"
  /// Magenta.
  case magenta = "35"
  /// Cyan.
  case cyan = "36"
}
