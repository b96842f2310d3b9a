import Foundation
import Synchronization
import Testing
import UnidirectionalTestSupport

@testable import Unidirectional

/// A step of a test clock waits for the effects it woke to be quiet. An effect task that is
/// active but makes no visible progress for the settle time (50 ms) is taken to wait on
/// something outside the store, unless the process was busy meanwhile: then the task may be
/// working, or ready to run and waiting for a processor, and the clock must not move on.
///
/// This is how the test store's parity property once failed under ThreadSanitizer, with the
/// stress suites running beside it: an effect's thread was held off the processor between two
/// sends for longer than the settle time, and the clock woke a later sleeper in between.
///
/// The limit on that wait is wall time, so these tests set it (`EffectActivity.busySettleLimit`)
/// rather than race it: with the other suites running beside them, a step's own task can wait
/// most of a second for a thread of the cooperative pool. For the same reason, the tests of a
/// busy process judge its windows busy themselves (`EffectActivity.windowReading`): on a shared
/// machine, other processes can hold the computing thread off the processors for a whole
/// window, which then reads idle (`ProcessorLoadTests` checks the reading).
@Suite struct TestClockSettlingTests {
  /// An effect's hold-up: computing on a thread of its own until released, or for 5 s at most
  /// (so that a step that never gives up fails the test, rather than leaving a processor
  /// spinning). The effect waits for that thread, so no thread of the cooperative pool is
  /// blocked and the clock's own task runs meanwhile, as it does when the effect's thread is
  /// preempted.
  final class Computation: Sendable {
    private let isReleased = Atomic<Bool>(false)

    /// Computes until `release()` is called, or for `duration` if that comes first.
    func run(for duration: Duration = .seconds(5)) async {
      let end = ContinuousClock.now.advanced(by: duration)
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        Thread { [self] in
          while !isReleased.load(ordering: .relaxed), ContinuousClock.now < end {}
          continuation.resume()
        }.start()
      }
    }

    /// Ends the computation.
    func release() { isReleased.store(true, ordering: .relaxed) }
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

  /// Checks that the clock moved on without `b`: waits for `a` and `c`, checks that `b` has not
  /// come, lets the held-up effect go on with `release`, and checks that `b` comes last.
  private func expectBLast(
    _ store: Store<[String], String>, once release: () -> Void
  ) async {
    await waitUntil(store) { $0.contains("a") && $0.contains("c") }
    #expect(store.state.sorted() == ["a", "c"])
    release()
    await waitUntil(store) { $0.count == 3 }
    #expect(store.state.sorted() == ["a", "b", "c"])
    #expect(store.state.last == "b")
  }

  /// Runs `body` with every settle window judged busy, and `limit` as the busy limit.
  private func judgingEveryWindowBusy(
    limit: Duration, _ body: () async -> Void
  ) async {
    await EffectActivity.$windowReading.withValue(.alwaysBusy) {
      await EffectActivity.$busySettleLimit.withValue(limit) { await body() }
    }
  }

  /// Waits (up to ten seconds of wall time) until the reduced actions satisfy `condition`.
  private func waitUntil(
    _ store: Store<[String], String>, _ condition: ([String]) -> Bool
  ) async {
    var waited = 0
    while !condition(store.state), waited < 10_000 {
      try? await Task.sleep(for: .milliseconds(1))
      waited += 1
    }
  }

  /// The effect computes for 1.3 s after sending `a`, in windows judged busy; the step that woke
  /// `a` waits for it, under a limit that no scheduling delay reaches (and that the default
  /// limit, 1 s, would not allow), so `b` comes before `c`. Were a busy window taken for a quiet
  /// one, the step would move on after 50 ms and `c` would come first.
  @Test(.timeLimit(.minutes(1)))
  func aStepWaitsForAnEffectHeldUpWhileTheProcessIsBusy() async {
    let clock = TestClock()
    let computation = Computation()
    defer { computation.release() }
    let store = Store(initialState: [String]()) {
      Stalled(clock: clock) { await computation.run(for: .milliseconds(1_300)) }
    }
    await judgingEveryWindowBusy(limit: .seconds(60)) {
      await advancePastBoth(clock, store)
    }
    #expect(store.state == ["a", "b", "c"])
  }

  /// A busy process is no reason to wait for good: the steps give up on the held-up effect once
  /// the limit has passed without a change, and wake `c` while it still computes. The
  /// computation is released only once `a` and `c` are in, so `b` comes last whatever the
  /// scheduling. With no limit, the first step would wait out the computation's 5 s, and `b`
  /// would come before `c`.
  @Test(.timeLimit(.minutes(1)))
  func aStepWaitsForABusyProcessUpToTheLimit() async {
    let clock = TestClock()
    let computation = Computation()
    defer { computation.release() }
    let store = Store(initialState: [String]()) {
      Stalled(clock: clock) { await computation.run() }
    }
    await judgingEveryWindowBusy(limit: .milliseconds(300)) {
      await advancePastBoth(clock, store)
    }
    await expectBLast(store, once: computation.release)
  }

  /// An effect that waits on something outside the store is left waiting, and time moves on
  /// (after 50 ms with an idle process, after the limit with a busy one): `b` comes last.
  @Test(.timeLimit(.minutes(1)))
  func aStepDoesNotWaitForAnEffectWaitingOutsideTheStore() async {
    let clock = TestClock()
    let outside = Gate()
    let store = Store(initialState: [String]()) {
      Stalled(clock: clock) { await outside.wait() }
    }
    await advancePastBoth(clock, store)
    await expectBLast(store, once: outside.open)
  }
}
