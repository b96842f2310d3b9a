import Testing
import Unidirectional
import UnidirectionalTesting

// The code of the article "Testing with observer assertions"
// (UnidirectionalTesting.docc/TestingWithObserverAssertions.md), compiled and run. Every
// ```swift block of the article appears here line for line (up to indentation);
// `DocumentationSnippetTests` checks it. Change both together.

/// The article's names, kept apart from other tests' features.
enum ObserverAssertionsArticle {
  /// The counter the article tests.
  struct Counter: Reducer {
    struct State: Equatable, Sendable {
      var count = 0
      var fact: String?
    }
    enum Action: Equatable, Sendable {
      case increment
      case factButtonTapped
      case factResponse(String)
    }
    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .increment:
        state.count += 1
        return .none
      case .factButtonTapped:
        return .run { [count = state.count] send in
          await send(.factResponse("\(count) is a good number"))
        }
      case .factResponse(let fact):
        state.fact = fact
        return .none
      }
    }
  }
}

extension ObserverAssertionsArticle {
  @Suite struct Tests {
    @Test func incrementing() async {
      let store = TestStore(initialState: Counter.State()) { Counter() }
      await store.send(.increment) {
        $0.count = 1
      }
    }

    @Test func actionsFromEffects() async {
      let store = TestStore(initialState: Counter.State(count: 1)) { Counter() }
      await store.send(.factButtonTapped)
      await store.receive(.factResponse("1 is a good number")) {
        $0.fact = "1 is a good number"
      }
    }

    @Test func whichObserversRan() async {
      let store = TestStore(initialState: Counter.State()) { Counter() }
      store.observe("count line") { store in _ = store.count }
      store.observe("fact line") { store in _ = store.fact }

      await store.send(.increment, fires: ["count line"]) {
        $0.count = 1
      }
      await store.send(.factButtonTapped)  // No observer runs: nothing they read changed.
      await store.receive(.factResponse("1 is a good number"), fires: ["fact line"]) {
        $0.fact = "1 is a good number"
      }
    }

    @Test func anObserverThatRanUnnamedFailsTheStep() async {
      let failures = await recordedFailures {
        let store = TestStore(initialState: Counter.State()) { Counter() }
        store.observe("count line") { store in _ = store.count }
        await store.send(.increment) { $0.count = 1 }
      }
      #expect(failures.count == 1)
      #expect(failures.first?.message.contains("count line") == true)
    }
  }
}
