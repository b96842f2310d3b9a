import Foundation

/// The command-line arguments of a case study, which take none but `--help`.
public enum ProgramArguments {
  /// Prints `usage` and exits with status 0 for `--help` or `-h`; prints an error and exits
  /// with status 2 for any other argument; returns when there are none.
  public static func handle(usage: @autoclosure () -> String) {
    let arguments = CommandLine.arguments.dropFirst()
    if arguments.contains(where: { $0 == "--help" || $0 == "-h" }) {
      print(usage())
      exit(0)
    }
    if let unknown = arguments.first {
      FileHandle.standardError.write(
        Data("error: unknown argument '\(unknown)'; try --help\n".utf8))
      exit(2)
    }
  }
}
