import Foundation
import Testing
import UnidirectionalTerminal
import UnidirectionalTestSupport

#if canImport(Glibc)
  import Glibc
#endif

// The `todos` program's terminal: output from other threads while the main thread waits for
// input, and prompts at a terminal.

/// The program's terminal writes output from any thread while the main thread waits for input.
@Suite struct TodosTerminalTests {
  #if canImport(Glibc)
    @Test func outputDoesNotWaitForTheLockThatReadLineHolds() throws {
      var descriptors: [Int32] = [0, 0]
      #expect(pipe(&descriptors) == 0)
      defer {
        close(descriptors[0])
        close(descriptors[1])
      }
      let terminal = Terminal(
        output: descriptors[1], error: descriptors[1], isInteractive: false,
        outputUsesColor: false, errorUsesColor: false)
      // `readLine()` holds standard input's lock while it waits for a line; `fflush(nil)` would
      // wait for it.
      // The C library's `stdin` (read through its symbol: Swift 6 refuses the mutable global).
      let symbol = try #require(dlsym(nil, "stdin"))
      let input = symbol.load(as: UnsafeMutablePointer<FILE>.self)
      flockfile(input)
      let printed = DispatchSemaphore(value: 0)
      Thread.detachNewThread {
        terminal.print("“A” can no longer be restored.")
        terminal.printError("the list was not saved")
        printed.signal()
      }
      // wall-clock: a failure bound; a passing run is signalled long before.
      let result = printed.wait(timeout: .now() + 10)
      funlockfile(input)
      #expect(result == .success)
      var buffer = [UInt8](repeating: 0, count: 200)
      let count = read(descriptors[0], &buffer, buffer.count)
      #expect(
        String(decoding: buffer[..<max(0, count)], as: UTF8.self)
          == "“A” can no longer be restored.\nerror: the list was not saved\n")
    }
  #endif

  #if canImport(Glibc)
    /// The program at a terminal, blocked in `readLine()` after a delete: the undo's expiry is
    /// printed five seconds later without any more input.
    @Test func theUndoExpiryIsPrintedWhileTheProgramWaitsForInput() throws {
      let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("todos-terminal-\(UUID().uuidString)")
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      defer { try? FileManager.default.removeItem(at: directory) }
      var primary: Int32 = 0
      var secondary: Int32 = 0
      #expect(openpty(&primary, &secondary, nil, nil, nil) == 0)
      defer { close(primary) }
      let terminal = FileHandle(fileDescriptor: secondary, closeOnDealloc: true)
      let process = Process()
      process.executableURL = Program.executable(named: "todos")
      process.environment = [
        "TERM": "xterm", "NO_COLOR": "1",
        "TODOS_FILE": directory.appendingPathComponent("t.json").path,
      ]
      process.standardInput = terminal
      process.standardOutput = terminal
      process.standardError = terminal
      try process.run()
      try terminal.close()

      func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(primary, $0.baseAddress, $0.count) }
      }
      var output = ""
      /// Reads what the program writes until `text` appears or `seconds` pass.
      func read(until text: String, seconds: Double) {
        let deadline = Date().addingTimeInterval(seconds)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !output.contains(text), Date() < deadline {
          var descriptor = pollfd(fd: primary, events: Int16(POLLIN), revents: 0)
          guard poll(&descriptor, 1, 100) > 0 else { continue }
          let count = Glibc.read(primary, &buffer, buffer.count)
          guard count > 0 else { return }
          output += String(decoding: buffer[..<count], as: UTF8.self)
        }
      }

      send("add A\n")
      read(until: "1. [ ] A", seconds: 10)
      send("delete 1\n")
      read(until: "Type 'undo' within 5 seconds", seconds: 10)
      // No more input: the program waits in readLine() while the undo window runs out.
      read(until: "“A” can no longer be restored.", seconds: 15)
      #expect(output.contains("“A” can no longer be restored.\r\ntodos> "), "\(output)")
      send("quit\n")
      process.waitUntilExit()
      #expect(process.terminationStatus == 0)
    }
  #endif

  @Test func promptsAtATerminal() throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("todos-terminal-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let output = try Program.runInTerminal(
      "todos", input: "add A\nquit\n",
      environment: [
        "TERM": "xterm", "NO_COLOR": "1",
        "TODOS_FILE": directory.appendingPathComponent("t.json").path,
      ])
    #expect(output.contains("todos> "))
    #expect(output.contains("1. [ ] A"))
  }
}
