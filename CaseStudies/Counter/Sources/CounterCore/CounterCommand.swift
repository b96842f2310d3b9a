/// One line of user input to the counter program, parsed.
public enum CounterCommand: Equatable, Sendable {
  /// Send this action to the store.
  case send(Counter.Action)
  /// Stop the program.
  case quit
  /// Nothing to do (an empty or all-blank line).
  case nothing
  /// The line is not a command; `message` says what was wrong and what is allowed.
  case invalid(message: String)

  /// The commands the program understands, for help and error messages.
  public static let usage = "+ (increment), - (decrement), quit"

  /// Parses one line. Surrounding whitespace is ignored; anything else is an error.
  ///
  /// - Parameter line: The line, without its newline.
  public init(_ line: String) {
    let command = line.trimmingWhitespace()
    switch command {
    case "+": self = .send(.increment)
    case "-": self = .send(.decrement)
    case "quit": self = .quit
    case "": self = .nothing
    default:
      self = .invalid(
        message: "unknown command '\(command.truncatedForDisplay())'; valid commands: \(Self.usage)"
      )
    }
  }
}

extension String {
  func trimmingWhitespace() -> Substring {
    let isBlank: (Character) -> Bool = { $0.isWhitespace }
    guard let first = firstIndex(where: { !isBlank($0) }) else { return "" }
    let last = lastIndex(where: { !isBlank($0) })!
    return self[first...last]
  }
}

extension Substring {
  /// Long input is cut to keep error messages to one readable line.
  func truncatedForDisplay(limit: Int = 40) -> String {
    count > limit ? String(prefix(limit)) + "…" : String(self)
  }
}
