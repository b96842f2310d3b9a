import Testing
import Unidirectional
import UnidirectionalTesting

/// The test store from main-actor tests, with closures that capture main-actor state.
@Suite @MainActor struct MainActorTests {
  var expectedCount = 1

  @Test func stepsFromTheMainActor() async {
    let store = TestStore(initialState: Feature.State()) { Feature() }
    store.observe("count") { _ = $0.count }
    await store.send(.increment, fires: ["count"]) { $0.count = expectedCount }
    await store.send(.factButtonTapped)
    await store.receive(.factResponse("1 is a test number.")) { $0.fact = "1 is a test number." }
    await store.finish()
  }
}
