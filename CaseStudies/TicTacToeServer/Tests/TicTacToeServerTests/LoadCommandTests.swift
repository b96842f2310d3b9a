import Foundation
import Testing
import UnidirectionalTestSupport

/// The load test's executable: its argument checks and what it says when its server is missing.
@Suite struct LoadCommandTests {
  static func run(_ arguments: [String]) throws -> Program.Output {
    try Program.run("tictactoe-load", input: Data(), arguments: arguments)
  }

  /// Each broken rule is named alone, with the value given, before anything starts.
  @Test func aBadArgumentNamesOnlyTheBrokenRule() throws {
    let cases: [([String], String)] = [
      (
        ["--connections", "3"],
        "--connections: 3 is not an even number of at least 2 (each game seats two connections)"
      ),
      (
        ["--connections", "0"],
        "--connections: 0 is not an even number of at least 2 (each game seats two connections)"
      ),
      (["--connections", "many"], "--connections: not a number: many"),
      (["--duration", "0"], "--duration: 0.0 is not a positive number of seconds"),
      (["--port", "99999"], "--port: 99999 is out of range: a port is 1 to 65535"),
      (["--port", "0"], "--port: 0 is out of range: a port is 1 to 65535"),
      (["--seed", "x"], "--seed: not a number: x"),
    ]
    for (arguments, message) in cases {
      let output = try Self.run(arguments)
      #expect(output.status == 64, "\(arguments)")
      #expect(
        output.standardError.hasPrefix("tictactoe-load: \(message)\nusage: tictactoe-load"),
        "\(arguments): \(output.standardError)")
      #expect(output.standardOutput.isEmpty)
    }
  }

  /// Run from a directory without `tictactoe-server`: one line saying what is missing, where it
  /// was looked for and how to build it, and status 69, before any connection is made.
  @Test func aMissingServerIsSaidPlainly() throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("tictactoe-load-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let copy = directory.appendingPathComponent("tictactoe-load")
    try FileManager.default.copyItem(at: Program.executable(named: "tictactoe-load"), to: copy)
    var process = Process()
    var output = Pipe()
    var errors = Pipe()
    // A process another test forks while the copy is being written inherits its descriptor
    // until it execs: running the copy meanwhile fails with ETXTBSY ("text file busy"), and
    // succeeds once that child has moved on.
    for attempt in 1...100 {
      process = Process()
      process.executableURL = copy
      process.arguments = ["--connections", "2", "--duration", "1"]
      output = Pipe()
      errors = Pipe()
      process.standardOutput = output
      process.standardError = errors
      do {
        try process.run()
        break
      } catch let error as NSError
        where attempt < 100
        && (error.userInfo[NSUnderlyingErrorKey] as? NSError)?.code == Int(ETXTBSY)
      {
        usleep(10_000)  // The pace of the retries, not a condition of the test.
      }
    }
    let said = String(
      decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    let printed = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    #expect(process.terminationStatus == 69)
    #expect(printed.isEmpty)
    let server = copy.resolvingSymlinksInPath().deletingLastPathComponent()
      .appendingPathComponent("tictactoe-server").path
    #expect(
      said
        == "tictactoe-load: no tictactoe-server beside this program: looked for \(server). It "
        + "starts that server for the echo baseline (and for the games unless --port is given). "
        + "Build it into the same directory, e.g. 'swift build -c release --product "
        + "tictactoe-server', then run tictactoe-load from there, e.g. "
        + "'.build/release/tictactoe-load'\n")
    #expect(!said.contains("NSCocoaErrorDomain"))
  }
}
