import Foundation
import Testing
import Unidirectional
import UnidirectionalTerminal

#if canImport(Glibc)
  import Glibc

  /// A counter whose `ping` answers from an effect.
  struct Pinger: Reducer {
    struct State: Equatable, Sendable {
      var count = 0
      var pongs = 0
    }

    enum Action: Equatable, Sendable {
      case add
      case ping
      case pong
    }

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .add:
        state.count += 1
        return .none
      case .ping:
        return .run { send in
          await Task.yield()
          await send(.pong)
        }
      case .pong:
        state.pongs += 1
        return .none
      }
    }
  }

  /// The loop's behaviour: scripts, quitting, help, failures and the exit status.
  @Suite struct REPLTests {
    struct Run {
      var status: Int32
      var output: String
      var errors: String
    }

    static let display = [
      DisplayConcern<Pinger.State, Pinger.Action>("count", showsInitialValue: true) {
        store, styler in
        "count: " + styler.styled("\(store.count)", .bold)
      },
      DisplayConcern("pongs") { store, _ in "pongs: \(store.pongs)" },
    ]

    func run(_ input: String, isInteractive: Bool = false) async -> Run {
      let inputPipe = TestPipe()
      let output = TestPipe()
      let errors = TestPipe()
      inputPipe.write(input)
      inputPipe.closeWriting()
      let terminal = Terminal(
        input: inputPipe.reading, output: output.writing, error: errors.writing,
        isInteractive: isInteractive, outputUsesColor: false, errorUsesColor: false)
      let store = Store(initialState: Pinger.State()) { Pinger() }
      let repl = REPL(
        store: store, terminal: terminal, prompt: { "\($0.count)> " },
        display: Self.display, help: { "help at \($0.count)" },
        interpret: { line, _ in
          let input = InputLine(line)
          switch (input.command, input.argument) {
          case ("", _): return .nothing
          case ("+", ""): return .send(.add)
          case ("ping", ""): return .send(.ping)
          case ("say", let text): return .print(String(text))
          case ("secret", ""):
            // Adds as many as the secret's length; an empty one is refused.
            return .readSecret(prompt: "secret: ") { secret in
              secret.isEmpty ? .failure("empty") : .sendWithoutWaiting(.add)
            }
          case ("help", ""): return .help
          case ("quit", ""): return .quit
          default: return .failure("unknown command '\(InputLine.excerpt(input.command))'")
          }
        })
      let status = await repl.run(greeting: "hello", exitsOnInterrupt: false)
      return Run(status: status, output: output.readToEnd(), errors: errors.readToEnd())
    }

    @Test func aCleanScriptExitsZeroAndWaitsForEachLinesEffects() async {
      let result = await run("ping\n+\n\nping\nsay hi there\nhelp\n")
      #expect(result.status == 0)
      #expect(result.errors == "")
      // No prompt and no greeting from a script; each ping's answer comes before the next line.
      #expect(
        result.output == """
          count: 0
          pongs: 1
          count: 1
          pongs: 2
          hi there
          help at 1

          """)
    }

    @Test func aScriptWithARefusedLineExitsOneAfterRunningTheRest() async {
      let result = await run("+\nbogus\n+\n")
      #expect(result.status == 1)
      #expect(result.errors == "error: unknown command 'bogus'\n")
      #expect(result.output == "count: 0\ncount: 1\ncount: 2\n")
    }

    /// A line with a control character never reaches `interpret` (here it would be an unknown
    /// command, echoed): it is refused, quoted escaped, and the script goes on.
    @Test func aLineWithAControlCharacterIsRefusedBeforeInterpret() async {
      let result = await run("+\n\u{1B}[2J\nsay \u{9B}31m\n+\n")
      #expect(result.status == 1)
      #expect(result.output == "count: 0\ncount: 1\ncount: 2\n")
      #expect(
        result.errors == #"""
          error: the line '\u{1B}[2J' contains a control character (\u{1B}); type plain text
          error: the line 'say \u{9B}31m' contains a control character (\u{9B}); type plain text

          """#)
    }

    /// A secret is the next line, handed to the step's closure; the end of input ends the loop.
    @Test func aSecretIsTheNextLine() async {
      let script = await run("secret\nhunter2\nsecret\n\nsecret\n")
      #expect(script.status == 1)
      #expect(script.output == "count: 0\ncount: 1\n")
      #expect(script.errors == "error: empty\n")
      // At a terminal (here not a real one: nothing to turn off), the secret's prompt shows.
      let typed = await run("secret\nhunter2\n", isInteractive: true)
      #expect(typed.output == "count: 0\nhello\n0> secret: count: 1\n1> \n")
      #expect(!typed.output.contains("hunter2"))
    }

    @Test func quitStopsReading() async {
      let result = await run("+\nquit\n+\n")
      #expect(result.status == 0)
      #expect(result.output == "count: 0\ncount: 1\n")
    }

    @Test func atATerminalPromptsGreetsAndEndsThePromptLineAtTheEndOfInput() async {
      let result = await run("+\nbogus\n", isInteractive: true)
      // A person's mistakes do not make the status non-zero (as in sqlite3).
      #expect(result.status == 0)
      #expect(result.output == "count: 0\nhello\n0> count: 1\n1> 1> \n")
      #expect(result.errors == "error: unknown command 'bogus'\n")
    }
  }

  @Suite struct ProgramArgumentsTests {
    func parse(_ arguments: String...) -> Result<ProgramArguments, ArgumentError> {
      ProgramArguments.parse(arguments)
    }

    @Test func recordAndReplayTakeTheirFileEitherWay() throws {
      #expect(try parse("--record", "a.log").get() == ProgramArguments(recordPath: "a.log"))
      #expect(try parse("--record=a.log").get() == ProgramArguments(recordPath: "a.log"))
      #expect(try parse("--replay", "b.log").get() == ProgramArguments(replayPath: "b.log"))
      #expect(try parse("--replay=b.log").get() == ProgramArguments(replayPath: "b.log"))
      #expect(
        try parse("--force", "--record=a.log").get()
          == ProgramArguments(recordPath: "a.log", overwritesRecord: true))
      #expect(try parse("-h").get().wantsHelp)
      // Help wins over everything but a mistake before it.
      #expect(try parse("--replay", "a", "--record", "b", "--help").get().wantsHelp)
      #expect(throws: ArgumentError("unknown argument '--bogus'")) {
        try parse("--bogus", "--help").get()
      }
    }

    @Test func mistakesGetOneLineEach() {
      let cases: [([String], String)] = [
        (["--record"], "--record needs a file name, e.g. --record session.log"),
        (["--record="], "--record needs a file name, e.g. --record session.log"),
        (["--replay", "--force"], "--replay needs a file name, e.g. --replay session.log"),
        (["--force"], "--force only applies to --record FILE"),
        (["--force", "--replay", "a"], "--force only applies to --record FILE"),
        (["--record", "a", "--replay", "b"], "use either --record or --replay, not both"),
        (["--record", "a", "--record=b"], "--record is given twice"),
        (["--bogus"], "unknown argument '--bogus'"),
        (["--force=yes", "--record", "a"], "--force takes no value"),
      ]
      for (arguments, message) in cases {
        #expect(throws: ArgumentError(message)) { try ProgramArguments.parse(arguments).get() }
      }
    }
  }
#endif
