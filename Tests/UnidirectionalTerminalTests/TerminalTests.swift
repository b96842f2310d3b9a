import Foundation
import Testing
import UnidirectionalTerminal

#if canImport(Glibc)
  import Glibc

  /// Where colour goes: each stream decides for itself.
  @Suite struct TerminalColourTests {
    @Test func errorColourFollowsStandardErrorNotStandardOutput() throws {
      let terminal = try TestPseudoTerminal()
      let pipe = TestPipe()
      let errorsAtTerminal = Terminal(
        input: pipe.reading, output: pipe.writing, error: terminal.secondary, environment: [:])
      #expect(errorsAtTerminal.errorStyler.usesColor)
      #expect(!errorsAtTerminal.outputStyler.usesColor)
      #expect(!errorsAtTerminal.isInteractive)

      let outputAtTerminal = Terminal(
        input: terminal.secondary, output: terminal.secondary, error: pipe.writing,
        environment: [:])
      #expect(outputAtTerminal.outputStyler.usesColor)
      #expect(!outputAtTerminal.errorStyler.usesColor)
      #expect(outputAtTerminal.isInteractive)
    }

    @Test func noColorTurnsColourOffOnBothStreams() throws {
      let terminal = try TestPseudoTerminal()
      let both = Terminal(
        input: terminal.secondary, output: terminal.secondary, error: terminal.secondary,
        environment: ["NO_COLOR": "1"])
      #expect(!both.outputStyler.usesColor)
      #expect(!both.errorStyler.usesColor)
      // no-color.org: an empty NO_COLOR does not count.
      let empty = Terminal(
        input: terminal.secondary, output: terminal.secondary, error: terminal.secondary,
        environment: ["NO_COLOR": ""])
      #expect(empty.outputStyler.usesColor)
    }

    @Test func errorLinesUseTheErrorStreamsColour() {
      let output = TestPipe()
      let errors = TestPipe()
      let terminal = Terminal(
        output: output.writing, error: errors.writing, isInteractive: false,
        outputUsesColor: false, errorUsesColor: true)
      terminal.printError("no such item")
      terminal.print(terminal.styled("plain", .bold))
      #expect(errors.readToEnd() == "\u{1B}[31merror:\u{1B}[0m no such item\n")
      #expect(output.readToEnd() == "plain\n")
    }

    @Test func aFailedWriteMakesTheExitStatusOneAndIsSaid() throws {
      let full = open("/dev/full", O_WRONLY)
      try #require(full >= 0)
      defer { close(full) }
      let errors = TestPipe()
      let terminal = Terminal(
        output: full, error: errors.writing, isInteractive: false, outputUsesColor: false,
        errorUsesColor: false)
      #expect(terminal.exitStatus(after: 0) == 0)
      terminal.print("lost")
      #expect(terminal.exitStatus(after: 0) == 1)
      // A status that already says failure is kept.
      #expect(terminal.exitStatus(after: 2) == 2)
      errors.closeWriting()
      #expect(
        errors.readToEnd()
          == String(
            repeating: "error: cannot write the output: No space left on device\n", count: 2))
    }

    @Test func stylers() {
      #expect(Styler(usesColor: true).styled("a", .cyan) == "\u{1B}[36ma\u{1B}[0m")
      #expect(Styler.plain.styled("a", .cyan) == "a")
    }
  }

  /// Output from other threads while the main thread waits for input (C1: `fflush(nil)` made
  /// it wait for the next line).
  @Suite struct TerminalConcurrencyTests {
    @Test func outputAppearsWhileAnotherThreadWaitsInReadLine() {
      let input = TestPipe()
      let output = TestPipe()
      let terminal = Terminal(
        input: input.reading, output: output.writing, error: output.writing,
        isInteractive: false, outputUsesColor: false, errorUsesColor: false)
      let lineRead = DispatchSemaphore(value: 0)
      let line = LockedBox<String?>(nil)
      Thread.detachNewThread {
        line.value = terminal.readLine()
        lineRead.signal()
      }
      // The reader waits: nothing was typed. Output goes through at once all the same.
      terminal.print("tick 1")
      terminal.printError("late")
      #expect(output.readAvailable(seconds: 30).hasPrefix("tick 1\n"))
      // wall-clock: checks, without waiting, that it has not happened yet.
      #expect(lineRead.wait(timeout: .now()) == .timedOut)
      input.write("typed\n")
      // wall-clock: a failure bound; a passing run is signalled long before.
      #expect(lineRead.wait(timeout: .now() + 30) == .success)
      #expect(line.value == "typed")
    }

    @Test func outputDoesNotTakeStandardInputsLock() throws {
      let output = TestPipe()
      let terminal = Terminal(
        output: output.writing, error: output.writing, isInteractive: false,
        outputUsesColor: false, errorUsesColor: false)
      // `readLine()` from the standard library holds stdin's lock while it waits for a line;
      // `fflush(nil)` would wait for it. The C library's `stdin`, read through its symbol
      // (Swift 6 refuses the mutable global).
      let symbol = try #require(dlsym(nil, "stdin"))
      let stdinFile = symbol.load(as: UnsafeMutablePointer<FILE>.self)
      flockfile(stdinFile)
      let printed = DispatchSemaphore(value: 0)
      Thread.detachNewThread {
        terminal.print("“A” can no longer be restored.")
        terminal.printError("the list was not saved")
        printed.signal()
      }
      // wall-clock: a failure bound; a passing run is signalled long before.
      let result = printed.wait(timeout: .now() + 30)
      funlockfile(stdinFile)
      #expect(result == .success)
      #expect(
        output.readToEnd() == "“A” can no longer be restored.\nerror: the list was not saved\n")
    }

    @Test func linesFromManyThreadsNeverInterleave() {
      let output = TestPipe()
      let terminal = Terminal(
        output: output.writing, error: output.writing, isInteractive: false,
        outputUsesColor: false, errorUsesColor: false)
      let reader = LockedBox("")
      let done = DispatchSemaphore(value: 0)
      let descriptor = output.reading
      Thread.detachNewThread {
        reader.value = readAll(from: descriptor)
        done.signal()
      }
      DispatchQueue.concurrentPerform(iterations: 8) { thread in
        for index in 0..<50 {
          terminal.print(String(repeating: "\(thread)", count: 100) + " \(index)")
        }
      }
      output.closeWriting()
      // wall-clock: a failure bound; a passing run is signalled long before.
      #expect(done.wait(timeout: .now() + 30) == .success)
      let lines = reader.value.split(separator: "\n")
      #expect(lines.count == 400)
      for line in lines {
        let digits = line.prefix(100)
        #expect(Set(digits).count == 1, "\(line)")
      }
    }
  }

  /// Reading lines with `read(2)`.
  @Suite struct TerminalInputTests {
    @Test func linesAreSplitAndDecoded() {
      let input = TestPipe()
      let terminal = Terminal(
        input: input.reading, isInteractive: false, outputUsesColor: false,
        errorUsesColor: false)
      input.write("one\r\ntwo\n\n")
      input.write([0xFF, 0x41, 0x0A])
      input.write(String(repeating: "y", count: 50_000) + "\nlast")
      input.closeWriting()
      #expect(terminal.readLine() == "one")
      #expect(terminal.readLine() == "two")
      #expect(terminal.readLine() == "")
      #expect(terminal.readLine() == "\u{FFFD}A")
      #expect(terminal.readLine()?.count == 50_000)
      #expect(terminal.readLine() == "last")
      #expect(terminal.readLine() == nil)
      #expect(terminal.readLine() == nil)
    }

    @Test func aPromptIsRedrawnBelowOutputAtATerminal() throws {
      let pty = try TestPseudoTerminal()
      let terminal = Terminal(
        output: pty.secondary, error: pty.secondary, isInteractive: true,
        outputUsesColor: false, errorUsesColor: false)
      terminal.prompt("app> ")
      terminal.print("news")
      var shown = ""
      while !shown.hasSuffix("news\r\napp> ") {
        let more = pty.readAvailable(seconds: 30)
        if more.isEmpty { break }
        shown += more
      }
      #expect(shown == "app> \r\u{1B}[Knews\r\napp> ")
    }

    @Test func noPromptWhenNotInteractive() {
      let output = TestPipe()
      let terminal = Terminal(
        output: output.writing, isInteractive: false, outputUsesColor: false,
        errorUsesColor: false)
      terminal.prompt("app> ")
      terminal.print("news")
      #expect(output.readToEnd() == "news\n")
    }
  }

  /// A value shared with a thread the test starts.
  final class LockedBox<Value>: @unchecked Sendable {
    // Safe: `storage` is read and written only while holding `lock`.
    private var storage: Value
    private let lock = NSLock()

    init(_ value: Value) { storage = value }

    var value: Value {
      get { lock.withLock { storage } }
      set { lock.withLock { storage = newValue } }
    }
  }

  /// Reads until every writer closed the pipe.
  func readAll(from descriptor: Int32) -> String {
    var data = [UInt8]()
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let count = Glibc.read(descriptor, &buffer, buffer.count)
      guard count > 0 else { break }
      data += buffer[..<count]
    }
    return String(decoding: data, as: UTF8.self)
  }
#endif
