import Testing
import Unidirectional
import UnidirectionalTesting

/// A greeting dependency that a reducer overrides for one effect.
private struct Greeting: DependencyKey {
  static let liveValue = "live hello"
  static let testValue = "test hello"
}

extension DependencyValues {
  fileprivate var greeting: String {
    get { self[Greeting.self] }
    set { self[Greeting.self] = newValue }
  }
}

/// Sends a greeting from an effect, optionally with the dependency overridden in the reducer.
private struct Greeter: Reducer {
  enum Action: Equatable, Sendable {
    case greet
    case greetInFrench
    case greeted(String)
  }

  func reduce(into state: inout [String], action: Action) -> Effect<Action> {
    switch action {
    case .greet:
      return greeting()
    case .greetInFrench:
      return withDependencies {
        $0.greeting = "bonjour"
      } operation: {
        greeting()
      }
    case .greeted(let text):
      state.append(text)
      return .none
    }
  }

  private func greeting() -> Effect<Action> {
    .run { send in
      @Dependency(\.greeting) var greeting
      await send(.greeted(greeting))
    }
  }
}

/// The testing tools someone moving a TCA test suite expects.
@Suite struct TestStoreToolsTests {
  @Test func receiveByCaseAndPayload() async {
    let store = TestStore(initialState: Feature.State()) { Feature() }
    await store.send(.factButtonTapped)
    await store.receive(.factResponse, "0 is a test number.") { $0.fact = "0 is a test number." }
    await store.finish()
  }

  @Test func assertChecksTheStateWithoutAnAction() async {
    let store = TestStore(initialState: Feature.State()) { Feature() }
    await store.send(.increment) { $0.count = 1 }
    // Exhaustive: nothing changed since the last step, so the expected state is unchanged.
    store.assert { _ in }
    store.exhaustivity = .off
    await store.send(.factButtonTapped)
    await store.skipReceivedActions()
    // Non-exhaustive: only what the closure sets is checked.
    store.assert { $0.fact = "1 is a test number." }
  }

  @Test func anOverrideInsideTheReducerReachesTheEffectCreatedThere() async {
    let store = TestStore(initialState: [String]()) { Greeter() }
    await store.send(.greet)
    await store.receive(.greeted("test hello")) { $0 = ["test hello"] }
    await store.send(.greetInFrench)
    await store.receive(.greeted("bonjour")) { $0.append("bonjour") }
    // The test store's own dependencies still apply to later effects.
    store.dependencies.greeting = "hi"
    await store.send(.greet)
    await store.receive(.greeted("hi")) { $0.append("hi") }
    await store.finish()
  }

  @Test func skipReceivedActionsShowsWhatItSkipped() async {
    let store = TestStore(initialState: Feature.State()) { Feature() }
    store.exhaustivity = .off(showSkippedAssertions: true)
    await store.send(.sendTwice)
    // Shown as a known issue listing `.first` and `.second`; the test does not fail.
    await store.skipReceivedActions()
    await store.finish()
  }

  @Test func observersAreAssertedForEachReceivedAction() async {
    let store = TestStore(initialState: Feature.State()) { Feature() }
    store.observe("fact") { _ = $0.fact }
    store.observe("count") { _ = $0.count }
    await store.send(.factButtonTapped)
    await store.receive(.factResponse, "0 is a test number.", fires: ["fact"]) {
      $0.fact = "0 is a test number."
    }
    await store.send(.increment, fires: ["count"]) { $0.count = 1 }
    await store.finish()
  }

  @Test func aNonExhaustiveFinishCancelsWhatIsStillRunning() async {
    let store = TestStore(initialState: Feature.State()) { Feature() }
    store.exhaustivity = .off
    store.timeout = .milliseconds(10)
    await store.send(.neverEnding)
    await store.finish()
  }
}
