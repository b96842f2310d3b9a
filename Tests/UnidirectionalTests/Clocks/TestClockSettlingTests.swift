import Foundation
import Testing
import Unidirectional
import UnidirectionalTestSupport

/// A step of a test clock waits for the effects it woke to be quiet. An effect task that is
/// active but makes no visible progress for the settle time (50 ms) is taken to wait on
/// something outside the store, unless the process was busy meanwhile: then the task may be
/// working, or ready to run and waiting for a processor, and the clock must not move on.
///
/// This is how the test store's parity property once failed under ThreadSanitizer, with the
/// stress suites running beside it: an effect's thread was held off the processor between two
/// sends for longer than the settle time, and the clock woke a later sleeper in between.
@Suite struct TestClockSettlingTests {
  /// Returns after `duration`, spent computing on a thread of its own: the effect waits for
  /// another thread, so that no thread of the cooperative pool is blocked and the clock's own
  /// task runs meanwhile, as it does when the effect's thread is preempted.
  static func waitForAComputation(of duration: Duration) async {
    let end = ContinuousClock.now.advanced(by: duration)
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      Thread {
        while ContinuousClock.now < end {}
        continuation.resume()
      }.start()
    }
  }

  /// Two effects: the first wakes at 1 s and sends `a`, is held up, then sends `b`; the second
  /// wakes at 2 s and sends `c`.
  struct Stalled: Reducer {
    let clock: TestClock
    let holdUp: @Sendable () async -> Void

    func reduce(into state: inout [String], action: String) -> Effect<String> {
      guard action == "start" else {
        state.append(action)
        return .none
      }
      return .merge(
        .run { [clock, holdUp] send in
          try await clock.sleep(for: .seconds(1))
          await send("a")
          await holdUp()
          await send("b")
        },
        .run { [clock] send in
          try await clock.sleep(for: .seconds(2))
          await send("c")
        })
    }
  }

  /// Starts both effects of `Stalled`, and advances `clock` past their sleeps.
  private func advancePastBoth(_ clock: TestClock, _ store: Store<[String], String>) async {
    store.send("start")
    await clock.waitForSleepers(count: 2)
    await clock.advance(by: .seconds(2))
  }

  /// Waits (up to two seconds of wall time) until all three actions are reduced.
  private func waitForAllThree(_ store: Store<[String], String>) async {
    var waited = 0
    while store.state.count < 3, waited < 2_000 {
      try? await Task.sleep(for: .milliseconds(1))
      waited += 1
    }
  }

  @Test func aStepWaitsForAnEffectHeldUpWhileTheProcessIsBusy() async {
    let clock = TestClock()
    let store = Store(initialState: [String]()) {
      Stalled(clock: clock) {
        await TestClockSettlingTests.waitForAComputation(of: .milliseconds(200))
      }
    }
    await advancePastBoth(clock, store)
    #expect(store.state == ["a", "b", "c"])
  }

  /// A busy process is no reason to wait for good: the step that wakes `a` gives up on the
  /// held-up effect once about a second has passed without a change, and wakes `c` before the
  /// effect sends `b`. (The step that wakes `c` then waits for the effect again, and sees `b`.)
  @Test func aStepWaitsForABusyProcessForASecondAtMost() async {
    let clock = TestClock()
    let store = Store(initialState: [String]()) {
      Stalled(clock: clock) {
        await TestClockSettlingTests.waitForAComputation(of: .milliseconds(1_800))
      }
    }
    await advancePastBoth(clock, store)
    await waitForAllThree(store)
    #expect(store.state == ["a", "c", "b"])
  }

  /// An effect that waits on something outside the store is left waiting, and time moves on
  /// (after 50 ms with an idle process).
  @Test(.timeLimit(.minutes(1)))
  func aStepDoesNotWaitForAnEffectWaitingOutsideTheStore() async {
    let clock = TestClock()
    let outside = Gate()
    let store = Store(initialState: [String]()) {
      Stalled(clock: clock) { await outside.wait() }
    }
    await advancePastBoth(clock, store)
    #expect(store.state == ["a", "c"])
    outside.open()
    await waitForAllThree(store)
    #expect(store.state == ["a", "c", "b"])
  }
}
