import Foundation

/// The command-line options of a program that records or replays its action log: `--record
/// FILE`, `--replay FILE`, `--force` and `--help`.
///
/// Both `--record FILE` and `--record=FILE` are accepted (likewise `--replay`). Combine with
/// ``ActionLogSession`` to record the store's actions or replay a log:
///
/// ```swift
/// let arguments = ProgramArguments.parseOrExit(usage: "usage: counter [--record FILE]")
/// ```
public struct ProgramArguments: Sendable, Equatable {
  /// Where to record every action the store reduces, from `--record FILE`.
  public var recordPath: String?
  /// A log to replay instead of reading commands, from `--replay FILE`.
  public var replayPath: String?
  /// Whether `--record` may replace an existing file, from `--force`.
  public var overwritesRecord = false
  /// Whether `--help` or `-h` was given.
  public var wantsHelp = false

  /// Creates options; by default none is set.
  ///
  /// - Parameters:
  ///   - recordPath: The file to record to.
  ///   - replayPath: The file to replay.
  ///   - overwritesRecord: Whether the record file may be replaced.
  ///   - wantsHelp: Whether help was asked for.
  public init(
    recordPath: String? = nil, replayPath: String? = nil, overwritesRecord: Bool = false,
    wantsHelp: Bool = false
  ) {
    self.recordPath = recordPath
    self.replayPath = replayPath
    self.overwritesRecord = overwritesRecord
    self.wantsHelp = wantsHelp
  }

  /// The options this type parses, for a program's usage text.
  public static let optionsHelp = """
    Options:
      --record FILE   write every action the program's store reduces to FILE, as JSON lines
                      after a header naming the program (created with mode 0600; secrets are
                      written redacted); refuses to replace an existing FILE
      --force         with --record, replace FILE if it exists
      --replay FILE   replay the actions in FILE (without running their effects), show the
                      resulting output, and exit; a bad line stops the replay with an error
      --help, -h      show this help
    """

  /// Parses `arguments` (without the program's name).
  ///
  /// - Parameter arguments: The arguments, such as `["--record=session.log"]`.
  /// - Returns: The options, or a one-line message naming the argument that is wrong.
  public static func parse(_ arguments: [String]) -> Result<ProgramArguments, ArgumentError> {
    var parsed = ProgramArguments()
    var remaining = arguments[...]
    while let argument = remaining.popFirst() {
      let (option, attached) = split(argument)
      switch option {
      case "--help", "-h":
        guard attached == nil else { return .failure(ArgumentError("\(option) takes no value")) }
        parsed.wantsHelp = true
      case "--force":
        guard attached == nil else { return .failure(ArgumentError("--force takes no value")) }
        parsed.overwritesRecord = true
      case "--record", "--replay":
        let value = attached ?? remaining.popFirst()
        guard let path = value, !path.isEmpty, attached != nil || !path.hasPrefix("-") else {
          return .failure(ArgumentError("\(option) needs a file name, e.g. \(option) session.log"))
        }
        let isRecord = option == "--record"
        guard (isRecord ? parsed.recordPath : parsed.replayPath) == nil else {
          return .failure(ArgumentError("\(option) is given twice"))
        }
        if isRecord { parsed.recordPath = path } else { parsed.replayPath = path }
      default:
        return .failure(ArgumentError("unknown argument '\(argument)'"))
      }
    }
    if parsed.wantsHelp { return .success(parsed) }
    if parsed.recordPath != nil && parsed.replayPath != nil {
      return .failure(ArgumentError("use either --record or --replay, not both"))
    }
    if parsed.overwritesRecord && parsed.recordPath == nil {
      return .failure(ArgumentError("--force only applies to --record FILE"))
    }
    return .success(parsed)
  }

  /// Parses the process's arguments. Prints `usage` on standard output and exits with status 0
  /// for `--help` or `-h`; prints a one-line error on standard error and exits with status 2
  /// for anything it does not understand.
  ///
  /// - Parameters:
  ///   - usage: The program's usage text.
  ///   - terminal: Where to print.
  /// - Returns: The options.
  public static func parseOrExit(
    usage: @autoclosure () -> String, terminal: Terminal = Terminal()
  ) -> ProgramArguments {
    switch parse(Array(CommandLine.arguments.dropFirst())) {
    case .success(let parsed):
      if parsed.wantsHelp {
        terminal.print(usage())
        exit(terminal.exitStatus(after: 0))
      }
      return parsed
    case .failure(let error):
      terminal.printError("\(error.message); try --help")
      exit(2)
    }
  }

  /// Splits `--option=value` into the option and its value; other arguments have no value.
  private static func split(_ argument: String) -> (option: Substring, value: String?) {
    guard argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") else {
      return (argument[...], nil)
    }
    return (argument[..<equals], String(argument[argument.index(after: equals)...]))
  }
}
