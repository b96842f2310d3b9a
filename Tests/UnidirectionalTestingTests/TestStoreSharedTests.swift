import Foundation
import Testing
import Unidirectional
import UnidirectionalTesting

/// A feature with a shared step size and a count of its own.
private enum Stepper {
  struct State: Equatable, Sendable {
    var step = Shared(.file("/tmp/stepper/settings.json"), default: 1)
    var count = 0
  }

  enum Action: Equatable, Sendable {
    case advance
    case setStep(Int)
    case stepChanged(SharedChange<Int>)
  }

  static var reducer: some Reducer<State, Action> {
    Reduce<State, Action> { state, action in
      switch action {
      case .advance:
        state.count += state.step.value
      case .setStep(let step):
        state.step.withLock { $0 = step }
      case .stepChanged:
        break
      }
      return .none
    }
    .receivingShared(\.step, action: .case(Action.stepChanged))
  }

  /// A test store of the feature whose shared values live in `storage`.
  static func testStore(in storage: SharedStorage) -> TestStore<State, Action> {
    TestStore(initialState: State()) {
      reducer
    } withDependencies: {
      $0.sharedStorage = storage
    }
  }

  /// A plain store of the feature, beside the test store, sharing `storage`.
  static func store(in storage: SharedStorage) -> Store<State, Action> {
    withDependencies {
      $0.sharedStorage = storage
    } operation: {
      Store(initialState: State(), reducer: reducer)
    }
  }
}

@Suite struct TestStoreSharedTests {
  @Test func aChangeTheActionMakesIsDescribedInItsStep() async {
    let store = TestStore(initialState: Stepper.State()) { Stepper.reducer }
    await store.send(.setStep(5)) { $0.step.withLock { $0 = 5 } }
    await store.send(.advance) { $0.count = 5 }
  }

  @Test func aChangeTheStepDoesNotDescribeFailsTheStepNamingIt() async {
    let store = TestStore(initialState: Stepper.State()) { Stepper.reducer }
    await withKnownIssue {
      await store.send(.setStep(3))
    } matching: { issue in
      let text = issue.comments.map(\.rawValue).joined()
      return text.contains("State was not expected to change") && text.contains("step")
    }
  }

  @Test func describingTheExpectedCopyWritesNothingToTheStorage() async {
    let storage = SharedStorage()
    let store = Stepper.testStore(in: storage)
    await store.send(.setStep(4)) { $0.step.withLock { $0 = 4 } }
    await storage.saved()
    let saved = storage.file("/tmp/stepper/settings.json")
    // The value was saved once, by the reducer, as 4; the step closure wrote nothing.
    #expect(saved == Data("4\n".utf8))
  }

  @Test func aChangeFromOutsideIsReceivedWithoutWaitingOnAWatch() async {
    let storage = SharedStorage()
    let store = Stepper.testStore(in: storage)
    storage.setFile("/tmp/stepper/settings.json", to: Data("7\n".utf8))
    await store.receive(.stepChanged(SharedChange(value: 7, version: 1))) {
      $0.step.withLock { $0 = 7 }
    }
    await store.send(.advance) { $0.count = 7 }
  }

  @Test func eachTestStoreHasItsOwnStorage() async {
    let first = TestStore(initialState: Stepper.State()) { Stepper.reducer }
    await first.send(.setStep(9)) { $0.step.withLock { $0 = 9 } }
    let second = TestStore(initialState: Stepper.State()) { Stepper.reducer }
    await second.send(.advance) { $0.count = 1 }
  }

  @Test func aChangeByAnotherStoreThatTheTestDoesNotReceiveFailsAtTheEnd() async {
    let storage = SharedStorage()
    let store = Stepper.testStore(in: storage)
    let other = Stepper.store(in: storage)
    other.send(.setStep(6))
    await withKnownIssue {
      await store.finish()
    } matching: { issue in
      issue.comments.map(\.rawValue).joined().contains("unexpected action")
    }
  }

  @Test func aChangeByAnotherStoreIsReceived() async {
    let storage = SharedStorage()
    let store = Stepper.testStore(in: storage)
    let other = Stepper.store(in: storage)
    other.send(.setStep(2))
    await store.receive(.stepChanged(SharedChange(value: 2, version: 1))) {
      $0.step.withLock { $0 = 2 }
    }
  }
}
