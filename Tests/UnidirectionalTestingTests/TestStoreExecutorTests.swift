import Testing
import Unidirectional
import UnidirectionalTestSupport
import UnidirectionalTesting

/// What the test store's executor means for failures and for the end of a test: messages that
/// say what to do next, and a release that never blocks nor leaks.
@Suite struct TestStoreExecutorTests {
  /// A timer on a test clock, and an effect that waits on a gate outside the executor.
  struct Waiting: Reducer {
    enum Action: Equatable, Sendable {
      case sleep
      case waitForGate
      case woke
      case listen
      case got(Int)
    }
    let clock: TestClock
    let gate: Gate
    let ended: Gate
    var values = AsyncStream<Int> { $0.finish() }

    func reduce(into state: inout Int, action: Action) -> Effect<Action> {
      switch action {
      case .sleep:
        return .run { [clock] send in
          try await clock.sleep(for: .seconds(1))
          await send(.woke)
        }
      case .waitForGate:
        return .run { [gate, ended] _ in
          await gate.wait()
          ended.open()
        }
      case .woke:
        state += 1
        return .none
      case .listen:
        return .run { [values] send in
          for await value in values { await send(.got(value)) }
        }
      case .got(let value):
        state = value
        return .none
      }
    }
  }

  let clock = TestClock()
  let gate = Gate()
  let ended = Gate()

  func makeStore() -> TestStore<Int, Waiting.Action> {
    TestStore(initialState: 0) { Waiting(clock: clock, gate: gate, ended: ended) }
  }

  /// A `receive` that times out while an effect sleeps on a test clock says to advance it.
  @Test func aReceiveWhileAnEffectSleepsOnATestClockSaysToAdvanceIt() async {
    let failures = await recordedFailures {
      let store = makeStore()
      store.timeout = .zero
      await store.send(.sleep)
      await store.receive(.woke) { $0 = 1 }
      await store.skipInFlightEffects()
    }
    #expect(
      failures.first?.headline
        == "Expected to receive an action, but none arrived within 0.0 seconds:")
    #expect(
      failures.first?.message.contains(
        "1 effect task(s) are asleep on a TestClock: only the test can wake them, by advancing the clock."
      ) == true)
  }

  /// The same step passes once the test advances the clock: the clock drains the executor.
  @Test func advancingTheClockRunsTheEffect() async {
    let store = makeStore()
    store.timeout = .zero
    await store.send(.sleep)
    await clock.advance(by: .seconds(1))
    await store.receive(.woke) { $0 = 1 }
    await store.finish()
  }

  /// An effect waiting outside the executor is named as such when the test ends.
  @Test func anEffectWaitingOutsideTheExecutorIsNamedAtTheEnd() async {
    let failures = await recordedFailures {
      let store = makeStore()
      await store.send(.waitForGate)
      await store.finish(timeout: .zero)  // wall-clock: zero: no wait at all.
    }
    #expect(failures.count == 1)
    #expect(
      failures.first?.message.contains("No effect is asleep on a TestClock: they wait for work")
        == true)
    gate.open()
  }

  /// A test store released with an effect still waiting does not block; the effect, cancelled
  /// as the store goes, ends by itself on the global executor once its gate opens.
  ///
  /// The limit only stops a hang: the effect's last job waits for a thread of the global pool,
  /// which the other suites share, and a loaded run once kept both threads of a two-core
  /// machine busy for over a minute.
  @Test(.timeLimit(.minutes(5)))
  func aReleasedTestStoreHandsWhatIsLeftToTheGlobalExecutor() async {
    do {
      let store = makeStore()
      store.exhaustivity = .off
      await store.send(.waitForGate)
    }
    gate.open()
    await ended.wait()  // Never returns if the effect was left queued on the executor.
  }

  /// Nothing but a step drains the test store's executor: the test store's own bookkeeping of
  /// running effects waits without draining (it once drained from a background task, so jobs
  /// ran between steps, whenever that task woke).
  @Test func nothingDrainsTheExecutorBetweenSteps() async {
    let (values, feed) = AsyncStream<Int>.makeStream()
    var feature = Waiting(clock: clock, gate: gate, ended: ended)
    feature.values = values
    let store = TestStore(initialState: 0) { feature }
    await store.send(.listen)
    feed.yield(7)
    // wall-clock: a window in which a stray drain would show itself. No run passes because of
    // it: a correct one leaves the job queued whatever the time; a slow run can only miss the bug.
    for _ in 0..<100 where store.state == 0 {
      try? await Task.sleep(for: .milliseconds(1))
    }
    #expect(store.state == 0)
    #expect(store.effectExecutor.hasQueuedJobs)
    await store.receive(.got(7)) { $0 = 7 }
    feed.finish()
    await store.finish()
  }
}
