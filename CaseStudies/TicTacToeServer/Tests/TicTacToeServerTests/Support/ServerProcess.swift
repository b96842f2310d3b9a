import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The real `tictactoe-server` executable, started by a test.
final class ServerProcess {
  let process = Process()
  let port: UInt16
  private let stderrPipe = Pipe()

  /// Where SwiftPM put the executables: beside the test bundle.
  static var executable: URL {
    let bundle = URL(
      fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(
        atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
    return bundle.deletingLastPathComponent().appendingPathComponent("tictactoe-server")
  }

  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  /// Starts the server on a free port and waits for its "listening on" line.
  init(_ arguments: [String] = []) throws {
    guard FileManager.default.isExecutableFile(atPath: Self.executable.path) else {
      throw Failure(description: "no \(Self.executable.path): build the package first")
    }
    process.executableURL = Self.executable
    process.arguments = ["--port", "0"] + arguments
    let stdout = Pipe()
    process.standardOutput = stdout
    process.standardError = stderrPipe
    try process.run()
    var text = ""
    while !text.contains("\n") {
      let data = stdout.fileHandleForReading.availableData
      if data.isEmpty { break }
      text += String(decoding: data, as: UTF8.self)
    }
    guard let line = text.split(separator: "\n").first, line.hasPrefix("listening on 127.0.0.1:"),
      let port = UInt16(line.dropFirst("listening on 127.0.0.1:".count))
    else {
      process.terminate()
      throw Failure(description: "unexpected first line: \(text)")
    }
    self.port = port
  }

  deinit {
    if process.isRunning {
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
  }

  /// Sends `signal` and waits for the exit; returns the exit status and everything on stderr.
  func stop(_ signal: Int32 = SIGTERM) -> (status: Int32, log: String) {
    kill(process.processIdentifier, signal)
    let log = stderrPipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: log, as: UTF8.self))
  }

  /// Runs the executable with `arguments` to its end; returns its status and stderr.
  static func run(_ arguments: [String]) throws -> (status: Int32, log: String) {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    let stderr = Pipe()
    process.standardError = stderr
    process.standardOutput = Pipe()
    try process.run()
    let log = stderr.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: log, as: UTF8.self))
  }
}
