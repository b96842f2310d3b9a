import Foundation

/// Processes that keep every processor of the machine busy while `body` runs, for tests of code
/// that reacts to a loaded machine.
///
/// Each process spins in bash and stops by itself after three seconds at most, should the test
/// be killed first; they are killed when `body` returns.
public enum SpinningProcesses {
  /// Whether this machine can start them.
  public static var areAvailable: Bool {
    FileManager.default.fileExists(atPath: "/bin/bash")
  }

  /// Runs `body` with one spinning process per processor.
  public static func run<Result>(_ body: () async throws -> Result) async throws -> Result {
    var spinners: [Process] = []
    defer {
      // SIGKILL: a test process may pass on SIGTERM ignored, and the loop would go on.
      for spinner in spinners {
        kill(spinner.processIdentifier, SIGKILL)
        spinner.waitUntilExit()
      }
    }
    for _ in 0..<ProcessInfo.processInfo.activeProcessorCount {
      let spinner = Process()
      spinner.executableURL = URL(fileURLWithPath: "/bin/bash")
      spinner.arguments = ["-c", "while (( SECONDS < 3 )); do :; done"]
      try spinner.run()
      spinners.append(spinner)
    }
    return try await body()
  }
}
