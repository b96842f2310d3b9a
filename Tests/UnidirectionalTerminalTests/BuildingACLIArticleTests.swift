import Foundation
import Testing
import Unidirectional
import UnidirectionalTerminal
import UnidirectionalTesting

#if canImport(Glibc)
  import Glibc
#endif

// The code of the article "Building a CLI" (Unidirectional.docc/BuildingACLI.md), compiled, and
// its loop run on scripts. Every ```swift block of the article appears here line for line (up to
// indentation); `DocumentationSnippetTests` checks it. Change both together.

struct Countdown: Reducer {
  struct State: Equatable, Sendable {
    var secondsLeft = 0
    var isRunning = false
  }

  enum Action: Codable, Equatable, Sendable {
    case startTapped(seconds: Int)
    case stopTapped
    case tick
  }

  enum CancelID: Hashable, Sendable {
    case timer
  }

  @Dependency(\.continuousClock) var clock

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .startTapped(let seconds):
      // A negative count starts nothing: `0..<seconds` would stop the program.
      let seconds = max(seconds, 0)
      state.secondsLeft = seconds
      state.isRunning = seconds > 0
      return .run { send in
        for _ in 0..<seconds {
          try await clock.sleep(for: .seconds(1))
          await send(.tick)
        }
      }
      .cancellable(id: CancelID.timer, cancelInFlight: true)

    case .stopTapped:
      state.secondsLeft = 0
      state.isRunning = false
      return .cancel(id: CancelID.timer)

    case .tick:
      state.secondsLeft -= 1
      state.isRunning = state.secondsLeft > 0
      return .none
    }
  }
}

enum CountdownCLI {
  static let display = [
    DisplayConcern<Countdown.State, Countdown.Action>("seconds left", showsInitialValue: true) {
      store, styler in
      "seconds left: " + styler.styled("\(store.secondsLeft)", .bold)
    }
  ]

  static let help = """
    start [SECONDS]  count down from SECONDS (1 to 3600, 10 by default)
    stop             stop the countdown
    quit             leave (or Ctrl-D)
    """

  static func interpret(
    _ line: String, _ state: Countdown.State
  ) -> REPL<Countdown.State, Countdown.Action>.Step {
    let input = InputLine(line)
    switch input.command {
    case "":
      return .nothing
    case "start":
      guard let seconds = input.argument.isEmpty ? 10 : Int(input.argument),
        (1...3_600).contains(seconds)
      else {
        let argument = InputLine.excerpt(input.argument)
        return .failure("start takes 1 to 3600 seconds, not '\(argument)': try 'start 5'")
      }
      return .send(.startTapped(seconds: seconds))
    case "stop":
      return state.isRunning ? .send(.stopTapped) : .failure("no countdown is running")
    case "help":
      return .help
    case "quit":
      return .quit
    default:
      return .failure("unknown command '\(InputLine.excerpt(input.command))': try 'help'")
    }
  }

  static func repl(
    store: Store<Countdown.State, Countdown.Action>, terminal: Terminal
  ) -> REPL<Countdown.State, Countdown.Action> {
    REPL(
      store: store, terminal: terminal,
      prompt: { state in state.isRunning ? "countdown (running)> " : "countdown> " },
      display: display, help: { _ in help }, interpret: interpret)
  }

  static func main() async -> Int32 {
    let terminal = Terminal()
    let arguments = ProgramArguments.parseOrExit(
      usage: "usage: countdown [--record FILE [--force] | --replay FILE]\n\n\(help)",
      terminal: terminal)
    if let path = arguments.replayPath {
      ActionLogSession.replayAndExit(
        from: path, program: "countdown", initialState: Countdown.State(),
        reducer: Countdown(), concerns: display, terminal: terminal)
    }
    let store = Store(
      initialState: Countdown.State(), reducer: Countdown(),
      interceptors: ActionLogSession.interceptors(
        for: arguments, program: "countdown", terminal: terminal))
    return await repl(store: store, terminal: terminal).run(
      greeting: "Type a command, or 'help'.")
  }
}

#if canImport(Glibc)
  /// The article's program, run on scripts through a terminal made of pipes.
  @Suite struct BuildingACLIArticleTests {
    struct Run {
      var status: Int32
      var output: String
      var errors: String
    }

    /// Runs the article's loop on `script`, with effects that never wait.
    func run(_ script: String) async -> Run {
      let input = TestPipe()
      let output = TestPipe()
      let errors = TestPipe()
      input.write(script)
      input.closeWriting()
      let terminal = Terminal(
        input: input.reading, output: output.writing, error: errors.writing,
        isInteractive: false, outputUsesColor: false, errorUsesColor: false)
      let store = withDependencies {
        $0.continuousClock = ImmediateClock()
      } operation: {
        Store(initialState: Countdown.State(), reducer: Countdown())
      }
      let status = await CountdownCLI.repl(store: store, terminal: terminal).run(
        exitsOnInterrupt: false)
      return Run(status: status, output: output.readToEnd(), errors: errors.readToEnd())
    }

    @Test func aScriptCountsDownAndExitsWithZero() async {
      let run = await run("start 2\nhelp\nquit\nstart 9\n")
      #expect(run.status == 0)
      #expect(
        run.output == """
          seconds left: 0
          seconds left: 2
          seconds left: 1
          seconds left: 0
          \(CountdownCLI.help)

          """)
      #expect(run.errors.isEmpty)
    }

    @Test func refusedLinesSayWhyAndMakeTheStatusOne() async {
      let run = await run("start x\nstart 0\nstop\nlaunch now\nstart 1\n")
      #expect(run.status == 1)
      #expect(
        run.errors == """
          error: start takes 1 to 3600 seconds, not 'x': try 'start 5'
          error: start takes 1 to 3600 seconds, not '0': try 'start 5'
          error: no countdown is running
          error: unknown command 'launch': try 'help'

          """)
      #expect(run.output == "seconds left: 0\nseconds left: 1\nseconds left: 0\n")
    }

    /// `interpret` refuses a count below 1, but an action can reach the reducer another way
    /// (a replayed log): the reducer takes a negative count for none, and does not trap.
    @Test func theReducerTakesANegativeCountForNone() async {
      let store = withDependencies {
        $0.continuousClock = ImmediateClock()
      } operation: {
        Store(initialState: Countdown.State(), reducer: Countdown())
      }
      await store.send(.startTapped(seconds: -2)).finish()
      #expect(store.state == Countdown.State())
    }

    // The article's test of the feature, with the program's display as the test store's
    // observers.
    @Test func startRedrawsTheSecondsLeft() async {
      let store = TestStore(initialState: Countdown.State()) {
        Countdown()
      } withDependencies: {
        $0.continuousClock = ImmediateClock()
      }
      for concern in CountdownCLI.display {
        store.observe(concern.name) { _ = concern.render($0, .plain) }
      }

      await store.send(.startTapped(seconds: 1), fires: ["seconds left"]) {
        $0.secondsLeft = 1
        $0.isRunning = true
      }
      await store.receive(.tick, fires: ["seconds left"]) {
        $0.secondsLeft = 0
        $0.isRunning = false
      }
    }

    @Test func theUsageNamesTheOptions() {
      // `main()` reads the process's own arguments and standard input, so the tests run its
      // loop (above) and check what it passes to the argument parser.
      let parsed = ProgramArguments.parse(["--record=session.jsonl", "--force"])
      #expect(
        (try? parsed.get())
          == ProgramArguments(recordPath: "session.jsonl", overwritesRecord: true))
    }
  }
#endif
