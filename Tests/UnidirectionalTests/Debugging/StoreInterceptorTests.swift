import Testing
import Unidirectional
import UnidirectionalTestSupport

@Suite struct StoreInterceptorTests {
  struct State: Equatable, Sendable {
    var count = 0
    var child = 0
  }
  enum Action: Equatable, Sendable {
    case increment
    case incrementThenFeedBack
    case fedBack
    case child
  }

  static func reducer(_ log: Log<String>) -> Reduce<State, Action> {
    Reduce { state, action in
      log.append("reduce \(action)")
      switch action {
      case .increment, .fedBack:
        state.count += 1
        return .none
      case .incrementThenFeedBack:
        state.count += 1
        return .send(.fedBack)
      case .child:
        state.child += 1
        return .none
      }
    }
  }

  static func logging(_ log: Log<String>) -> StoreInterceptor<State, Action> {
    StoreInterceptor(
      willReduce: { action, state in log.append("will \(action) at \(state.count)") },
      didReduce: { action, old, new in log.append("did \(action) \(old.count)→\(new.count)") })
  }

  @Test func runAroundTheReducerBeforeEffectsAndObservers() {
    let log = Log<String>()
    let store = Store(
      initialState: State(), reducer: Self.reducer(log), interceptors: [Self.logging(log)])
    let token = store.observe { log.append("observer sees \(store.count)") }
    log.removeAll()

    store.send(.incrementThenFeedBack)
    // The fed-back action is queued by the effect's start, and reduced after the observers.
    #expect(
      log.values == [
        "will incrementThenFeedBack at 0", "reduce incrementThenFeedBack",
        "did incrementThenFeedBack 0→1", "observer sees 1",
        "will fedBack at 1", "reduce fedBack", "did fedBack 1→2", "observer sees 2",
      ])
    withExtendedLifetime(token) {}
  }

  @Test func severalRunInTheOrderGiven() {
    let log = Log<String>()
    let first = StoreInterceptor<State, Action>(
      willReduce: { _, _ in log.append("first will") },
      didReduce: { _, _, _ in log.append("first did") })
    let second = StoreInterceptor<State, Action>(
      willReduce: { _, _ in log.append("second will") })
    let store = Store(
      initialState: State(), reducer: Self.reducer(log), interceptors: [first, second])
    store.send(.increment)
    #expect(log.values == ["first will", "second will", "reduce increment", "first did"])
  }

  @Test func anInterceptorMayReadAndSendWithoutReenteringTheReducer() {
    let log = Log<String>()
    let box = Locked<Store<State, Action>?>(nil)
    let sender = StoreInterceptor<State, Action>(didReduce: { action, _, new in
      guard let store = box.withLock({ $0 }) else { return }
      // Reading is safe here (outside the lock) and sees the committed state.
      log.append("read \(store.count) after \(action)")
      if action == .increment { store.send(.child) }
    })
    let store = Store(initialState: State(), reducer: Self.reducer(log), interceptors: [sender])
    box.withLock { $0 = store }
    defer { box.withLock { $0 = nil } }

    store.send(.increment)
    // The interceptor's send was queued behind `.increment`, not reduced inside it.
    #expect(
      log.values == [
        "reduce increment", "read 1 after increment", "reduce child", "read 1 after child",
      ])
    #expect(store.state == State(count: 1, child: 1))
  }

  @Test func childStoreAndEffectActionsPassThroughTheRootsInterceptors() async {
    let seen = Log<Action>()
    let store = Store(
      initialState: State(),
      reducer: Reduce<State, Action> { state, action in
        switch action {
        case .child:
          state.child += 1
          return .run { send in await send(.fedBack) }
        default:
          state.count += 1
          return .none
        }
      },
      interceptors: [StoreInterceptor(didReduce: { action, _, _ in seen.append(action) })])
    let child = store.scope(state: \.child, action: { (_: Int) in Action.child })
    await child.send(1).finish()
    #expect(seen.values == [.child, .fedBack])
  }

  @Test func concurrentSendersAreSeenOnceEachInReduceOrder() async {
    let counts = Log<Int>()
    let store = Store(
      initialState: State(), reducer: Self.reducer(Log()),
      interceptors: [
        StoreInterceptor(didReduce: { _, old, new in
          counts.append(new.count)
          precondition(new.count == old.count + 1)
        })
      ])
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<4 {
        group.addTask { for _ in 0..<5_000 { store.send(.increment) } }
      }
    }
    #expect(counts.values == Array(1...20_000))
  }
}
