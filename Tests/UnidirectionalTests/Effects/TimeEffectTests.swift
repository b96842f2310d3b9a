import Testing
import Unidirectional
import UnidirectionalTestSupport

struct Search: Reducer {
  struct State: Equatable, Sendable {
    var searched: [String] = []
    var emitted: [Int] = []
  }
  enum Action: Sendable {
    case queryChanged(String)
    case searched(String)
    case tick(Int, latest: Bool)
    case emitted(Int)
  }
  struct SearchID: Hashable, Sendable {}
  struct TickID: Hashable, Sendable {}
  @Dependency(\.continuousClock) var clock

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .queryChanged(let query):
      return .run { send in await send(.searched(query)) }
        .debounce(id: SearchID(), for: .seconds(1), clock: clock)
    case .searched(let query):
      state.searched.append(query)
      return .none
    case .tick(let value, let latest):
      return .send(.emitted(value)).throttle(
        id: TickID(), for: .seconds(1), clock: clock, latest: latest)
    case .emitted(let value):
      state.emitted.append(value)
      return .none
    }
  }
}

/// Debounce and throttle, on the global executor, on a pinned thread and on a test executor:
/// each step lets the effects run (`settle`) before it looks.
@Suite struct TimeEffectTests {
  let clock = TestClock()

  func makeStore(_ runner: EffectRunner) -> Store<Search.State, Search.Action> {
    withDependencies {
      $0.continuousClock = clock
    } operation: {
      Store(initialState: Search.State(), effectExecutor: runner.executor) { Search() }
    }
  }

  @Test(arguments: EffectExecutorChoice.allCases)
  func debounceRunsOnlyTheLastEffectOfABurst(_ choice: EffectExecutorChoice) async {
    let runner = choice.makeRunner()
    let store = makeStore(runner)
    let first = store.send(.queryChanged("a"))
    let second = store.send(.queryChanged("ab"))
    let third = store.send(.queryChanged("abc"))
    await first.finish()
    await second.finish()
    await runner.settle { [clock] in clock.sleeperCount == 1 }
    await clock.advance(by: .milliseconds(999))
    #expect(store.searched.isEmpty)
    await clock.advance(by: .milliseconds(1))
    await third.finish()
    #expect(store.searched == ["abc"])
  }

  @Test(arguments: EffectExecutorChoice.allCases)
  func debounceRestartsTheWait(_ choice: EffectExecutorChoice) async {
    let runner = choice.makeRunner()
    let store = makeStore(runner)
    _ = store.send(.queryChanged("a"))
    await runner.settle { [clock] in clock.sleeperCount == 1 }
    await clock.advance(by: .milliseconds(600))
    let last = store.send(.queryChanged("ab"))
    // The first wait is cancelled, the second begins.
    await runner.settle { [clock] in clock.sleeperCount == 1 }
    await clock.advance(by: .milliseconds(600))
    #expect(store.searched.isEmpty)  // 1.2 s after the first, but only 0.6 s after the last.
    await clock.advance(by: .milliseconds(400))
    await last.finish()
    #expect(store.searched == ["ab"])
  }

  @Test(arguments: EffectExecutorChoice.allCases)
  func throttleLatestRunsTheFirstAtOnceAndTheLastAtTheWindowsEnd(
    _ choice: EffectExecutorChoice
  ) async {
    let runner = choice.makeRunner()
    let store = makeStore(runner)
    let opener = store.send(.tick(1, latest: true))
    store.send(.tick(2, latest: true))
    store.send(.tick(3, latest: true))
    #expect(store.emitted == [1])
    await runner.settle { [clock] in clock.sleeperCount == 1 }
    await clock.advance(by: .seconds(1))
    // The next window is open: 3 has run.
    await runner.settle { [clock] in clock.sleeperCount == 1 }
    #expect(store.emitted == [1, 3])
    await clock.advance(by: .seconds(1))  // Nothing kept: the window closes.
    await opener.finish()
    #expect(store.emitted == [1, 3])
  }

  @Test(arguments: EffectExecutorChoice.allCases)
  func throttleFirstKeepsTheFirstOfAWindow(_ choice: EffectExecutorChoice) async {
    let runner = choice.makeRunner()
    let store = makeStore(runner)
    let opener = store.send(.tick(1, latest: false))
    store.send(.tick(2, latest: false))
    store.send(.tick(3, latest: false))
    await runner.settle { [clock] in clock.sleeperCount == 1 }
    await clock.advance(by: .seconds(1))
    await runner.settle { [clock] in clock.sleeperCount == 1 }
    #expect(store.emitted == [1, 2])
    await clock.advance(by: .seconds(1))
    await opener.finish()
  }

  @Test(arguments: EffectExecutorChoice.allCases)
  func cancellingAThrottleIDClosesTheWindowAndDropsTheKeptEffect(
    _ choice: EffectExecutorChoice
  ) async {
    let runner = choice.makeRunner()
    let store = makeStore(runner)
    let opener = store.send(.tick(1, latest: true))
    store.send(.tick(2, latest: true))
    await runner.settle { [clock] in clock.sleeperCount == 1 }
    opener.cancel()
    await opener.finish()
    #expect(store.emitted == [1])
    // A new window opens afresh.
    let next = store.send(.tick(4, latest: true))
    #expect(store.emitted == [1, 4])
    next.cancel()
    await next.finish()
  }
}
