import Testing
import Unidirectional
import UnidirectionalTestSupport
import UnidirectionalTesting

// The code of the article "Getting started" (Unidirectional.docc/GettingStarted.md), compiled
// and run. Every ```swift block of the article appears here line for line (up to indentation);
// `DocumentationSnippetTests` checks it. Change both together.

/// The article's names, kept apart from other tests' features.
enum GettingStartedArticle {
  struct Countdown: Reducer {
    struct State: Equatable, Sendable {
      var secondsLeft = 0
      var isRunning = false
    }

    enum Action: Equatable, Sendable {
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
}

extension GettingStartedArticle {
  @Suite struct Tests {
    /// The article's `main.swift`, run on scripted input with an immediate clock; `readLine`
    /// and `print` stand for standard input and output.
    @Test func theProgramPrintsEachSecondAndWaitsForTheCountdown() async {
      var input = ["start 2"]
      func readLine() -> String? { input.isEmpty ? nil : input.removeFirst() }
      let output = Log<String>()
      @Sendable func print(_ line: String) { output.append(line) }

      await withDependencies {
        $0.continuousClock = ImmediateClock()
      } operation: {
        let store = Store(initialState: Countdown.State()) { Countdown() }
        let display = store.observe(\.secondsLeft) { secondsLeft in
          print("seconds left: \(secondsLeft)")
        }

        var countdown: StoreTask?
        while let line = readLine() {
          let words = line.split(separator: " ")
          switch words.first {
          case "start":
            let seconds = words.count > 1 ? Int(words[1]) : nil
            countdown = store.send(.startTapped(seconds: seconds ?? 10))
          case "stop":
            store.send(.stopTapped)
          default:
            print("commands: start [SECONDS], stop")
          }
        }
        await countdown?.finish()
        withExtendedLifetime(display) {}
      }
      #expect(
        output.values == [
          "seconds left: 0", "seconds left: 2", "seconds left: 1", "seconds left: 0",
        ])
    }

    /// What a curious user types first: a negative count, and one too large for an `Int`.
    /// Neither stops the program (a negative count once trapped on `0..<seconds`).
    @Test(arguments: ["start -2", "start 99999999999999999999", "start -9223372036854775808"])
    func aNegativeOrHugeCountDoesNotStopTheProgram(line: String) async {
      let clock = TestClock()
      let store = TestStore(initialState: Countdown.State()) {
        Countdown()
      } withDependencies: {
        $0.continuousClock = clock
      }
      store.exhaustivity = .off
      let words = line.split(separator: " ")
      let seconds = words.count > 1 ? Int(words[1]) : nil
      await store.send(.startTapped(seconds: seconds ?? 10))
      if let seconds, seconds <= 0 {
        // Nothing to count down: the effect ends at once.
        #expect(store.state == Countdown.State())
      } else {
        #expect(store.state.secondsLeft == 10)  // Not a number: the default.
      }
      await store.send(.stopTapped)
      await store.finish()
    }

    @Test func anUnknownCommandPrintsTheCommands() async {
      var input = ["help", "stop"]
      func readLine() -> String? { input.isEmpty ? nil : input.removeFirst() }
      let output = Log<String>()
      @Sendable func print(_ line: String) { output.append(line) }
      let store = Store(initialState: Countdown.State()) { Countdown() }
      let display = store.observe(\.secondsLeft) { secondsLeft in
        print("seconds left: \(secondsLeft)")
      }
      while let line = readLine() {
        switch line.split(separator: " ").first {
        case "stop": store.send(.stopTapped)
        default: print("commands: start [SECONDS], stop")
        }
      }
      withExtendedLifetime(display) {}
      #expect(output.values == ["seconds left: 0", "commands: start [SECONDS], stop"])
    }

    @Test func countingDown() async {
      let clock = TestClock()
      let store = TestStore(initialState: Countdown.State()) {
        Countdown()
      } withDependencies: {
        $0.continuousClock = clock
      }
      store.observe("display") { store in _ = store.secondsLeft }

      await store.send(.startTapped(seconds: 2), fires: ["display"]) {
        $0.secondsLeft = 2
        $0.isRunning = true
      }
      await clock.advance(by: .seconds(1))
      await store.receive(.tick, fires: ["display"]) { $0.secondsLeft = 1 }
      await clock.advance(by: .seconds(1))
      await store.receive(.tick, fires: ["display"]) {
        $0.secondsLeft = 0
        $0.isRunning = false
      }
      await store.finish()
    }

    @Test func stopping() async {
      let clock = TestClock()
      let store = TestStore(initialState: Countdown.State()) {
        Countdown()
      } withDependencies: {
        $0.continuousClock = clock
      }

      await store.send(.startTapped(seconds: 10)) {
        $0.secondsLeft = 10
        $0.isRunning = true
      }
      await clock.advance(by: .seconds(1))
      await store.receive(.tick) { $0.secondsLeft = 9 }
      await store.send(.stopTapped) {
        $0.secondsLeft = 0
        $0.isRunning = false
      }
      await store.finish()
    }

    @Test func aSecondStartReplacesTheFirstCountdown() async {
      let clock = TestClock()
      let store = TestStore(initialState: Countdown.State()) {
        Countdown()
      } withDependencies: {
        $0.continuousClock = clock
      }

      await store.send(.startTapped(seconds: 5)) {
        $0.secondsLeft = 5
        $0.isRunning = true
      }
      await store.send(.startTapped(seconds: 1)) { $0.secondsLeft = 1 }
      await clock.advance(by: .seconds(1))
      // One tick only: the first countdown was cancelled in flight.
      await store.receive(.tick) {
        $0.secondsLeft = 0
        $0.isRunning = false
      }
      await clock.advance(by: .seconds(10))
      await store.finish()
    }
  }
}
