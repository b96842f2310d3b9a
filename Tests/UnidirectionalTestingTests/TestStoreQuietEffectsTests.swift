import Testing
import Unidirectional
import UnidirectionalTesting

/// Effects whose quiet the test store and the test clock must see exactly (each test failed
/// before its fix: found in review).
private struct Finding: Reducer {
  struct State: Equatable, Sendable {
    var values: [Int] = []
  }

  enum Action: Equatable, Sendable {
    case throttledInTask
    case value(Int)
    case startTimer
    case tick
  }

  enum ID: Hashable, Sendable { case throttle, timer }

  @Dependency(\.continuousClock) var clock

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .throttledInTask:
      // A throttle that is part of an effect running in a task (here the second part of a
      // concatenation, as `.throttle(...).debounce(...)` also makes).
      return .concatenate(
        .run { _ in },
        Effect.send(.value(1)).throttle(
          id: ID.throttle, for: .seconds(1), clock: clock, latest: true)
      )
    case .value(let value):
      state.values.append(value)
      return .none
    case .startTimer:
      return .run { send in
        while true {
          try await clock.sleep(for: .seconds(1))
          await send(.tick)
        }
      }
      .cancellable(id: ID.timer)
    case .tick:
      return .none
    }
  }
}

@Suite struct TestStoreQuietEffectsTests {
  let clock = TestClock()

  fileprivate func makeStore() -> TestStore<Finding.State, Finding.Action> {
    TestStore(initialState: Finding.State()) {
      Finding()
    } withDependencies: { [clock] in
      $0.continuousClock = clock
    }
  }

  /// `EffectRuntime.perform` runs a `.throttle` met inside a task through `startSynchronously`
  /// with a join, but `startThrottled` spawns the window (and the inner effect) without it, so
  /// the waiting parent is never counted as parked: the activity never reads quiet while the
  /// window sleeps on the test clock, and `send` (and every `advance` step) pays the 50 ms
  /// settle time.
  @Test func sendReturnsWithoutTheSettleDelayWhenAThrottleInsideATaskSleeps() async {
    // A wall-clock measure: the bug made every attempt wait the 50 ms settle time, while a
    // loaded machine can delay one attempt; the best of three is checked.
    var best = Duration.seconds(1)
    for _ in 0..<3 {
      let store = makeStore()
      let start = ContinuousClock.now
      await store.send(.throttledInTask)
      best = min(best, ContinuousClock.now - start)
      await store.receive(.value(1)) { $0.values = [1] }
      await clock.advance(by: .seconds(1))
      await store.finish()
    }
    #expect(best < .milliseconds(40), "send waited \(best): the activity never read quiet")
  }

  /// A non-exhaustive test passes with a timer still parked on a test clock, yet `finish()`
  /// waits the whole `timeout` of wall time before cancelling it: nothing can change while every
  /// effect is parked on a test clock. (`timeout` docs: "passing tests never wait for it".)
  @Test func nonExhaustiveFinishDoesNotWaitTheTimeoutForATimerParkedOnATestClock() async {
    let store = makeStore()
    store.exhaustivity = .off
    await store.send(.startTimer)
    let start = ContinuousClock.now
    await store.finish()
    let elapsed = ContinuousClock.now - start
    #expect(elapsed < .milliseconds(500), "finish waited \(elapsed)")
  }
}
