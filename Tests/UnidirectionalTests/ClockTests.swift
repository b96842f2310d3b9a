import Testing
import Unidirectional
import UnidirectionalTestSupport

@Suite struct ClockTests {
  @Test func testClockWakesSleepersWhenAdvancedInDeadlineOrder() async throws {
    let clock = TestClock()
    let woke = Log<String>()
    let late = Task {
      try await clock.sleep(for: .seconds(2))
      woke.append("2s")
    }
    let early = Task {
      try await clock.sleep(for: .seconds(1))
      woke.append("1s")
    }
    await clock.waitForSleepers(count: 2)
    await clock.advance(by: .milliseconds(999))
    #expect(clock.sleeperCount == 2)
    await clock.advance(by: .milliseconds(1))
    try await early.value
    #expect(woke.values == ["1s"])
    #expect(clock.sleeperCount == 1)
    await clock.advance(by: .seconds(1))
    try await late.value
    #expect(woke.values == ["1s", "2s"])
    #expect(clock.now.offset == .seconds(2))
  }

  @Test func cancellingASleeperWakesItWithCancellationError() async {
    let clock = TestClock()
    let sleeper = Task { try await clock.sleep(for: .seconds(60)) }
    await clock.waitForSleepers(count: 1)
    sleeper.cancel()
    let result = await sleeper.result
    #expect(throws: CancellationError.self) { try result.get() }
    #expect(clock.sleeperCount == 0)
  }

  @Test func sleepingUntilThePastReturnsAtOnce() async throws {
    let clock = TestClock()
    await clock.advance(by: .seconds(5))
    try await clock.sleep(until: clock.now.advanced(by: .seconds(-1)))
    #expect(clock.now.offset == .seconds(5))
  }

  @Test func runWakesEveryone() async throws {
    let clock = TestClock()
    let tasks = (1...3).map { seconds in
      Task { try await clock.sleep(for: .seconds(seconds)) }
    }
    await clock.waitForSleepers(count: 3)
    await clock.run()
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
      Store(initialState: 0) { Timer() }
    }
    let task = store.send(true)
    for tick in 1...3 {
      await clock.waitForSleepers(count: 1)
      #expect(store.state == tick - 1)
      await clock.advance(by: .seconds(1))
    }
    await task.finish()
    #expect(store.state == 3)
  }
}
