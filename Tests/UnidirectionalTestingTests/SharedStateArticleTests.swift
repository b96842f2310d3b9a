import Foundation
import Testing
import Unidirectional
import UnidirectionalTesting

// The code of the article "Shared state" (Unidirectional.docc/SharedState.md), compiled and
// run. Every ```swift block of the article appears here line for line (up to indentation);
// `DocumentationSnippetTests` checks it. Change both together.

/// The article's names, kept apart from other tests' features.
enum SharedStateArticle {
  struct Settings: Codable, Equatable, Sendable {
    var step = 1
  }

  struct Counter: Reducer {
    struct State: Equatable, Sendable {
      var count = 0
      var settings = Shared(.file(Counter.settingsPath), default: Settings())
    }

    enum Action: Equatable, Sendable {
      case increment
      case setStep(Int)
      case settingsChanged(SharedChange<Settings>)
    }

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .increment:
        state.count += state.settings.value.step
      case .setStep(let step):
        state.settings.withLock { $0.step = step }
      case .settingsChanged:
        break
      }
      return .none
    }
  }
}

extension SharedStateArticle.Counter {
  /// Where the article's counter keeps its settings (in memory in tests: a test store's storage
  /// keeps files in memory).
  static let settingsPath = "/tmp/unidirectional-article/counter-settings.json"
}

@Suite struct SharedStateArticleTests {
  typealias Counter = SharedStateArticle.Counter
  typealias Settings = SharedStateArticle.Settings

  @Test func changingTheWholeValueInOneClosure() {
    var state = withDependencies {
      $0.sharedStorage = SharedStorage()
    } operation: {
      Counter.State()
    }
    state.settings.withLock { $0.step += 1 }
    #expect(state.settings.value.step == 2)
  }

  @Test func aStoreReceivesChangesMadeByAnother() async {
    let storage = SharedStorage()
    let (store, other) = withDependencies {
      $0.sharedStorage = storage
    } operation: {
      let store = Store(initialState: Counter.State()) {
        Counter()
          .receivingShared(\.settings, action: .case(Counter.Action.settingsChanged))
      }
      let other = Store(initialState: Counter.State(), reducer: Counter())
      return (store, other)
    }
    other.send(.setStep(4))
    await storage.delivered()
    #expect(store.settings.value.step == 4)
    store.send(.increment)
    #expect(store.count == 4)
  }

  @Test func aProgramWaitsForItsLastSaves() {
    SharedStorage.live.waitForSaves()
  }

  @Test func aChangeAnActionMakesIsDescribedInItsStep() async {
    let store = TestStore(initialState: Counter.State()) {
      Counter()
        .receivingShared(\.settings, action: .case(Counter.Action.settingsChanged))
    }
    await store.send(.setStep(5)) {
      $0.settings.withLock { $0.step = 5 }
    }
    await store.send(.increment) {
      $0.count = 5
    }
  }

  @Test func aChangeFromOutsideIsReceived() async {
    let storage = SharedStorage()
    let store = TestStore(initialState: Counter.State()) {
      Counter()
        .receivingShared(\.settings, action: .case(Counter.Action.settingsChanged))
    } withDependencies: {
      $0.sharedStorage = storage
    }
    storage.setFile(Counter.settingsPath, to: Data(#"{"step": 3}"#.utf8))
    await store.receive(.settingsChanged(SharedChange(value: Settings(step: 3), version: 1))) {
      $0.settings.withLock { $0.step = 3 }
    }
  }
}
