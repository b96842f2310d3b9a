import CaseStudySupport
import CounterCore
import Testing
import Unidirectional
import UnidirectionalTerminal
import UnidirectionalTesting

/// Every action and effect of the counter, with the observers of the program's output asserted
/// on every step.
@Suite struct CounterTests {
  let clock = TestClock()

  /// A test store whose named observers are the program's own output concerns.
  func makeStore(
    _ state: Counter.State = Counter.State(),
    numberFact: NumberFact = .testValue
  ) -> TestStore<Counter.State, Counter.Action> {
    let store = TestStore(initialState: state) {
      Counter()
    } withDependencies: { [clock] in
      $0.continuousClock = clock
      $0.numberFact = numberFact
    }
    for concern in CounterDisplay.concerns {
      store.observe(concern.name) { _ = concern.render($0, .plain) }
    }
    return store
  }

  @Test func incrementAndDecrement() async {
    let store = makeStore()
    await store.send(.increment, fires: ["count"]) { $0.count = 1 }
    await store.send(.increment, fires: ["count"]) { $0.count = 2 }
    await store.send(.decrement, fires: ["count"]) { $0.count = 1 }
  }

  @Test func saturatesInsteadOfTrapping() async {
    let high = makeStore(Counter.State(count: .max))
    await high.send(.increment)
    let low = makeStore(Counter.State(count: .min))
    await low.send(.decrement)
    await low.skipInFlightEffects()  // Below zero: the delayed increment is pending.
  }

  @Test func belowZeroReturnsTowardZeroAfterASecond() async {
    let store = makeStore()
    await store.send(.decrement, fires: ["count"]) { $0.count = -1 }
    await clock.advance(by: .milliseconds(999))
    await clock.advance(by: .milliseconds(1))
    await store.receive(.decrementDelayFinished, fires: ["count"]) { $0.count = 0 }
    await store.finish()
  }

  @Test func anotherDecrementRestartsTheDelay() async {
    let store = makeStore()
    await store.send(.decrement, fires: ["count"]) { $0.count = -1 }
    await clock.advance(by: .milliseconds(500))
    await store.send(.decrement, fires: ["count"]) { $0.count = -2 }
    await clock.advance(by: .milliseconds(500))  // The first delay would have ended here.
    await clock.advance(by: .milliseconds(500))
    await store.receive(.decrementDelayFinished, fires: ["count"]) { $0.count = -1 }
    await store.finish()
  }

  @Test func anIncrementBackToZeroCancelsTheDelay() async {
    let store = makeStore()
    await store.send(.decrement, fires: ["count"]) { $0.count = -1 }
    await store.send(.increment, fires: ["count"]) { $0.count = 0 }
    // `finish` fails if the delayed effect were still running: it was cancelled.
    await store.finish()
    await clock.advance(by: .seconds(5))
  }

  @Test func anIncrementStillBelowZeroKeepsTheDelay() async {
    let store = makeStore()
    await store.send(.decrement, fires: ["count"]) { $0.count = -1 }
    await store.send(.decrement, fires: ["count"]) { $0.count = -2 }
    await store.send(.increment, fires: ["count"]) { $0.count = -1 }
    await clock.advance(by: .seconds(1))
    await store.receive(.decrementDelayFinished, fires: ["count"]) { $0.count = 0 }
    await store.finish()
  }

  @Test func factForTheCurrentCount() async {
    let store = makeStore(Counter.State(count: 6))
    await store.send(.factButtonTapped, fires: ["fact request"]) {
      $0.isFactRequestInFlight = true
    }
    await store.receive(
      .factResponse("6 is a perfect number: the sum of its divisors."),
      fires: ["fact request", "fact"]
    ) {
      $0.isFactRequestInFlight = false
      $0.fact = "6 is a perfect number: the sum of its divisors."
    }
    // Changing the count clears the fact: its observer runs (and prints nothing).
    await store.send(.increment, fires: ["count", "fact"]) {
      $0.count = 7
      $0.fact = nil
    }
  }

  /// A fact asked for 0 is never shown once `+` made the count 1: changing the count cancels
  /// the request (as TCA's "Effects cancellation" case study does), and the state says so, for
  /// the program to tell the user (the "fact request" concern prints again).
  @Test func changingTheCountCancelsTheFactRequest() async {
    let store = makeStore(numberFact: .liveValue)
    await store.send(.factButtonTapped, fires: ["fact request"]) {
      $0.isFactRequestInFlight = true
    }
    await store.send(.increment, fires: ["count", "fact request"]) {
      $0.count = 1
      $0.isFactRequestInFlight = false
      $0.wasFactRequestCancelled = true
    }
    // Said once: another change of the count has nothing more to cancel.
    await store.send(.increment, fires: ["count"]) { $0.count = 2 }
    // Advancing delivers no fact for 0 (the test store fails on an action not received).
    await clock.advance(by: .seconds(1))
    // Asking again clears it.
    await store.send(.factButtonTapped, fires: ["fact request"]) {
      $0.isFactRequestInFlight = true
      $0.wasFactRequestCancelled = false
    }
    await clock.advance(by: .milliseconds(300))
    await store.receive(.factResponse("2 is a prime number."), fires: ["fact request", "fact"]) {
      $0.isFactRequestInFlight = false
      $0.fact = "2 is a prime number."
    }
    await store.finish()
  }

  @Test func aReturnTowardZeroAndATimerTickCancelTheFactRequestToo() async {
    let store = makeStore(numberFact: .liveValue)
    await store.send(.decrement, fires: ["count"]) { $0.count = -1 }  // Back to zero at 1 s.
    await clock.advance(by: .milliseconds(800))
    await store.send(.factButtonTapped, fires: ["fact request"]) {
      $0.isFactRequestInFlight = true  // Due at 1.1 s.
    }
    await clock.advance(by: .milliseconds(200))
    await store.receive(.decrementDelayFinished, fires: ["count", "fact request"]) {
      $0.count = 0
      $0.isFactRequestInFlight = false
      $0.wasFactRequestCancelled = true
    }
    await clock.advance(by: .seconds(1))  // No fact for -1 arrives.

    await store.send(.toggleTimer, fires: ["timer"]) { $0.isTimerOn = true }  // Ticks at 3 s.
    await clock.advance(by: .milliseconds(800))
    await store.send(.factButtonTapped, fires: ["fact request"]) {
      $0.isFactRequestInFlight = true  // Due at 3.1 s.
      $0.wasFactRequestCancelled = false
    }
    await clock.advance(by: .milliseconds(200))
    await store.receive(.timerTicked, fires: ["count", "fact request"]) {
      $0.count = 1
      $0.isFactRequestInFlight = false
      $0.wasFactRequestCancelled = true
    }
    await store.send(.toggleTimer, fires: ["timer"]) { $0.isTimerOn = false }
    await store.finish()
    await clock.advance(by: .seconds(1))
  }

  @Test func theLiveFactWaitsOnTheDependencyClock() async {
    let store = makeStore(Counter.State(count: 7), numberFact: .liveValue)
    await store.send(.factButtonTapped, fires: ["fact request"]) {
      $0.isFactRequestInFlight = true
    }
    await clock.advance(by: .milliseconds(299))
    #expect(clock.sleeperCount == 1)  // Not yet.
    await clock.advance(by: .milliseconds(1))
    await store.receive(.factResponse("7 is a prime number."), fires: ["fact request", "fact"]) {
      $0.isFactRequestInFlight = false
      $0.fact = "7 is a prime number."
    }
    await store.finish()
  }

  @Test func aFailedFactEndsTheRequest() async {
    struct Offline: Error, CustomStringConvertible {
      var description: String { "offline" }
    }
    let store = makeStore(numberFact: NumberFact { _ in throw Offline() })
    await store.send(.factButtonTapped, fires: ["fact request"]) {
      $0.isFactRequestInFlight = true
    }
    await store.receive(.factFailed("offline"), fires: ["fact request"]) {
      $0.isFactRequestInFlight = false
    }
  }

  @Test func theTimerTicksUntilStopped() async {
    let store = makeStore()
    await store.send(.toggleTimer, fires: ["timer"]) { $0.isTimerOn = true }
    for count in 1...3 {
      await clock.advance(by: .seconds(1))
      await store.receive(.timerTicked, fires: ["count"]) { $0.count = count }
    }
    await store.send(.toggleTimer, fires: ["timer"]) { $0.isTimerOn = false }
    // `finish` proves the timer was cancelled; advancing afterwards delivers nothing.
    await store.finish()
    await clock.advance(by: .seconds(10))
  }
}

/// The README's testing example, kept here so that it compiles and passes.
@Test func readmeExample() async {
  let store = TestStore(initialState: Counter.State()) {
    Counter()
  } withDependencies: {
    $0.numberFact = NumberFact { "\($0) is a good number." }
  }
  store.observe("count label") { store in _ = store.count }
  store.observe("fact label") { store in _ = store.fact }

  await store.send(.increment, fires: ["count label"]) { $0.count = 1 }
  await store.send(.factButtonTapped) { $0.isFactRequestInFlight = true }
  await store.receive(.factResponse("1 is a good number."), fires: ["fact label"]) {
    $0.isFactRequestInFlight = false
    $0.fact = "1 is a good number."
  }
}

@Suite struct NumberFactTests {
  @Test func facts() {
    #expect(NumberFact.offlineFact(about: 0) == "0 is neither positive nor negative.")
    #expect(NumberFact.offlineFact(about: -12) == "-12 is negative; its magnitude has 2 digit(s).")
    #expect(NumberFact.offlineFact(about: 28) == "28 is a perfect number: the sum of its divisors.")
    #expect(NumberFact.offlineFact(about: 97) == "97 is a prime number.")
    #expect(NumberFact.offlineFact(about: 144) == "144 is a square: 12 × 12.")
    #expect(NumberFact.offlineFact(about: 10) == "10 has 2 digit(s) that add up to 1.")
  }

  @Test func extremeValuesAreQuick() {
    #expect(NumberFact.offlineFact(about: .max).hasPrefix("\(Int.max) has 19 digit(s)"))
    #expect(NumberFact.offlineFact(about: .min).hasPrefix("\(Int.min) is negative"))
    // A large prime is not tested for primality (it would take billions of steps).
    #expect(NumberFact.offlineFact(about: 1_000_000_000_039).hasSuffix("add up to 13."))
    #expect(
      NumberFact.offlineFact(about: 3_037_000_499 * 3_037_000_499)
        == "\(3_037_000_499 * 3_037_000_499) is a square: 3037000499 × 3037000499.")
  }
}

@Suite struct CounterCommandTests {
  @Test func parsesCommands() {
    #expect(CounterCommand("+") == .send(.increment))
    #expect(CounterCommand("  -  ") == .send(.decrement))
    #expect(CounterCommand("fact") == .send(.factButtonTapped))
    #expect(CounterCommand("timer") == .send(.toggleTimer))
    #expect(CounterCommand("wait 2.5") == .wait(.milliseconds(2500)))
    #expect(CounterCommand("wait   0") == .wait(.zero))
    #expect(CounterCommand("help") == .help)
    #expect(CounterCommand("quit") == .quit)
    #expect(CounterCommand("exit") == .quit)
    #expect(CounterCommand("") == .nothing)
    #expect(CounterCommand(" \t ") == .nothing)
  }

  @Test func rejectsEverythingElseNamingTheValidCommands() {
    for line in ["++", "add", "QUIT", "1", "+ 1", "fact now", "\u{FFFD}"] {
      guard case .invalid(let message) = CounterCommand(line) else {
        Issue.record("'\(line)' should be invalid")
        continue
      }
      #expect(message.contains(CounterCommand.usage))
      #expect(!message.contains("\n"))
    }
  }

  @Test func waitNeedsABoundedNumber() {
    for line in ["wait", "wait x", "wait -1", "wait 61", "wait nan", "wait inf", "wait 1e400"] {
      guard case .invalid(let message) = CounterCommand(line) else {
        Issue.record("'\(line)' should be invalid")
        continue
      }
      #expect(message.hasPrefix("'wait' needs a number of seconds from 0 to 60"))
    }
  }

  @Test func longLinesGiveShortMessages() {
    let line = String(repeating: "x", count: 100_000)
    guard case .invalid(let message) = CounterCommand(line) else {
      Issue.record("a long line should be invalid")
      return
    }
    #expect(message.count < 200)
  }
}
