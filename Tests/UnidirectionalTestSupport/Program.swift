import Foundation
import Unidirectional

/// Runs one of the package's executables end to end, as a user piping input into it would.
public enum Program {
  /// What a run printed and how it ended.
  public struct Output: Sendable {
    /// The exit status.
    public var status: Int32
    /// Everything written to standard output.
    public var standardOutput: String
    /// Everything written to standard error.
    public var standardError: String
  }

  /// The executable named `name` beside the test bundle (`swift build` puts every product in the
  /// same directory).
  public static func executable(named name: String) -> URL {
    URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
      .appendingPathComponent(name)
  }

  /// Runs the executable `name` with `input` on standard input (then closed) and returns its
  /// output once it exits.
  public static func run(
    _ name: String, input: Data, arguments: [String] = [], environment: [String: String]? = nil
  ) throws -> Output {
    let process = Process()
    process.executableURL = executable(named: name)
    process.arguments = arguments
    if let environment { process.environment = environment }
    let stdin = Pipe()
    let stdout = Pipe()
    let stderr = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stderr
    try process.run()
    // Read both outputs while writing, so that a program that prints a lot cannot block.
    let out = Locked(Data())
    let err = Locked(Data())
    let group = DispatchGroup()
    for (pipe, sink) in [(stdout, out), (stderr, err)] {
      DispatchQueue.global().async(group: group) {
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        sink.withLock { $0 = data }
      }
    }
    stdin.fileHandleForWriting.write(input)
    try stdin.fileHandleForWriting.close()
    group.wait()
    process.waitUntilExit()
    return Output(
      status: process.terminationStatus,
      standardOutput: String(decoding: out.withLock { $0 }, as: UTF8.self),
      standardError: String(decoding: err.withLock { $0 }, as: UTF8.self))
  }
}
