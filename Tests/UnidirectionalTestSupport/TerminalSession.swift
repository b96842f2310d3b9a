import Foundation

#if canImport(Glibc)
  import Glibc

  /// One of the package's executables running under a pseudo-terminal, driven as a person
  /// would: type text, read what the terminal shows, with every wait bounded in time.
  public final class TerminalSession {
    public let process = Process()
    private let primary: Int32
    /// The program's side, kept open here too: once every copy of it is closed, Linux may
    /// report the end of the terminal before the last bytes written to it can be read.
    private let secondary: FileHandle
    /// Everything the program showed so far (with the terminal's echo of typed text).
    public private(set) var shown = ""

    /// Starts `name` with the pseudo-terminal as standard input and output, and standard error
    /// on the terminal too unless `standardError` is given.
    public init(
      _ name: String, arguments: [String] = [], environment: [String: String],
      standardError: FileHandle? = nil
    ) throws {
      var primary: Int32 = 0
      var secondary: Int32 = 0
      guard openpty(&primary, &secondary, nil, nil, nil) == 0 else {
        throw POSIXError(.init(rawValue: errno) ?? .EIO)
      }
      self.primary = primary
      let terminal = FileHandle(fileDescriptor: secondary, closeOnDealloc: true)
      self.secondary = terminal
      process.executableURL = Program.executable(named: name)
      process.arguments = arguments
      process.environment = environment
      process.standardInput = terminal
      process.standardOutput = terminal
      process.standardError = standardError ?? terminal
      try process.run()
    }

    deinit {
      if process.isRunning { process.terminate() }
      try? secondary.close()
      close(primary)
    }

    /// Whether the terminal shows what is typed (its `ECHO` setting).
    public var echoes: Bool {
      var settings = termios()
      guard tcgetattr(primary, &settings) == 0 else { return false }
      return settings.c_lflag & tcflag_t(ECHO) != 0
    }

    /// Types `text` (a Ctrl-D is "\u{04}").
    public func type(_ text: String) {
      let bytes = Array(text.utf8)
      _ = bytes.withUnsafeBytes { write(primary, $0.baseAddress, $0.count) }
    }

    /// Reads what the program shows until `condition` holds for all of it, the program closes
    /// the terminal, or `seconds` pass.
    ///
    /// - Returns: Whether `condition` held.
    @discardableResult
    public func read(seconds: Double = 30, until condition: (String) -> Bool) -> Bool {
      let deadline = Date().addingTimeInterval(seconds)
      var buffer = [UInt8](repeating: 0, count: 4096)
      while !condition(shown), Date() < deadline {
        var descriptor = pollfd(fd: primary, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, 100) > 0 else { continue }
        let count = Glibc.read(primary, &buffer, buffer.count)
        guard count > 0 else { break }
        shown += String(decoding: buffer[..<count], as: UTF8.self)
      }
      return condition(shown)
    }

    /// Reads until `text` appears.
    @discardableResult
    public func read(until text: String, seconds: Double = 30) -> Bool {
      read(seconds: seconds) { $0.contains(text) }
    }

    /// Waits for the program to exit, reading what it shows meanwhile.
    ///
    /// - Returns: Its exit status, or `nil` if it still ran after `seconds` (it is then killed).
    public func exitStatus(seconds: Double = 30) -> Int32? {
      let deadline = Date().addingTimeInterval(seconds)
      while process.isRunning, Date() < deadline {
        read(seconds: 0.2) { _ in false }
      }
      guard !process.isRunning else {
        process.terminate()
        return nil
      }
      process.waitUntilExit()
      read(seconds: 1) { _ in false }
      return process.terminationStatus
    }
  }
#endif
