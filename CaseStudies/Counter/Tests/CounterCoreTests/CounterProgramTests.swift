import Foundation
import Testing
import UnidirectionalTestSupport

/// Runs the built `counter` executable end to end, as a user piping commands would.
@Suite struct CounterProgramTests {
  static func run(_ input: String, arguments: [String] = []) throws -> Program.Output {
    try Program.run("counter", input: Data(input.utf8), arguments: arguments)
  }

  @Test func executableIsBuilt() {
    let path = Program.executable(named: "counter").path
    #expect(FileManager.default.isExecutableFile(atPath: path), "build the package first: \(path)")
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

  @Test func badLinesGetOneErrorEachAndTheProgramGoesOn() throws {
    var input = Data("oops\n+\n".utf8)
    input.append(contentsOf: [0xFF, 0xFE, 0x0A])  // Not UTF-8.
    input.append(Data(String(repeating: "y", count: 50_000).utf8))
    input.append(Data("\nwait forever\n+\n".utf8))
    let output = try Program.run("counter", input: input)
    #expect(output.status == 0)
    #expect(output.standardOutput == "count: 0\ncount: 1\ncount: 2\n")
    let errors = output.standardError.split(separator: "\n")
    #expect(errors.count == 4)
    #expect(errors.prefix(3).allSatisfy { $0.hasPrefix("error: unknown command") })
    #expect(errors.last?.hasPrefix("error: 'wait' needs a number of seconds") == true)
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
      "counter", input: "+\nquit\n", environment: ["TERM": "xterm"])
    #expect(output.contains("counter> "))
    #expect(output.contains("count: \u{1B}[1m1\u{1B}[0m"))
  }

  @Test func noColourWhenNoColorIsSet() throws {
    let output = try Program.runInTerminal(
      "counter", input: "+\nquit\n", environment: ["TERM": "xterm", "NO_COLOR": "1"])
    #expect(output.contains("counter> "))
    #expect(output.contains("count: 1"))
    #expect(!output.contains("\u{1B}[1m"))
  }
}
