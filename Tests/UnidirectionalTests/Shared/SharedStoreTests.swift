import Dispatch
import Foundation
import Testing
import UnidirectionalTestSupport

@testable import Unidirectional

/// A feature holding a shared count: it increments it, and receives its changes.
enum CountFeature {
  struct State: Equatable, Sendable {
    var count = Shared(.inMemory("count"), default: 0)
    var label = ""
  }

  enum Action: Equatable, Sendable {
    case increment
    case countChanged(SharedChange<Int>)
    case incrementInEffect
  }

  static var reducer: ReceiveSharedReducer<Reduce<State, Action>, Int> {
    Reduce<State, Action> { state, action in
      switch action {
      case .increment:
        state.count.withLock { $0 += 1 }
        return .none
      case .countChanged(let change):
        // The copy has the change already when this runs.
        state.label = "changed to \(change.value), copy \(state.count.value)"
        return .none
      case .incrementInEffect:
        let count = state.count
        return .run { _ in
          var count = count
          count.withLock { $0 += 10 }
        }
      }
    }
    .receivingShared(\.count, action: .case(Action.countChanged))
  }

  /// A store of the feature in `storage`, recording the actions it reduces.
  static func store(in storage: SharedStorage, recording log: Locked<[Action]>? = nil)
    -> Store<State, Action>
  {
    inStorage(storage) {
      Store(
        initialState: State(), reducer: reducer,
        interceptors: log.map { log in
          [StoreInterceptor(willReduce: { action, _ in log.withLock { $0.append(action) } })]
        } ?? [])
    }
  }
}

@Suite struct SharedStoreTests {
  @Test func aChangeByOneStoresReducerIsReceivedByTheOtherAndNotByItself() async {
    let storage = SharedStorage()
    let firstLog = Locked<[CountFeature.Action]>([])
    let secondLog = Locked<[CountFeature.Action]>([])
    let first = CountFeature.store(in: storage, recording: firstLog)
    let second = CountFeature.store(in: storage, recording: secondLog)
    first.send(.increment)
    // The changing store's copy is current at once.
    #expect(first.count.value == 1)
    await storage.delivered()
    #expect(second.count.value == 1)
    #expect(second.label == "changed to 1, copy 1")
    #expect(firstLog.withLock { $0 } == [.increment])
    #expect(secondLog.withLock { $0 } == [.countChanged(SharedChange(value: 1, version: 1))])
  }

  @Test func anObserverOfTheSharedValueRerunsWhenAnotherStoreChangesIt() async {
    let storage = SharedStorage()
    let first = CountFeature.store(in: storage)
    let second = CountFeature.store(in: storage)
    let seen = Locked<[Int]>([])
    let token = second.observe { seen.withLock { $0.append(second[\.count.value]) } }
    first.send(.increment)
    await storage.delivered()
    first.send(.increment)
    await storage.delivered()
    #expect(seen.withLock { $0 } == [0, 1, 2])
    withExtendedLifetime(token) {}
  }

  @Test func aChangeFromAnEffectIsReceivedByTheStoreItself() async {
    let storage = SharedStorage()
    let log = Locked<[CountFeature.Action]>([])
    let store = CountFeature.store(in: storage, recording: log)
    await store.send(.incrementInEffect).finish()
    await storage.delivered()
    #expect(store.count.value == 10)
    #expect(log.withLock { $0.last } == .countChanged(SharedChange(value: 10, version: 1)))
  }

  @Test func aChangeFromOutsideIsReceivedByEveryStore() async {
    struct State: Equatable, Sendable {
      var settings = Shared(.file("/tmp/unidirectional-settings.json"), default: Settings())
    }
    enum Action: Sendable { case settingsChanged(SharedChange<Settings>) }
    let storage = SharedStorage()
    let stores = (0..<3).map { _ in
      inStorage(storage) {
        Store(
          initialState: State(),
          reducer: Reduce<State, Action> { _, _ in .none }
            .receivingShared(\.settings, action: .case(Action.settingsChanged)))
      }
    }
    storage.setFile(
      "/tmp/unidirectional-settings.json", to: Data(#"{"step": 4, "name": "edited"}"#.utf8))
    await storage.delivered()
    for store in stores {
      #expect(store.settings.value == Settings(step: 4, name: "edited"))
    }
  }

  @Test func twoFieldsOfOneStateHoldingOneValueStayInStep() async {
    // A parent and a child holding the signed-in user: the child's reducer changes it, and the
    // parent's copy must follow, as it would if another store had changed it.
    struct State: Equatable, Sendable {
      var parent = Shared(.inMemory("user"), default: 0)
      var child = Shared(.inMemory("user"), default: 0)
    }
    enum Action: Equatable, Sendable {
      case childSets(Int)
      case parentChanged(SharedChange<Int>)
      case childChanged(SharedChange<Int>)
    }
    let storage = SharedStorage()
    let log = Locked<[Action]>([])
    let store = inStorage(storage) {
      Store(
        initialState: State(),
        reducer: Reduce<State, Action> { state, action in
          if case .childSets(let value) = action { state.child.withLock { $0 = value } }
          return .none
        }
        .receivingShared(\.parent, action: .case(Action.parentChanged))
        .receivingShared(\.child, action: .case(Action.childChanged)),
        interceptors: [
          StoreInterceptor(willReduce: { action, _ in log.withLock { $0.append(action) } })
        ])
    }
    store.send(.childSets(5))
    await storage.delivered()
    #expect(store.child.value == 5)
    #expect(store.parent.value == 5)
    // The parent's copy took the change as an action; the child, whose reducer made it, did not.
    #expect(
      log.withLock { $0 } == [.childSets(5), .parentChanged(SharedChange(value: 5, version: 1))])
  }

  @Test func aChangeOlderThanTheCopyIsNoChange() {
    var count = inStorage(SharedStorage()) { Shared(.inMemory("count"), default: 0) }
    count.withLock { $0 = 5 }
    count.withLock { $0 = 6 }
    count.apply(SharedChange(value: 5, version: 1))
    #expect(count.value == 6)
    count.apply(SharedChange(value: 7, version: 3))
    #expect(count.value == 7)
  }

  @Test func aStoreThatIsGoneReceivesNothingAndTheOthersStillDo() async {
    let storage = SharedStorage()
    var first: Store? = CountFeature.store(in: storage)
    let second = CountFeature.store(in: storage)
    weak let released = first
    first = nil
    #expect(released == nil)
    second.send(.increment)
    await storage.delivered()
    let third = CountFeature.store(in: storage)
    #expect(third.count.value == 1)
    third.send(.increment)
    await storage.delivered()
    #expect(second.count.value == 2)
  }

  @Test func aStoresLogReplaysToTheSameStatesAndWritesNothingToTheStorage() async {
    let storage = SharedStorage()
    let log = Locked<[CountFeature.Action]>([])
    let states = Locked<[CountFeature.State]>([])
    let recorded = inStorage(storage) {
      Store(
        initialState: CountFeature.State(), reducer: CountFeature.reducer,
        interceptors: [
          StoreInterceptor(
            willReduce: { action, _ in log.withLock { $0.append(action) } },
            didReduce: { _, _, state in states.withLock { $0.append(state) } })
        ])
    }
    let other = CountFeature.store(in: storage)
    recorded.send(.increment)
    await storage.delivered()
    other.send(.increment)
    await storage.delivered()
    recorded.send(.increment)
    other.send(.increment)
    await storage.delivered()
    let valueBeforeReplay = other.count.value

    // A replay runs in a storage of its own: it writes nothing to the real one.
    let replayStorage = SharedStorage()
    let replayedStates = Locked<[CountFeature.State]>([])
    let replay = inStorage(replayStorage) {
      Store(
        initialState: CountFeature.State(), reducer: CountFeature.reducer,
        interceptors: [
          StoreInterceptor(didReduce: { _, _, state in
            replayedStates.withLock { $0.append(state) }
          })
        ])
    }
    for action in log.withLock({ $0 }) { replay.send(action) }
    #expect(
      replayedStates.withLock { $0.map(\.count.value) } == states.withLock { $0.map(\.count.value) }
    )
    #expect(replayedStates.withLock { $0.map(\.label) } == states.withLock { $0.map(\.label) })
    #expect(other.count.value == valueBeforeReplay)
    #expect(states.withLock { $0.map(\.count.value) } == [1, 2, 3, 4])
  }
}
