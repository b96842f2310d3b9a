import Testing
import Unidirectional
import UnidirectionalTestSupport

struct Counter: Reducer {
  struct State: Equatable, Sendable {
    var count = 0
    var title = "Counter"
    var history: [Int] = []
  }
  enum Action: Equatable, Sendable {
    case increment
    case decrement
    case record(Int)
    case setTitle(String)
  }
  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .increment: state.count += 1
    case .decrement: state.count -= 1
    case .record(let value): state.history.append(value)
    case .setTitle(let title): state.title = title
    }
    return .none
  }
}

@Suite struct StoreTests {
  @Test func storeOfNamesTheStoreOfAReducersFeature() {
    let store: StoreOf<Counter> = Store(initialState: Counter.State()) { Counter() }
    store.send(.increment)
    #expect(store.count == 1)
    #expect(type(of: store) == Store<Counter.State, Counter.Action>.self)
  }

  @Test func sendReducesSynchronouslyWhenIdle() {
    let store = Store(initialState: Counter.State()) { Counter() }
    store.send(.increment)
    store.send(.increment)
    #expect(store.count == 2)
    store.send(.decrement)
    #expect(store.state == Counter.State(count: 1))
  }

  @Test func readsThroughDynamicMemberAndKeyPath() {
    let store = Store(initialState: Counter.State(history: [7, 8, 9])) { Counter() }
    #expect(store.title == "Counter")
    #expect(store[\.history[1]] == 8)
    #expect(store[\.history.count] == 3)
  }

  @Test func trailingClosureAndExplicitInitializersAgree() {
    let a = Store(initialState: Counter.State()) { Counter() }
    let b = Store(initialState: Counter.State(), reducer: Counter())
    a.send(.increment)
    b.send(.increment)
    #expect(a.state == b.state)
  }

  @Test func actionsSentFromObserversAreQueuedInFIFOOrder() {
    let log = Log<String>()
    let store = Store(initialState: Counter.State()) {
      Reduce<Counter.State, Counter.Action> { _, action in
        log.append("reduce \(action)")
        return .none
      }
      Counter()
    }
    let token = store.observe {
      let count = store.count
      log.append("observer saw \(count)")
      if count == 1 {
        // Re-entrant sends: queued, reduced after this observer returns, in order.
        store.send(.record(10))
        store.send(.record(20))
        log.append("observer sent")
      }
    }
    store.send(.increment)
    #expect(store.history == [10, 20])
    #expect(
      log.values == [
        "observer saw 0",
        "reduce increment", "observer saw 1", "observer sent",
        "reduce record(10)", "reduce record(20)",
      ]
    )
    withExtendedLifetime(token) {}
  }

  @Test func reducerIsNeverReenteredByEffectSends() async {
    let log = Log<String>()
    let store = Store(initialState: Counter.State()) {
      Reduce<Counter.State, Counter.Action> { state, action in
        log.append("begin \(action)")
        defer { log.append("end \(action)") }
        switch action {
        case .increment:
          state.count += 1
          return .merge(.send(.record(1)), .send(.record(2)))
        case .record(let value):
          state.history.append(value)
          return .none
        default:
          return .none
        }
      }
    }
    store.send(.increment)
    #expect(store.history == [1, 2])
    #expect(
      log.values == [
        "begin increment", "end increment",
        "begin record(1)", "end record(1)",
        "begin record(2)", "end record(2)",
      ]
    )
  }

  @Test func eightConcurrentSendersLoseNoAction() async {
    let store = Store(initialState: Counter.State()) { Counter() }
    let perSender = 5_000
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<8 {
        group.addTask {
          for _ in 0..<perSender { store.send(.increment) }
        }
      }
    }
    #expect(store.count == 8 * perSender)
  }

  @Test func concurrentSendersPreservePerSenderOrder() async {
    let store = Store(initialState: Counter.State()) { Counter() }
    await withTaskGroup(of: Void.self) { group in
      for sender in 0..<8 {
        group.addTask {
          for index in 0..<500 { store.send(.record(sender * 1_000 + index)) }
        }
      }
    }
    let history = store.history
    #expect(history.count == 8 * 500)
    for sender in 0..<8 {
      let mine = history.filter { $0 / 1_000 == sender }
      #expect(mine == (0..<500).map { sender * 1_000 + $0 })
    }
  }

  @Test func storeIsUsableFromAnActor() async {
    actor Owner {
      let store = Store(initialState: Counter.State()) { Counter() }
      func bump() -> Int {
        store.send(.increment)
        return store.count
      }
    }
    let owner = Owner()
    #expect(await owner.bump() == 1)
    #expect(await owner.bump() == 2)
  }
}
