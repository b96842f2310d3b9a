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

#if canImport(Glibc)
  import Glibc

  extension Program {
    /// Runs the executable `name` with a pseudo-terminal as its standard input and output, as a
    /// person at a terminal would, and returns everything it wrote there (with the terminal's
    /// echo of `input`).
    public static func runInTerminal(
      _ name: String, input: String, environment: [String: String]
    ) throws -> String {
      var primary: Int32 = 0
      var secondary: Int32 = 0
      guard openpty(&primary, &secondary, nil, nil, nil) == 0 else {
        throw POSIXError(.init(rawValue: errno) ?? .EIO)
      }
      let terminal = FileHandle(fileDescriptor: secondary, closeOnDealloc: true)
      let process = Process()
      process.executableURL = executable(named: name)
      process.environment = environment
      process.standardInput = terminal
      process.standardOutput = terminal
      process.standardError = terminal
      try process.run()
      try terminal.close()  // The child has its own copy.
      let output = Locked(Data())
      let reader = DispatchGroup()
      let primaryDescriptor = primary
      DispatchQueue.global().async(group: reader) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
          let count = read(primaryDescriptor, &buffer, buffer.count)
          // EIO once the child has exited and closed the terminal.
          guard count > 0 else { break }
          output.withLock { $0.append(contentsOf: buffer[..<count]) }
        }
      }
      let bytes = Array(input.utf8)
      _ = bytes.withUnsafeBytes { write(primary, $0.baseAddress, $0.count) }
      process.waitUntilExit()
      reader.wait()
      close(primary)
      return String(decoding: output.withLock { $0 }, as: UTF8.self)
    }
  }
#endif
