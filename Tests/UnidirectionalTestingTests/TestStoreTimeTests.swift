import Testing
import Unidirectional
import UnidirectionalTesting

/// A feature with a timer, a debounced search and a throttled counter, all on the
/// `continuousClock` dependency.
private struct Clocked: Reducer {
  struct State: Equatable, Sendable {
    var ticks = 0
    var query = ""
    var results: [String] = []
    var throttled: [Int] = []
  }

  enum Action: Equatable, Sendable {
    case startTimer
    case stopTimer
    case tick
    case queryChanged(String)
    case searchResponse([String])
    case bump(Int)
    case bumped(Int)
  }

  enum ID: Hashable, Sendable { case timer, search, bump }

  @Dependency(\.continuousClock) var clock

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .startTimer:
      return .run { send in
        while true {
          try await clock.sleep(for: .seconds(1))
          await send(.tick)
        }
      }
      .cancellable(id: ID.timer)
    case .stopTimer:
      return .cancel(id: ID.timer)
    case .tick:
      state.ticks += 1
      return .none
    case .queryChanged(let query):
      state.query = query
      return .run { send in await send(.searchResponse([query + "!"])) }
        .debounce(id: ID.search, for: .milliseconds(300), clock: clock)
    case .searchResponse(let results):
      state.results = results
      return .none
    case .bump(let value):
      return .send(.bumped(value)).throttle(
        id: ID.bump, for: .seconds(1), clock: clock, latest: true)
    case .bumped(let value):
      state.throttled.append(value)
      return .none
    }
  }
}

/// Timers, debounce and throttle on a test clock. Every store runs with a timeout of zero: the
/// clock drains the test store's executor, so no step ever waits on the wall clock.
@Suite struct TestStoreTimeTests {
  let clock = TestClock()

  fileprivate func makeStore() -> TestStore<Clocked.State, Clocked.Action> {
    let store = TestStore(initialState: Clocked.State()) {
      Clocked()
    } withDependencies: { [clock] in
      $0.continuousClock = clock
    }
    store.timeout = .zero
    return store
  }

  @Test func aTimerAdvancedByFivePeriodsTicksFiveTimes() async {
    let store = makeStore()
    await store.send(.startTimer)
    await clock.advance(by: .seconds(5))
    for ticks in 1...5 {
      await store.receive(.tick) { $0.ticks = ticks }
    }
    await store.send(.stopTimer)
    await store.finish()
  }

  @Test func aTimerAdvancedPeriodByPeriod() async {
    let store = makeStore()
    await store.send(.startTimer)
    await clock.advance(by: .milliseconds(999))
    await clock.advance(by: .milliseconds(1))
    await store.receive(.tick) { $0.ticks = 1 }
    await clock.advance(by: .seconds(1))
    await store.receive(.tick) { $0.ticks = 2 }
    await store.send(.stopTimer)
    await store.finish()
  }

  @Test func debounceSendsOnlyTheLastQueryOfABurst() async {
    let store = makeStore()
    await store.send(.queryChanged("s")) { $0.query = "s" }
    await clock.advance(by: .milliseconds(200))
    await store.send(.queryChanged("sw")) { $0.query = "sw" }
    await clock.advance(by: .milliseconds(299))
    await store.send(.queryChanged("swi")) { $0.query = "swi" }
    await clock.advance(by: .milliseconds(300))
    await store.receive(.searchResponse(["swi!"])) { $0.results = ["swi!"] }
    await store.finish()
  }

  @Test func throttleSendsTheFirstAtOnceAndTheLatestAtTheWindowsEnd() async {
    let store = makeStore()
    await store.send(.bump(1))
    await store.receive(.bumped(1)) { $0.throttled = [1] }
    await store.send(.bump(2))
    await store.send(.bump(3))
    await clock.advance(by: .seconds(1))
    await store.receive(.bumped(3)) { $0.throttled = [1, 3] }
    // The window the latest opened ends with nothing kept.
    await clock.advance(by: .seconds(1))
    await store.finish()
  }

  @Test func runDrainsEverythingScheduled() async {
    let store = makeStore()
    await store.send(.queryChanged("a")) { $0.query = "a" }
    await store.send(.bump(1))
    await store.receive(.bumped(1)) { $0.throttled = [1] }
    await clock.run()
    await store.receive(.searchResponse(["a!"])) { $0.results = ["a!"] }
    await store.finish()
  }

  @Test func anImmediateClockMakesWaitsVanish() async {
    let store = TestStore(initialState: Clocked.State()) {
      Clocked()
    } withDependencies: {
      $0.continuousClock = ImmediateClock()
    }
    store.timeout = .zero
    await store.send(.queryChanged("now")) { $0.query = "now" }
    await store.receive(.searchResponse(["now!"])) { $0.results = ["now!"] }
    await store.finish()
  }
}
