import Foundation

/// The command-line arguments of a case study: `--help`, and `--record FILE` or
/// `--replay FILE` for its action log.
public struct ProgramArguments: Sendable, Equatable {
  /// Where to record every action the store reduces, from `--record FILE`.
  public var recordPath: String?
  /// A log to replay instead of reading commands, from `--replay FILE`.
  public var replayPath: String?

  /// The options this text documents, for a program's usage.
  public static let optionsHelp = """
    Options:
      --record FILE   write every action the program's store reduces to FILE, as JSON lines
      --replay FILE   replay the actions in FILE (without running their effects), show the
                      resulting output, and exit; a bad line stops the replay with an error
      --help, -h      show this help
    """

  /// Parses `arguments`, or describes what is wrong with them.
  ///
  /// - Returns: The options, or a one-line error message.
  public static func parse(_ arguments: [String]) -> Result<ProgramArguments, ArgumentError> {
    var parsed = ProgramArguments()
    var remaining = arguments[...]
    while let argument = remaining.popFirst() {
      switch argument {
      case "--record", "--replay":
        guard let path = remaining.popFirst(), !path.isEmpty, !path.hasPrefix("--") else {
          return .failure(ArgumentError(message: "\(argument) needs a file name"))
        }
        if argument == "--record" { parsed.recordPath = path } else { parsed.replayPath = path }
      default:
        return .failure(ArgumentError(message: "unknown argument '\(argument)'"))
      }
    }
    if parsed.recordPath != nil && parsed.replayPath != nil {
      return .failure(ArgumentError(message: "use either --record or --replay, not both"))
    }
    return .success(parsed)
  }

  /// Parses the process's arguments. Prints `usage` and exits with status 0 for `--help` or
  /// `-h`; prints an error and exits with status 2 for anything it does not understand.
  public static func parseOrExit(usage: @autoclosure () -> String) -> ProgramArguments {
    let arguments = Array(CommandLine.arguments.dropFirst())
    if arguments.contains(where: { $0 == "--help" || $0 == "-h" }) {
      print(usage())
      exit(0)
    }
    switch parse(arguments) {
    case .success(let parsed):
      return parsed
    case .failure(let error):
      FileHandle.standardError.write(Data("error: \(error.message); try --help\n".utf8))
      exit(2)
    }
  }
}

/// A command line the program cannot run with.
public struct ArgumentError: Error, Equatable, Sendable {
  /// What is wrong, in one line.
  public let message: String
}
