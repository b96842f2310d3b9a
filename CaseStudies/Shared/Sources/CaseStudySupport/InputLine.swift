/// Helpers for parsing a line of command input.
extension StringProtocol {
  /// The text without leading and trailing whitespace.
  public var trimmed: Substring {
    let text = self[...]
    guard let first = text.firstIndex(where: { !$0.isWhitespace }) else { return "" }
    let last = text.lastIndex(where: { !$0.isWhitespace })!
    return Substring(text[first...last])
  }

  /// The first word and the rest of the line (trimmed), e.g. `("email", "a@b.c")`.
  public var commandAndArgument: (command: Substring, argument: Substring) {
    let line = trimmed
    guard let space = line.firstIndex(where: \.isWhitespace) else { return (line, "") }
    return (line[..<space], line[space...].trimmed)
  }

  /// The text cut to `limit` characters with an ellipsis, to keep error lines short.
  public func truncatedForDisplay(limit: Int = 40) -> String {
    count > limit ? String(prefix(limit)) + "…" : String(self)
  }
}
