import Testing
import UnidirectionalTestSupport

@testable import Unidirectional

/// Cancellation ids a presented child or a stack element uses are its own: two elements (or a
/// parent and its child) that use the same id never cancel each other's effects.
@Suite struct NavigationIDScopeTests {
  struct Ticker: Reducer {
    struct State: Equatable, Sendable {
      var ticks = 0
    }
    enum Action: Equatable, Sendable {
      case start
      case stop
      case stopFromAnEffect
      case tick
    }
    struct TimerID: Hashable, Sendable {}
    @Dependency(\.continuousClock) var clock

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .start:
        return .run { send in
          while true {
            try await clock.sleep(for: .seconds(1))
            await send(.tick)
          }
        }
        .cancellable(id: TimerID())
      case .stop:
        return .cancel(id: TimerID())
      case .stopFromAnEffect:
        return .run { _ in Task.cancel(id: TimerID()) }
      case .tick:
        state.ticks += 1
        return .none
      }
    }
  }

  struct Parent: Reducer {
    struct State: Equatable, Sendable {
      var stack = StackState<Ticker.State>()
      @PresentationState var presented: Ticker.State?
    }
    enum Action: Equatable, Sendable {
      case stack(StackAction<Ticker.State, Ticker.Action>)
      case presented(PresentationAction<Ticker.Action>)
      case startOwnTimer
      case stopOwnTimer
    }
    @Dependency(\.continuousClock) var clock

    var body: some Reducer<State, Action> {
      Reduce { _, action in
        switch action {
        case .startOwnTimer:
          return .run { _ in try await clock.sleep(for: .seconds(1000)) }
            .cancellable(id: Ticker.TimerID())
        case .stopOwnTimer:
          return .cancel(id: Ticker.TimerID())
        case .stack, .presented:
          return .none
        }
      }
      .forEach(\.stack, action: .case(Action.stack)) { Ticker() }
      .ifLet(\.$presented, action: .case(Action.presented)) { Ticker() }
    }
  }

  /// The stores' effects run here: `drain()` runs them up to their sleeps.
  let executor = TestExecutor()

  func makeStore(_ clock: TestClock) -> Store<Parent.State, Parent.Action> {
    var state = Parent.State()
    state.stack.append(Ticker.State())
    state.stack.append(Ticker.State())
    state.presented = Ticker.State()
    return withDependencies {
      $0.continuousClock = clock
    } operation: {
      Store(initialState: state, effectExecutor: executor) { Parent() }
    }
  }

  @Test func stackElementsWithTheSameIDDoNotCancelEachOther() async {
    let clock = TestClock()
    let store = makeStore(clock)
    let (first, second) = (store.stack.ids[0], store.stack.ids[1])
    store.send(.stack(.element(id: first, action: .start)))
    store.send(.stack(.element(id: second, action: .start)))
    executor.drain()
    #expect(clock.sleeperCount == 2)
    store.send(.stack(.element(id: first, action: .stop)))
    await clock.advance(by: .seconds(1))
    #expect(store.stack[id: first]?.ticks == 0)
    #expect(store.stack[id: second]?.ticks == 1)
  }

  @Test func taskCancelInsideAnElementCancelsItsOwnEffectsOnly() async {
    let clock = TestClock()
    let store = makeStore(clock)
    let (first, second) = (store.stack.ids[0], store.stack.ids[1])
    store.send(.stack(.element(id: first, action: .start)))
    store.send(.stack(.element(id: second, action: .start)))
    executor.drain()
    #expect(clock.sleeperCount == 2)
    await store.send(.stack(.element(id: second, action: .stopFromAnEffect))).finish()
    await clock.advance(by: .seconds(1))
    #expect(store.stack[id: first]?.ticks == 1)
    #expect(store.stack[id: second]?.ticks == 0)
  }

  @Test func aParentCancellingItsIDLeavesThePresentedChildsAlone() async {
    let clock = TestClock()
    let store = makeStore(clock)
    store.send(.presented(.presented(.start)))
    store.send(.startOwnTimer)
    executor.drain()
    #expect(clock.sleeperCount == 2)
    store.send(.stopOwnTimer)
    await clock.advance(by: .seconds(1))
    #expect(store.presented?.ticks == 1)
  }

  @Test func aPresentedChildCancellingItsIDLeavesTheParentsAlone() async {
    let clock = TestClock()
    let store = makeStore(clock)
    store.send(.presented(.presented(.start)))
    let parentTimer = store.send(.startOwnTimer)
    executor.drain()
    #expect(clock.sleeperCount == 2)
    store.send(.presented(.presented(.stop)))
    #expect(!parentTimer.isCancelled)
    parentTimer.cancel()
  }
}
