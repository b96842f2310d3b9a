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
  ///
  /// A server still running after `seconds` is killed (its status is then `SIGKILL`'s), so that
  /// a server that missed the signal fails the test instead of hanging it.
  func stop(_ signal: Int32 = SIGTERM, seconds: Double = 20) -> (status: Int32, log: String) {
    // Read meanwhile: a server blocked on a full stderr pipe would never exit.
    let log = LogReader(stderrPipe.fileHandleForReading)
    kill(process.processIdentifier, signal)
    let deadline = Date().addingTimeInterval(seconds)
    while process.isRunning, Date() < deadline { usleep(10_000) }
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
    return (process.terminationStatus, log.text())
  }

  /// Reads a pipe to its end on a thread of its own.
  private final class LogReader: @unchecked Sendable {
    // Safe: `data` is written once, by the reading thread, before `done` is signalled, and read
    // only after waiting for it.
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
      Thread.detachNewThread { [self] in
        data = handle.readDataToEndOfFile()
        done.signal()
      }
    }

    /// What was read, once the pipe ended (or after 10 seconds more, if it does not).
    func text() -> String {
      // wall-clock: a failure bound; a passing run is signalled long before.
      guard done.wait(timeout: .now() + 10) == .success else { return "(the log did not end)" }
      return String(decoding: data, as: UTF8.self)
    }
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
