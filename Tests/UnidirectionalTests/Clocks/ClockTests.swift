import Testing
import Unidirectional
import UnidirectionalTestSupport

@Suite struct ClockTests {
  /// Sleepers on a test executor attached to the clock: `drain()` runs them up to their
  /// sleeps, so the test knows they sleep, and each step of the clock drains them again.
  let executor = TestExecutor()

  func makeClock() -> TestClock {
    let clock = TestClock()
    clock.attach(executor)
    return clock
  }

  @Test func testClockWakesSleepersWhenAdvancedInDeadlineOrder() async throws {
    let clock = makeClock()
    let woke = Log<String>()
    let late = Task(executorPreference: executor) {
      try await clock.sleep(for: .seconds(2))
      woke.append("2s")
    }
    let early = Task(executorPreference: executor) {
      try await clock.sleep(for: .seconds(1))
      woke.append("1s")
    }
    executor.drain()
    #expect(clock.sleeperCount == 2)
    await clock.advance(by: .milliseconds(999))
    #expect(clock.sleeperCount == 2)
    await clock.advance(by: .milliseconds(1))
    #expect(woke.values == ["1s"])
    #expect(clock.sleeperCount == 1)
    await clock.advance(by: .seconds(1))
    #expect(woke.values == ["1s", "2s"])
    #expect(clock.now.offset == .seconds(2))
    try await early.value
    try await late.value
  }

  @Test func cancellingASleeperWakesItWithCancellationError() async {
    let clock = makeClock()
    let sleeper = Task(executorPreference: executor) { try await clock.sleep(for: .seconds(60)) }
    executor.drain()
    #expect(clock.sleeperCount == 1)
    sleeper.cancel()
    #expect(clock.sleeperCount == 0)
    executor.drain()
    let result = await sleeper.result
    #expect(throws: CancellationError.self) { try result.get() }
  }

  @Test func sleepingUntilThePastReturnsAtOnce() async throws {
    let clock = TestClock()
    await clock.advance(by: .seconds(5))
    try await clock.sleep(until: clock.now.advanced(by: .seconds(-1)))
    #expect(clock.now.offset == .seconds(5))
  }

  @Test func runWakesEveryone() async throws {
    let clock = makeClock()
    let woke = Log<Int>()
    let tasks = (1...3).map { seconds in
      Task(executorPreference: executor) {
        try await clock.sleep(for: .seconds(seconds))
        woke.append(seconds)
      }
    }
    executor.drain()
    await clock.run()
    #expect(woke.values == [1, 2, 3])
    for task in tasks { try await task.value }
    #expect(clock.now.offset == .seconds(3))
  }

  @Test func immediateClockReturnsAtOnceAndKeepsTime() async throws {
    let clock = ImmediateClock()
    try await clock.sleep(for: .seconds(10))
    try await clock.sleep(for: .seconds(5))
    #expect(clock.now.offset == .seconds(15))
    let cancelled = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      try await clock.sleep(for: .seconds(1))
    }
    await #expect(throws: CancellationError.self) { try await cancelled.value }
  }

  @Test func aTimerEffectDrivenByATestClock() async {
    struct Timer: Reducer {
      @Dependency(\.continuousClock) var clock
      func reduce(into state: inout Int, action: Bool) -> Effect<Bool> {
        guard action else {
          state += 1
          return .none
        }
        return .run { send in
          for _ in 0..<3 {
            try await clock.sleep(for: .seconds(1))
            await send(false)
          }
        }
      }
    }
    let clock = TestClock()
    let store = withDependencies {
      $0.continuousClock = clock
    } operation: {
      Store(initialState: 0, effectExecutor: executor) { Timer() }
    }
    let task = store.send(true)
    executor.drain()
    for tick in 1...3 {
      #expect(clock.sleeperCount == 1)
      #expect(store.state == tick - 1)
      await clock.advance(by: .seconds(1))
    }
    #expect(store.state == 3)
    await task.finish()
  }
}

/// A timer that ticks every second until stopped, and a tick that starts an effect of its own:
/// what a test clock must step through one deadline at a time.
private struct Metronome: Reducer {
  struct State: Equatable, Sendable {
    var ticks: [Duration] = []
    var echoes: [Duration] = []
  }
  enum Action: Sendable {
    case start
    case stop
    case tick
    case echo(Duration)
  }
  struct TimerID: Hashable, Sendable {}
  let clock: TestClock

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
    case .tick:
      state.ticks.append(clock.now.offset)
      // An effect started by the tick: it must run before the clock moves on.
      return .run { [clock] send in await send(.echo(clock.now.offset)) }
    case .echo(let time):
      state.echoes.append(time)
      return .none
    }
  }
}

@Suite struct TestClockSteppingTests {
  /// The stores' effects and the sleepers run here; the clock drains it at every step.
  let executor = TestExecutor()

  @Test func aRepeatingTimerAdvancedByFivePeriodsTicksFiveTimes() async {
    let clock = TestClock()
    let store = Store(initialState: Metronome.State(), effectExecutor: executor) {
      Metronome(clock: clock)
    }
    store.send(.start)
    executor.drain()
    await clock.advance(by: .seconds(5))
    let seconds = (1...5).map { Duration.seconds($0) }
    #expect(store.state.ticks == seconds)
    // Each tick's own effect ran at the tick's time, before the clock moved on.
    #expect(store.state.echoes == seconds)
    #expect(clock.now.offset == .seconds(5))
    await store.send(.stop).finish()
  }

  @Test func advancingBetweenDeadlinesMovesTimeWithoutWaking() async {
    let clock = TestClock()
    let store = Store(initialState: Metronome.State(), effectExecutor: executor) {
      Metronome(clock: clock)
    }
    store.send(.start)
    executor.drain()
    await clock.advance(by: .milliseconds(2500))
    #expect(store.state.ticks == [.seconds(1), .seconds(2)])
    await clock.advance(by: .milliseconds(500))
    #expect(store.state.ticks == [.seconds(1), .seconds(2), .seconds(3)])
    await store.send(.stop).finish()
  }

  @Test func sleepersWakeOneAtATimeInDeadlineOrder() async throws {
    let clock = TestClock()
    let woke = Log<String>()
    // The second sleeper, once woken, sleeps again to a deadline before the third's: stepping
    // must wake it in between.
    clock.attach(executor)
    let first = Task(executorPreference: executor) {
      try await clock.sleep(for: .seconds(1))
      woke.append("1")
      try await clock.sleep(for: .seconds(1))
      woke.append("2")
    }
    let third = Task(executorPreference: executor) {
      try await clock.sleep(for: .seconds(3))
      woke.append("3")
    }
    executor.drain()
    await clock.advance(by: .seconds(3))
    try await first.value
    try await third.value
    #expect(woke.values == ["1", "2", "3"])
  }

  @Test func runDrainsSleepsScheduledWhileItRuns() async {
    struct Countdown: Reducer {
      let clock: TestClock
      func reduce(into state: inout Int, action: Int) -> Effect<Int> {
        state = action
        guard action > 0 else { return .none }
        return .run { send in
          try await clock.sleep(for: .seconds(1))
          await send(action - 1)
        }
      }
    }
    let clock = TestClock()
    let store = Store(initialState: -1, effectExecutor: executor) { Countdown(clock: clock) }
    let task = store.send(3)
    executor.drain()
    await clock.run()
    await task.finish()
    #expect(store.state == 0)
    #expect(clock.now.offset == .seconds(3))
  }

  /// `run` stops a schedule only by the count of its wakes, never by wall time: a short
  /// schedule runs to its end however slow the machine is.
  @Test func runWakesAShortScheduleToTheEnd() async throws {
    let clock = TestClock()
    clock.attach(executor)
    let tasks = (1...3).map { seconds in
      Task(executorPreference: executor) { try await clock.sleep(for: .seconds(seconds)) }
    }
    executor.drain()
    let issues = Log<String>()
    await withDependencies {
      $0.reportIssue = { issues.append($0) }
    } operation: {
      await clock.run(limit: 3)
    }
    #expect(issues.values.isEmpty)
    #expect(clock.sleeperCount == 0)
    #expect(clock.now.offset == .seconds(3))
    for task in tasks { try await task.value }
  }

  @Test func runGivesUpOnATimerThatNeverStops() async {
    let clock = TestClock()
    let store = Store(initialState: Metronome.State(), effectExecutor: executor) {
      Metronome(clock: clock)
    }
    store.send(.start)
    executor.drain()
    let issues = Log<String>()
    await withDependencies {
      $0.reportIssue = { issues.append($0) }
    } operation: {
      await clock.run(limit: 50)
    }
    #expect(issues.values.count == 1)
    #expect(issues.values.first?.hasPrefix("TestClock.run() stopped after waking 50 ") == true)
    #expect(store.state.ticks.count == 50)  // Exactly the limit: a count, not a time.
    await store.send(.stop).finish()
  }
}

@Suite struct TestClockCancellationTests {
  /// A task cancelled between its cancellation check and the sleeper's registration must still
  /// wake: the cancellation handler runs before there is a sleeper to find.
  @Test func aSleepCancelledAsItBeginsAlwaysEnds() async {
    let clock = TestClock()
    var hung = 0
    for attempt in 0..<1_000 {
      let ended = Locked(false)
      let sleeper = Task {
        defer { ended.withLock { $0 = true } }
        try await clock.sleep(for: .seconds(1))
      }
      // Cancel at slightly different moments, from another thread.
      Task.detached {
        for _ in 0..<(attempt % 4) { await Task.yield() }
        sleeper.cancel()
      }
      // A cancelled sleep ends at once; a sleep the bug left registered never ends.
      // wall-clock: a failure bound of a second; a passing run stops looking once it ended.
      var waited = 0
      while !ended.withLock({ $0 }), waited < 1_000 {
        try? await Task.sleep(for: .milliseconds(1))  // wall-clock: polls the bound above.
        waited += 1
      }
      if !ended.withLock({ $0 }) {
        hung += 1
        await clock.advance(by: .seconds(1))  // Frees it, so the test ends.
      }
      _ = await sleeper.result
    }
    #expect(hung == 0)
    #expect(clock.sleeperCount == 0)
  }
}
