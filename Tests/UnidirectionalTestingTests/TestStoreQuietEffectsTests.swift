import Testing
import Unidirectional
import UnidirectionalTesting

/// Effects whose quiet the test store and the test clock must know, not guess: each runs on the
/// test store's executor, so a step ends when that executor has nothing left to run.
private struct Finding: Reducer {
  struct State: Equatable, Sendable {
    var values: [Int] = []
  }

  enum Action: Equatable, Sendable {
    case throttledInTask
    case value(Int)
    case startTimer
    case tick
    case listen
    case listenThenSleep
    case groupSleeps
    case actorCounts
    case tally
  }

  enum ID: Hashable, Sendable { case throttle, timer }

  @Dependency(\.continuousClock) var clock
  let values: AsyncStream<Int>

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
    case .listen:
      return .run { [values] send in
        for await value in values { await send(.value(value)) }
      }
    case .listenThenSleep:
      // Waits for the test first, and only then sleeps on the clock: `advance` must run the
      // effect up to its sleep before it moves time.
      return .run { [values] send in
        for await value in values {
          try await clock.sleep(for: .seconds(1))
          await send(.value(value))
        }
      }
    case .groupSleeps:
      return .run { send in
        await withTaskGroup(of: Int.self) { group in
          for seconds in [2, 1] {
            group.addTask {
              try? await clock.sleep(for: .seconds(seconds))
              return seconds
            }
          }
          for await seconds in group { await send(.value(seconds)) }
        }
      }
    case .tally:
      return .run { send in
        await send(.value(await SharedTally.shared.next()))
      }
    case .actorCounts:
      return .run { send in
        let counter = Counter()
        for _ in 0..<3 { await counter.increment() }
        async let doubled = counter.value * 2
        await send(.value(await doubled))
      }
    }
  }

  /// One actor for the whole process, as a shared service would be.
  actor SharedTally {
    static let shared = SharedTally()
    private var count = 0
    func next() -> Int {
      count += 1
      return count
    }
  }

  actor Counter {
    var value = 0
    func increment() { value += 1 }
  }
}

@Suite struct TestStoreQuietEffectsTests {
  let clock = TestClock()
  let stream = AsyncStream<Int>.makeStream()
  var values: AsyncStream<Int> { stream.stream }
  var feed: AsyncStream<Int>.Continuation { stream.continuation }

  fileprivate func makeStore() -> TestStore<Finding.State, Finding.Action> {
    let store = TestStore(initialState: Finding.State()) {
      Finding(values: values)
    } withDependencies: { [clock] in
      $0.continuousClock = clock
    }
    // Nothing here waits for work outside the executor: a step that did would fail.
    store.timeout = .zero
    return store
  }

  /// A throttle met inside a task: the step knows its window is asleep on the clock.
  @Test func aThrottleInsideATask() async {
    let store = makeStore()
    await store.send(.throttledInTask)
    await store.receive(.value(1)) { $0.values = [1] }
    await clock.advance(by: .seconds(1))
    await store.finish()
  }

  /// A timer on the test clock: each tick is run and reduced as the clock reaches it.
  @Test func aTimer() async {
    let store = makeStore()
    await store.send(.startTimer)
    await clock.advance(by: .seconds(3))
    await store.receive(.tick)
    await store.receive(.tick)
    await store.receive(.tick)
    await store.skipInFlightEffects()
    await store.finish()
  }

  /// A non-exhaustive test passes with a timer asleep on a test clock, and `finish()` does not
  /// wait for it: only the test could wake it.
  @Test func nonExhaustiveFinishDoesNotWaitForATimerAsleepOnATestClock() async {
    let store = makeStore()
    store.exhaustivity = .off
    // wall-clock: a failure bound; a passing run returns as soon as the executor is idle.
    store.timeout = .seconds(60)
    await store.send(.startTimer)
    await clock.advance(by: .seconds(2))
    await store.skipReceivedActions()
    await store.finish()
  }

  /// An effect that awaits a stream the test feeds: `receive` drains the executor, which runs
  /// the effect's next step at once.
  @Test func anEffectAwaitingAStreamTheTestFeeds() async {
    let store = makeStore()
    await store.send(.listen)
    for value in 1...3 {
      feed.yield(value)
      await store.receive(.value(value)) { $0.values.append(value) }
    }
    feed.finish()
    await store.finish()
  }

  /// The effect waits for the stream and then sleeps on the clock: `advance` first runs it up
  /// to its sleep (it failed every run when the clock only waited for stores already asleep).
  @Test func streamThenClock() async {
    let store = makeStore()
    await store.send(.listenThenSleep)
    feed.yield(7)
    await clock.advance(by: .seconds(1))
    await store.receive(.value(7)) { $0.values = [7] }
    feed.finish()
    await store.finish()
  }

  /// Task-group children sleep on the clock; each wake is drained before the next.
  @Test func taskGroupSleeps() async {
    let store = makeStore()
    await store.send(.groupSleeps)
    await clock.advance(by: .seconds(1))
    await store.receive(.value(1)) { $0.values = [1] }
    await clock.advance(by: .seconds(1))
    await store.receive(.value(2)) { $0.values = [1, 2] }
    await store.finish()
  }

  /// A default actor made by the effect runs its methods on the test store's executor.
  @Test func aDefaultActorInsideAnEffect() async {
    let store = makeStore()
    await store.send(.actorCounts)
    await store.receive(.value(6)) { $0.values = [6] }
    await store.finish()
  }

  /// Two test stores, in parallel, whose effects call one process-wide actor: a call may run
  /// on the other test store's executor (a default actor runs where its caller is), and comes
  /// back to its own as outside work, which `receive` waits for. Both pass, every time.
  @Test func twoTestStoresInParallelCallOneSharedActor() async {
    await withTaskGroup(of: [Int].self) { group in
      for _ in 0..<2 {
        group.addTask {
          let store = TestStore(initialState: Finding.State()) {
            Finding(values: AsyncStream { $0.finish() })
          }
          // wall-clock: a failure bound for the hop back from the other test store's
          // executor, outside this one; a passing run waits microseconds.
          store.timeout = .seconds(30)
          var tallies: [Int] = []
          for _ in 0..<200 {
            await store.send(.tally)
            await store.receive({ action in
              guard case .value(let tally) = action else { return false }
              tallies.append(tally)
              return true
            }) { $0.values.append(tallies.last ?? 0) }
          }
          await store.finish()
          return tallies
        }
      }
      var all: [Int] = []
      for await tallies in group {
        #expect(tallies == tallies.sorted())
        all += tallies
      }
      // Every call was answered once, to the store that made it.
      #expect(Set(all).count == 400)
    }
  }
}
