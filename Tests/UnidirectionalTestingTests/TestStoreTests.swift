import Testing
import Unidirectional
import UnidirectionalTestSupport
import UnidirectionalTesting

@Suite struct TestStoreTests {
  @Test func aPassingTestRecordsNothing() async {
    let clock = TestClock()
    let store = TestStore(initialState: Feature.State()) {
      Feature()
    } withDependencies: {
      $0.continuousClock = clock
    }
    store.observe("count") { _ = $0.count }
    store.observe("fact") { _ = $0.fact }
    store.observe("timer") { _ = $0.isTimerOn }

    await store.send(.increment, fires: ["count"]) { $0.count = 1 }
    await store.send(.noop)
    await store.send(.factButtonTapped)
    await store.receive(.factResponse("1 is a test number."), fires: ["fact"]) {
      $0.fact = "1 is a test number."
    }
    await store.send(.startTimer, fires: ["timer"]) { $0.isTimerOn = true }
    for expected in 2...3 {
      await clock.advance(by: .seconds(1))
      await store.receive(.tick, fires: ["count"]) { $0.count = expected }
    }
    await store.send(.stopTimer, fires: ["timer"]) { $0.isTimerOn = false }
    await store.finish()
  }

  @Test func synchronousEffectActionsAreReceivedInOrder() async {
    let store = TestStore(initialState: Feature.State()) { Feature() }
    await store.send(.sendTwice)
    await store.receive(.first)
    await store.receive(.second)
  }

  @Test func receivedActionsAreReducedWhenTheEffectSendsThem() async {
    let store = TestStore(initialState: Feature.State(count: 41)) { Feature() }
    await store.send(.factButtonTapped)
    // As in production: the effect's action is in the state before the test receives it.
    #expect(store.state.fact == "41 is a test number.")
    await store.receive(.factResponse("41 is a test number.")) { $0.fact = "41 is a test number." }
    #expect(store.state.fact == "41 is a test number.")
  }

  @Test func receiveByPredicateAndByCase() async {
    let store = TestStore(initialState: Feature.State()) { Feature() }
    await store.send(.factButtonTapped)
    let isFactResponse: (Feature.Action) -> Bool = {
      if case .factResponse = $0 { true } else { false }
    }
    await store.receive(isFactResponse) {
      $0.fact = "0 is a test number."
    }
    await store.send(.factButtonTapped) { $0.fact = nil }
    await store.receive(.factResponse) { $0.fact = "0 is a test number." }
  }

  @Test func dependenciesCanChangeBetweenSteps() async {
    let store = TestStore(initialState: Feature.State()) { Feature() }
    store.dependencies.fact = FactClient { "fact \($0)" }
    await store.send(.factButtonTapped)
    await store.receive(.factResponse("fact 0")) { $0.fact = "fact 0" }
    store.dependencies.fact = FactClient { "other \($0)" }
    await store.send(.factButtonTapped) { $0.fact = nil }
    await store.receive(.factResponse("other 0")) { $0.fact = "other 0" }
  }

  @Test func sendReturnsATaskTheTestCanCancel() async {
    let clock = TestClock()
    let store = TestStore(initialState: Feature.State()) {
      Feature()
    } withDependencies: {
      $0.continuousClock = clock
    }
    let timer = await store.send(.startTimer) { $0.isTimerOn = true }
    timer.cancel()
    await timer.finish()
    await store.finish()
  }

  @Test func skipInFlightEffectsCancelsThem() async {
    let store = TestStore(initialState: Feature.State()) { Feature() }
    await store.send(.neverEnding)
    await store.skipInFlightEffects()
    await store.finish()
  }

  @Test func skipReceivedActionsAcceptsThem() async {
    let store = TestStore(initialState: Feature.State()) { Feature() }
    await store.send(.factButtonTapped).finish()
    await store.skipReceivedActions()
    #expect(store.state.fact == "0 is a test number.")
    await store.finish()
  }

  @Test func nonExhaustiveChecksOnlyWhatIsStated() async {
    let store = TestStore(initialState: Feature.State()) { Feature() }
    store.exhaustivity = .off
    store.observe("count") { _ = $0.count }
    store.observe("fact") { _ = $0.fact }
    // Only the count is asserted; the observer that read it is listed, the other is not.
    await store.send(.increment, fires: ["count"]) { $0.count = 1 }
    await store.send(.factButtonTapped).finish()
    await store.send(.sendTwice)
    // The fact response is skipped (and reduced) on the way to `.second`.
    await store.receive(.second)
    #expect(store.state.fact == "1 is a test number.")
    await store.send(.neverEnding)
  }

  @Test func withExhaustivityRestoresTheSetting() async {
    let store = TestStore(initialState: Feature.State()) { Feature() }
    await store.withExhaustivity(.off) {
      await store.send(.increment)
      #expect(store.exhaustivity == .off)
    }
    #expect(store.exhaustivity == .on)
  }

  @Test func showSkippedAssertionsRecordsThemAsKnownIssues() async {
    let store = TestStore(initialState: Feature.State()) { Feature() }
    store.exhaustivity = .off(showSkippedAssertions: true)
    await store.send(.sendTwice)
    // `.first` is skipped: shown as a known issue, which does not fail this test.
    await store.receive(.second)
  }
}
