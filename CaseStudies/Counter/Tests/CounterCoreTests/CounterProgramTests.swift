import CounterCore
import Foundation
import Testing
import Unidirectional
import UnidirectionalTestSupport

/// Runs the built `counter` executable end to end, as a user piping commands would.
@Suite struct CounterProgramTests {
  static func run(_ input: String, arguments: [String] = []) throws -> Program.Output {
    try Program.run(
      "counter", input: Data(input.utf8), arguments: arguments,
      environment: CounterEnvironment.isolated)
  }

  @Test func executableIsBuilt() {
    let path = Program.executable(named: "counter").path
    #expect(FileManager.default.isExecutableFile(atPath: path), "build the package first: \(path)")
  }

  /// Like `echo hi > /dev/full`: a program whose output is lost says so and fails.
  @Test func outputThatCannotBeWrittenFailsTheProgram() throws {
    for arguments in [["--help"], []] {
      let process = Process()
      process.executableURL = Program.executable(named: "counter")
      process.arguments = arguments
      let input = Pipe()
      let errors = Pipe()
      process.standardInput = input
      process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: "/dev/full"))
      process.standardError = errors
      try process.run()
      input.fileHandleForWriting.write(Data("+\n".utf8))
      try input.fileHandleForWriting.close()
      let said = errors.fileHandleForReading.readDataToEndOfFile()
      process.waitUntilExit()
      #expect(process.terminationStatus == 1, "counter \(arguments)")
      #expect(
        String(decoding: said, as: UTF8.self)
          == "error: cannot write the output: No space left on device\n")
    }
  }

  @Test func pipedSession() throws {
    let output = try Self.run("+\n+\n\n-\nquit\n+\n")
    #expect(output.status == 0)
    #expect(output.standardOutput == "count: 0\ncount: 1\ncount: 2\ncount: 1\n")
    #expect(output.standardError.isEmpty)
  }

  @Test func effectsInAScript() throws {
    // From a pipe each command's effects finish before the next line: the fact arrives, the
    // count returns to zero a second after going below it, and the timer ticks while waiting.
    let output = try Self.run("+\nfact\n-\n-\ntimer\nwait 1.5\ntimer\n")
    #expect(output.status == 0)
    #expect(
      output.standardOutput == """
        count: 0
        count: 1
        computing a fact…
        fact: 1 is a square: 1 × 1.
        count: 0
        count: -1
        count: 0
        timer: on
        count: 1
        timer: off

        """)
    #expect(output.standardError.isEmpty)
  }

  /// `fact`, then `+` before the fact came: the change of the count cancels the request, and
  /// the program says so instead of leaving "computing a fact…" unanswered. (Replayed from a
  /// log: a script waits for each line's effects, so the fact would come before the `+`.)
  @Test func aFactCancelledByAChangeOfTheCountIsSaid() throws {
    let path = temporaryFilePath("counter-cancelled-fact")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let recorder = try ActionLogRecorder<Counter.Action>(path: path, program: "counter")
    let store = Store(
      initialState: Counter.State(), reducer: Counter().ignoringEffects(),
      interceptors: [recorder.interceptor()])
    store.send(.factButtonTapped)
    store.send(.increment)
    store.send(.increment)
    store.send(.factButtonTapped)
    let replayed = try Program.run(
      "counter", input: Data(), arguments: ["--replay", path],
      environment: CounterEnvironment.isolated)
    #expect(replayed.status == 0)
    #expect(
      replayed.standardOutput == """
        count: 0
        computing a fact…
        count: 1
        fact request cancelled: the count changed; type 'fact' for one about the new count
        count: 2
        computing a fact…

        """)
  }

  @Test func badLinesGetOneErrorEachAndTheProgramGoesOn() throws {
    var input = Data("oops\n+\n".utf8)
    input.append(contentsOf: [0xFF, 0xFE, 0x0A])  // Not UTF-8.
    input.append(Data(String(repeating: "y", count: 50_000).utf8))
    input.append(Data("\nwait forever\n+\n".utf8))
    let output = try Program.run("counter", input: input, environment: CounterEnvironment.isolated)
    // Like a sqlite3 script: every good line ran, and the status says some did not.
    #expect(output.status == 1)
    #expect(output.standardOutput == "count: 0\ncount: 1\ncount: 2\n")
    let errors = output.standardError.split(separator: "\n")
    #expect(errors.count == 4)
    #expect(errors.prefix(3).allSatisfy { $0.hasPrefix("error: unknown command") })
    #expect(errors.last?.hasPrefix("error: 'wait' needs a number of seconds") == true)
  }

  /// An arrow key (`ESC [ A`), a pasted escape sequence, an 8-bit CSI (U+009B) or DEL: each
  /// line is refused whole and quoted escaped, so nothing is played back to the terminal.
  @Test func linesWithControlCharactersAreRefusedQuotedEscaped() throws {
    let output = try Self.run("+\n\u{1B}[A\n+\u{1B}[2J\n\u{9B}2J\n\u{7F}\n+\n")
    #expect(output.status == 1)
    #expect(output.standardOutput == "count: 0\ncount: 1\ncount: 2\n")
    #expect(
      output.standardError == #"""
        error: the line '\u{1B}[A' contains a control character (\u{1B}); type plain text
        error: the line '+\u{1B}[2J' contains a control character (\u{1B}); type plain text
        error: the line '\u{9B}2J' contains a control character (\u{9B}); type plain text
        error: the line '\u{7F}' contains a control character (\u{7F}); type plain text

        """#)
  }

  @Test func helpListsTheCommands() throws {
    let output = try Self.run("help\n")
    #expect(output.standardOutput.contains("timer         start or stop a timer"))
  }

  @Test func endOfInputExitsZero() throws {
    let output = try Self.run("")
    #expect(output.status == 0)
    #expect(output.standardOutput == "count: 0\n")
  }

  @Test func usage() throws {
    let output = try Self.run("", arguments: ["--help"])
    #expect(output.status == 0)
    #expect(output.standardOutput.hasPrefix("usage: counter"))
    let bad = try Self.run("", arguments: ["--bogus"])
    #expect(bad.status == 2)
    #expect(bad.standardError == "error: unknown argument '--bogus'; try --help\n")
  }
}

/// The counter at a terminal: a prompt, and colour unless `NO_COLOR` is set.
@Suite struct CounterTerminalTests {
  @Test func promptsAndColoursAtATerminal() throws {
    let output = try Program.runInTerminal(
      "counter", input: "+\nquit\n", environment: CounterEnvironment.isolated(["TERM": "xterm"]))
    #expect(output.contains("counter> "))
    #expect(output.contains("count: \u{1B}[1m1\u{1B}[0m"))
  }

  @Test func noColourWhenNoColorIsSet() throws {
    let output = try Program.runInTerminal(
      "counter", input: "+\nquit\n",
      environment: CounterEnvironment.isolated(["TERM": "xterm", "NO_COLOR": "1"]))
    #expect(output.contains("counter> "))
    #expect(output.contains("count: 1"))
    #expect(!output.contains("\u{1B}[1m"))
  }
}

#if canImport(Glibc)
  /// The counter at a real (pseudo-)terminal, waiting for input as a person leaves it.
  @Suite struct CounterAtATerminalTests {
    static let environment = CounterEnvironment.isolated(["TERM": "xterm", "NO_COLOR": "1"])

    /// C1: the timer's ticks appear while the program waits for the next line (they used to
    /// appear one per typed line: output waited for the lock of standard input).
    @Test func timerTicksArriveWhileTheProgramWaitsForInput() throws {
      let session = try TerminalSession("counter", environment: Self.environment)
      #expect(session.read(until: "counter> "))
      session.type("timer\n")
      #expect(session.read(until: "timer: on"))
      // Nothing more is typed: three ticks must still arrive (a second apart; the limit is
      // generous for a busy machine).
      let ticked = session.read(seconds: 60) { $0.contains("count: 3") }
      #expect(ticked, "ticks did not arrive while waiting for input:\n\(session.shown)")
      // Each tick is printed above the prompt, which is drawn again below it.
      #expect(session.shown.contains("\r\u{1B}[Kcount: 1\r\ncounter> "))
      session.type("quit\n")
      #expect(session.exitStatus() == 0)
    }

    /// Ctrl-D at the prompt ends the prompt's line, then exits with status 0.
    @Test func endOfInputEndsThePromptLineAndExitsZero() throws {
      let session = try TerminalSession("counter", environment: Self.environment)
      #expect(session.read(until: "counter> "))
      session.type("+\n")
      #expect(session.read(until: "count: 1"))
      #expect(session.read { $0.hasSuffix("counter> ") })
      session.type("\u{04}")
      #expect(session.exitStatus() == 0)
      #expect(session.shown.hasSuffix("count: 1\r\ncounter> \r\n"), "\(session.shown)")
    }

    /// Ctrl-D after typing a command (twice: the first hands over the typed text, the second
    /// ends input) runs it on a line of its own, not glued to the typed text.
    @Test func endOfInputAfterTypedTextRunsItOnItsOwnLine() throws {
      let session = try TerminalSession("counter", environment: Self.environment)
      #expect(session.read(until: "counter> "))
      session.type("+\u{04}")
      session.type("\u{04}")
      #expect(session.exitStatus() == 0)
      #expect(session.shown.contains("counter> +\r\ncount: 1\r\n"), "\(session.shown)")
    }

    /// Ctrl-C (SIGINT) while waiting for input: the program ends by the signal (status 130 to a
    /// shell, and a script running it stops), the prompt's line ended so the shell's prompt
    /// starts on its own line.
    @Test func interruptEndsTheProgramBySIGINT() throws {
      let session = try TerminalSession("counter", environment: Self.environment)
      #expect(session.read(until: "counter> "))
      session.type("timer\n")
      #expect(session.read(until: "timer: on"))
      #expect(session.read { $0.hasSuffix("counter> ") })
      session.process.interrupt()
      // It dies by the signal (a shell reports 130, and a script running it stops too).
      #expect(session.exitStatus() == SIGINT)
      #expect(session.process.terminationReason == .uncaughtSignal)
      // The prompt's line is ended. (Not necessarily last: under ThreadSanitizer `_exit` is
      // slow enough for one more tick to be printed.)
      #expect(session.shown.contains("counter> \r\n"), "\(session.shown)")
    }

    /// Colour follows each stream: errors to a terminal are red even when output is a pipe,
    /// and output to a pipe has no colour codes.
    @Test func errorColourFollowsStandardError() throws {
      var primary: Int32 = 0
      var secondary: Int32 = 0
      #expect(openpty(&primary, &secondary, nil, nil, nil) == 0)
      defer { close(primary) }
      let errorTerminal = FileHandle(fileDescriptor: secondary, closeOnDealloc: true)
      let process = Process()
      process.executableURL = Program.executable(named: "counter")
      process.environment = CounterEnvironment.isolated(["TERM": "xterm"])
      let input = Pipe()
      let output = Pipe()
      process.standardInput = input
      process.standardOutput = output
      process.standardError = errorTerminal
      try process.run()
      // Kept open until read: once every copy is closed, Linux may drop what was written.
      defer { try? errorTerminal.close() }
      input.fileHandleForWriting.write(Data("oops\n+\n".utf8))
      try input.fileHandleForWriting.close()
      let printed = output.fileHandleForReading.readDataToEndOfFile()
      process.waitUntilExit()
      var buffer = [UInt8](repeating: 0, count: 4096)
      var descriptor = pollfd(fd: primary, events: Int16(POLLIN), revents: 0)
      #expect(poll(&descriptor, 1, 30_000) > 0)
      let count = read(primary, &buffer, buffer.count)
      let errors = String(decoding: buffer[..<max(0, count)], as: UTF8.self)
      #expect(errors.hasPrefix("\u{1B}[31merror:\u{1B}[0m unknown command 'oops'"), "\(errors)")
      #expect(String(decoding: printed, as: UTF8.self) == "count: 0\ncount: 1\n")
      #expect(process.terminationStatus == 1)
    }
  }
#endif
