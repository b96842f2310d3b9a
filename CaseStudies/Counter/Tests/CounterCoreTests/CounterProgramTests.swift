import Foundation
import Testing

/// Runs the built `counter` executable end to end, as a user piping commands would.
@Suite struct CounterProgramTests {
  /// The `counter` executable beside the test bundle (`swift build` puts every product in the
  /// same directory).
  static var executable: URL {
    URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
      .appendingPathComponent("counter")
  }

  struct Output {
    var status: Int32
    var standardOutput: String
    var standardError: String
  }

  static func run(input: Data, arguments: [String] = []) throws -> Output {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    let stdin = Pipe()
    let stdout = Pipe()
    let stderr = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stderr
    try process.run()
    stdin.fileHandleForWriting.write(input)
    try stdin.fileHandleForWriting.close()
    let out = stdout.fileHandleForReading.readDataToEndOfFile()
    let err = stderr.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Output(
      status: process.terminationStatus,
      standardOutput: String(decoding: out, as: UTF8.self),
      standardError: String(decoding: err, as: UTF8.self)
    )
  }

  @Test func executableIsBuilt() {
    #expect(
      FileManager.default.isExecutableFile(atPath: Self.executable.path),
      "build the package first: \(Self.executable.path) is missing")
  }

  @Test func pipedSession() throws {
    let output = try Self.run(input: Data("+\n+\n\n-\nquit\n+\n".utf8))
    #expect(output.status == 0)
    #expect(output.standardOutput == "count: 0\ncount: 1\ncount: 2\ncount: 1\n")
    #expect(output.standardError.isEmpty)
  }

  @Test func badLinesGetOneErrorEachAndTheProgramGoesOn() throws {
    var input = Data("oops\n+\n".utf8)
    input.append(contentsOf: [0xFF, 0xFE, 0x0A])  // Not UTF-8.
    input.append(Data(String(repeating: "y", count: 50_000).utf8))
    input.append(Data("\n+\n".utf8))
    let output = try Self.run(input: input)
    #expect(output.status == 0)
    #expect(output.standardOutput == "count: 0\ncount: 1\ncount: 2\n")
    let errors = output.standardError.split(separator: "\n")
    #expect(errors.count == 3)
    #expect(errors.allSatisfy { $0.hasPrefix("error: unknown command") && $0.contains("quit") })
  }

  @Test func endOfInputExitsZero() throws {
    let output = try Self.run(input: Data())
    #expect(output.status == 0)
    #expect(output.standardOutput == "count: 0\n")
  }

  @Test func help() throws {
    let output = try Self.run(input: Data(), arguments: ["--help"])
    #expect(output.status == 0)
    #expect(output.standardOutput.hasPrefix("usage: counter"))
  }
}
