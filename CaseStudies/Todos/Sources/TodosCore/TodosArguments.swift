/// The to-do program's command line: `--file PATH` and `--help`.
public struct TodosArguments: Equatable, Sendable {
  /// The file given with `--file`, if any.
  public var file: String?
  /// Whether `--help` or `-h` was given.
  public var wantsHelp = false

  /// Parses `arguments` (without the program's name).
  ///
  /// - Returns: The options, or a one-line message naming the argument that is wrong.
  public static func parse(_ arguments: [String]) -> Result<TodosArguments, TodosArgumentError> {
    var parsed = TodosArguments()
    var remaining = arguments[...]
    while let argument = remaining.popFirst() {
      switch argument {
      case "--help", "-h":
        parsed.wantsHelp = true
      case "--file":
        guard let path = remaining.popFirst(), !path.isEmpty, !path.hasPrefix("--") else {
          return .failure(
            TodosArgumentError(message: "--file needs a path, e.g. --file todos.json"))
        }
        guard parsed.file == nil else {
          return .failure(TodosArgumentError(message: "--file is given twice"))
        }
        parsed.file = path
      default:
        return .failure(TodosArgumentError(message: "unknown argument '\(argument)'"))
      }
    }
    return .success(parsed)
  }
}

/// A command line the program cannot run with.
public struct TodosArgumentError: Error, Equatable, Sendable {
  /// What is wrong, in one line.
  public let message: String
}
