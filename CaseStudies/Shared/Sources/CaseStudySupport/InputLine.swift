import UnidirectionalTerminal

/// The case studies' shorthands for parsing a line of command input (``InputLine`` of the
/// terminal product, as methods on strings).
extension StringProtocol {
  /// The text without leading and trailing whitespace.
  public var trimmed: Substring { InputLine.trimming(self) }

  /// The first word and the rest of the line (trimmed), e.g. `("email", "a@b.c")`.
  public var commandAndArgument: (command: Substring, argument: Substring) {
    let line = InputLine(self)
    return (line.command, line.argument)
  }

  /// The text cut to `limit` characters with an ellipsis, to keep error lines short.
  public func truncatedForDisplay(limit: Int = 40) -> String {
    InputLine.excerpt(self, limit: limit)
  }
}
