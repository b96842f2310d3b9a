// Over 300 lines on purpose: the code of the article "Testing", in the article's order, so the
// snippet check can find each block.

import Testing
import Unidirectional
import UnidirectionalTesting

// The code of the article "Testing" (UnidirectionalTesting.docc/Testing.md), compiled and run.
// Every ```swift block of the article appears here verbatim (up to indentation);
// `DocumentationSnippetTests` checks it. Change both together.

// MARK: - The feature

struct Thermometer: Sendable {
  var read: @Sendable () async throws -> Int
}

extension Thermometer: DependencyKey {
  static let liveValue = Thermometer { try await readSensor() }
  static let testValue = Thermometer { 21 }
}

extension DependencyValues {
  var thermometer: Thermometer {
    get { self[Thermometer.self] }
    set { self[Thermometer.self] = newValue }
  }
}

/// Stands in for the hardware that the article's live value reads.
private func readSensor() async throws -> Int { 19 }

struct Thermostat: Reducer {
  struct State: Equatable, Sendable {
    var dial = 20
    var target = 20
    var reading: Int?
    var isReading = false
    var isHeating = false
    var minutesHeating = 0
    var maximumMinutes = 60
  }

  enum Action: Equatable, Sendable {
    case appeared
    case refreshTapped
    case readingReceived(Int)
    case dialTurned(Int)
    case targetApplied(Int)
    case heaterStarted
    case minuteElapsed
    case heaterStopped
  }

  enum CancelID: Hashable, Sendable {
    case dial, refresh, heater
  }

  @Dependency(\.continuousClock) var clock
  @Dependency(\.thermometer) var thermometer

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .appeared:
      state.isReading = true
      return read()

    case .refreshTapped:
      state.isReading = true
      return read()
        .throttle(id: CancelID.refresh, for: .seconds(10), clock: clock, latest: false)

    case .readingReceived(let reading):
      state.reading = reading
      state.isReading = false
      return state.isHeating && reading >= state.target ? .send(.heaterStopped) : .none

    case .dialTurned(let value):
      state.dial = value
      return .send(.targetApplied(value))
        .debounce(id: CancelID.dial, for: .seconds(1), clock: clock)

    case .targetApplied(let value):
      state.target = value
      return .none

    case .heaterStarted:
      state.isHeating = true
      state.minutesHeating = 0
      return .run { send in
        while true {
          try await clock.sleep(for: .seconds(60))
          await send(.minuteElapsed)
        }
      }
      .cancellable(id: CancelID.heater)

    case .minuteElapsed:
      state.minutesHeating += 1
      return state.minutesHeating == state.maximumMinutes ? .send(.heaterStopped) : .none

    case .heaterStopped:
      state.isHeating = false
      return .cancel(id: CancelID.heater)
    }
  }

  private func read() -> Effect<Action> {
    .run { send in
      await send(.readingReceived(try await thermometer.read()))
    }
  }
}

extension CasePath where Root == Thermostat.Action {
  static var readingReceived: CasePath<Thermostat.Action, Int> {
    .case(Thermostat.Action.readingReceived)
  }
}

// MARK: - The tests

@Suite struct TestingArticleTests {
  // MARK: The test store

  @Test func reading() async {
    let store = TestStore(initialState: Thermostat.State()) { Thermostat() }

    await store.send(.appeared) { $0.isReading = true }
    await store.receive(.readingReceived(21)) {
      $0.reading = 21
      $0.isReading = false
    }
    await store.finish()
  }

  @Test func aWrongStateChangeFailsAtTheStepWithADiff() async {
    var line = 0
    let failures = await recordedFailures {
      let store = TestStore(initialState: Thermostat.State()) { Thermostat() }
      line = #line + 1
      await store.send(.appeared) { $0.reading = 21 }
      await store.skipReceivedActions()
    }
    #expect(failures.map(\.line) == [line])
    #expect(
      failures.first?.message == """
        State change does not match expectation:

            Thermostat.State(
              dial: 20,
              target: 20,
          −   reading: 21,
          −   isReading: false,
          +   reading: nil,
          +   isReading: true,
              isHeating: false,
              minutesHeating: 0,
              maximumMinutes: 60
            )

        (Expected: −, Actual: +)
        """)
  }

  @Test func anUnreceivedActionFailsAtFinish() async {
    var line = 0
    let failures = await recordedFailures {
      let store = TestStore(initialState: Thermostat.State()) { Thermostat() }
      await store.send(.appeared) { $0.isReading = true }
      line = #line + 1
      await store.finish()
    }
    #expect(failures.map(\.line) == [line])
    #expect(
      failures.first?.message == """
        The store received 1 unexpected action(s):

            Thermostat.Action.readingReceived(21)
        """)
  }

  @Test func anEffectStillRunningFailsAtTheStepThatStartedIt() async {
    var line = 0
    let failures = await recordedFailures {
      let store = TestStore(initialState: Thermostat.State()) {
        Thermostat()
      } withDependencies: {
        $0.continuousClock = TestClock()
      }
      line = #line + 1
      await store.send(.heaterStarted) { $0.isHeating = true }
      // wall-clock: a failure bound; a passing run goes on as soon as what it waits for happens.
      await store.finish(timeout: .milliseconds(100))
    }
    #expect(failures.map(\.line) == [line])
    #expect(failures.first?.headline.hasPrefix("An effect is still running") == true)
  }

  @Test func theHeaterStopsWhenWarmEnough() async {
    let store = TestStore(initialState: Thermostat.State(isHeating: true)) { Thermostat() }

    await store.send(.appeared) { $0.isReading = true }
    await store.receive(.readingReceived(21)) {
      $0.reading = 21
      $0.isReading = false
    }
    await store.receive(.heaterStopped) { $0.isHeating = false }
    await store.finish()
  }

  @Test func theHeaterStopsAtItsLimit() async {
    let store = TestStore(initialState: Thermostat.State(maximumMinutes: 2)) {
      Thermostat()
    } withDependencies: {
      $0.continuousClock = ImmediateClock()
    }

    await store.send(.heaterStarted) { $0.isHeating = true }
    await store.receive(.minuteElapsed) { $0.minutesHeating = 1 }
    await store.receive(.minuteElapsed) { $0.minutesHeating = 2 }
    await store.receive(.heaterStopped) { $0.isHeating = false }
    await store.finish()
  }

  // MARK: Observers

  @Test func theHeaterLightAndTheDisplay() async {
    let store = TestStore(initialState: Thermostat.State()) {
      Thermostat()
    } withDependencies: {
      $0.continuousClock = TestClock()
    }
    store.observe("heater light") { store in _ = store.isHeating }
    store.observe("display") { store in _ = store.reading }

    await store.send(.heaterStarted, fires: ["heater light"]) { $0.isHeating = true }
    await store.send(.appeared) { $0.isReading = true }
    await store.receive(.readingReceived(21), fires: ["display"]) {
      $0.reading = 21
      $0.isReading = false
    }
    await store.receive(.heaterStopped, fires: ["heater light"]) { $0.isHeating = false }
    await store.finish()
  }

  // MARK: Time

  @Test func theHeaterCountsMinutes() async {
    let clock = TestClock()
    let store = TestStore(initialState: Thermostat.State()) {
      Thermostat()
    } withDependencies: {
      $0.continuousClock = clock
    }

    await store.send(.heaterStarted) { $0.isHeating = true }
    await clock.advance(by: .seconds(180))
    await store.receive(.minuteElapsed) { $0.minutesHeating = 1 }
    await store.receive(.minuteElapsed) { $0.minutesHeating = 2 }
    await store.receive(.minuteElapsed) { $0.minutesHeating = 3 }
    await store.send(.heaterStopped) { $0.isHeating = false }
    await store.finish()
  }

  @Test func theDialIsDebounced() async {
    let clock = TestClock()
    let store = TestStore(initialState: Thermostat.State()) {
      Thermostat()
    } withDependencies: {
      $0.continuousClock = clock
    }

    await store.send(.dialTurned(21)) { $0.dial = 21 }
    await clock.advance(by: .milliseconds(500))
    await store.send(.dialTurned(22)) { $0.dial = 22 }
    await clock.advance(by: .milliseconds(999))
    #expect(store.state.target == 20)
    await clock.advance(by: .milliseconds(1))
    await store.receive(.targetApplied(22)) { $0.target = 22 }
    await store.finish()
  }

  @Test func runWakesEverySleeper() async {
    let clock = TestClock()
    let store = TestStore(initialState: Thermostat.State()) {
      Thermostat()
    } withDependencies: {
      $0.continuousClock = clock
    }

    await store.send(.dialTurned(18)) { $0.dial = 18 }
    await clock.run()
    await store.receive(.targetApplied(18)) { $0.target = 18 }
    await store.finish()
  }

  @Test func theDialWithAnImmediateClock() async {
    let store = TestStore(initialState: Thermostat.State()) {
      Thermostat()
    } withDependencies: {
      $0.continuousClock = ImmediateClock()
    }

    await store.send(.dialTurned(23)) { $0.dial = 23 }
    await store.receive(.targetApplied(23)) { $0.target = 23 }
    await store.finish()
  }

  @Test func refreshIsThrottled() async {
    let clock = TestClock()
    let store = TestStore(initialState: Thermostat.State()) {
      Thermostat()
    } withDependencies: {
      $0.continuousClock = clock
    }

    await store.send(.refreshTapped) { $0.isReading = true }
    await store.receive(.readingReceived(21)) {
      $0.reading = 21
      $0.isReading = false
    }
    await clock.advance(by: .seconds(3))
    await store.send(.refreshTapped) { $0.isReading = true }  // Held until the window closes.
    await clock.advance(by: .seconds(2))
    await store.send(.refreshTapped)  // Dropped: a refresh is already held.
    await clock.advance(by: .seconds(5))
    await store.receive(.readingReceived(21)) { $0.isReading = false }
    await clock.advance(by: .seconds(10))
    await store.finish()
  }

  // MARK: Receiving by case

  @Test func receivingByCase() async {
    let store = TestStore(initialState: Thermostat.State()) { Thermostat() }

    await store.send(.appeared) { $0.isReading = true }
    await store.receive(.readingReceived) {
      $0.reading = 21
      $0.isReading = false
    }
    await store.send(.appeared) { $0.isReading = true }
    await store.receive(.readingReceived, 21) { $0.isReading = false }
    await store.finish()
  }

  @Test func receivingByPredicate() async {
    let store = TestStore(initialState: Thermostat.State()) { Thermostat() }

    await store.send(.appeared) { $0.isReading = true }
    let isComfortable: (Thermostat.Action) -> Bool = { action in
      guard case .readingReceived(let reading) = action else { return false }
      return (15...25).contains(reading)
    }
    await store.receive(isComfortable) {
      $0.reading = 21
      $0.isReading = false
    }
    await store.finish()
  }

  // MARK: Non-exhaustive tests

  @Test func theHeaterStopsWhenWarmEnoughNonExhaustive() async {
    let store = TestStore(initialState: Thermostat.State(isHeating: true)) { Thermostat() }
    store.exhaustivity = .off

    await store.send(.appeared)
    await store.receive(.heaterStopped) { $0.isHeating = false }
    await store.finish()
  }

  @Test func showingSkippedAssertions() async {
    let store = TestStore(initialState: Thermostat.State(isHeating: true)) { Thermostat() }
    store.exhaustivity = .off(showSkippedAssertions: true)

    await store.send(.appeared)
    await store.receive(.heaterStopped) { $0.isHeating = false }
    await store.finish()
  }

  @Test func skippingReceivedActionsThenAsserting() async {
    let store = TestStore(initialState: Thermostat.State(isHeating: true)) { Thermostat() }
    store.exhaustivity = .off

    await store.send(.appeared)
    await store.skipReceivedActions()
    store.assert {
      $0.reading = 21
      $0.isHeating = false
    }
    await store.finish()
  }

  @Test func skippingInFlightEffects() async {
    let store = TestStore(initialState: Thermostat.State()) {
      Thermostat()
    } withDependencies: {
      $0.continuousClock = TestClock()
    }

    await store.send(.heaterStarted) { $0.isHeating = true }
    await store.skipInFlightEffects()
    await store.finish()
  }

  @Test func partlyNonExhaustive() async {
    let store = TestStore(initialState: Thermostat.State()) { Thermostat() }

    await store.withExhaustivity(.off) {
      await store.send(.appeared)
      await store.skipReceivedActions()
    }
    await store.send(.appeared) { $0.isReading = true }
    await store.receive(.readingReceived(21)) { $0.isReading = false }
    await store.finish()
  }

  // MARK: Dependencies

  @Test func aWarmRoom() async {
    let store = TestStore(initialState: Thermostat.State()) {
      Thermostat()
    } withDependencies: {
      $0.thermometer = Thermometer { 25 }
    }

    await store.send(.appeared) { $0.isReading = true }
    await store.receive(.readingReceived(25)) {
      $0.reading = 25
      $0.isReading = false
    }
    store.dependencies.thermometer = Thermometer { 17 }
    await store.send(.appeared) { $0.isReading = true }
    await store.receive(.readingReceived(17)) {
      $0.reading = 17
      $0.isReading = false
    }
    await store.finish()
  }

  @Test func aDependencyWithoutATestValueFailsTheTest() async {
    let failures = await recordedFailures {
      let store = TestStore(initialState: Thermostat.State()) { Thermostat() }

      await store.send(.heaterStarted) { $0.isHeating = true }
      // Fails: "the dependency 'ContinuousClockKey' was used in a test context, but it has no
      // test value." The live clock is used instead.
      await store.send(.heaterStopped) { $0.isHeating = false }
      await store.finish()
    }
    #expect(failures.count == 1)
    #expect(failures.first?.message.contains("'ContinuousClockKey'") == true)
  }

  @Test func anEffectUsesTheDependenciesOfItsReducer() async {
    let store = TestStore(initialState: Thermostat.State()) {
      Reduce { state, action in
        withDependencies {
          $0.thermometer = Thermometer { 12 }
        } operation: {
          Thermostat().reduce(into: &state, action: action)
        }
      }
    }

    await store.send(.appeared) { $0.isReading = true }
    await store.receive(.readingReceived(12)) {
      $0.reading = 12
      $0.isReading = false
    }
    await store.finish()
  }
}
