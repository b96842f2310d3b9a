import Foundation
import Testing
import Unidirectional
import UnidirectionalTestSupport

/// A step of a test clock waits for the effects it woke to be quiet. An effect task that is
/// active but makes no visible progress for the settle time (50 ms) is taken to wait on
/// something outside the store, unless the process kept the processor busy meanwhile: then the
/// task may be working, or waiting for a processor, and the clock must not move on.
///
/// This is how the test store's parity property once failed under ThreadSanitizer, with the
/// stress suites running beside it: an effect's thread was held off the processor between two
/// sends for longer than the settle time, and the clock woke a later sleeper in between.
@Suite struct TestClockSettlingTests {
  /// How an effect is held up between its two sends, for longer than the settle time. The
  /// effect waits for another thread, so that no thread of the cooperative pool is blocked and
  /// the clock's own task can run meanwhile, as it can when the effect's thread is preempted.
  enum Stall: CustomStringConvertible, CaseIterable {
    /// The thread the effect waits for computes.
    case waitingForAComputation
    /// The thread the effect waits for is off the processor while another thread of the process
    /// computes: what a preempted thread looks like to the store on a loaded machine.
    case preempted

    var description: String {
      switch self {
      case .waitingForAComputation: "waiting for a computation"
      case .preempted: "preempted"
      }
    }

    /// Returns after `duration`, spent on other threads.
    func holdUp(for duration: Duration) async {
      let end = ContinuousClock.now.advanced(by: duration)
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let worker = Thread { [self] in
          switch self {
          case .waitingForAComputation:
            while ContinuousClock.now < end {}
          case .preempted:
            Thread { while ContinuousClock.now < end {} }.start()
            Thread.sleep(until: Date().addingTimeInterval(Self.seconds(duration)))
          }
          continuation.resume()
        }
        worker.start()
      }
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
      let (seconds, attoseconds) = duration.components
      return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
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

  @Test(arguments: Stall.allCases)
  func aStepWaitsForAnEffectHeldUpWhileTheProcessIsBusy(stall: Stall) async {
    let clock = TestClock()
    let store = Store(initialState: [String]()) {
      Stalled(clock: clock) { await stall.holdUp(for: .milliseconds(200)) }
    }
    store.send("start")
    await clock.waitForSleepers(count: 2)
    await clock.advance(by: .seconds(2))
    #expect(store.state == ["a", "b", "c"], "held up by \(stall)")
  }

  /// The rule above is no reason to wait for good: an effect that waits on something outside
  /// the store is left waiting, and time moves on (after 50 ms if the process is idle, at most
  /// a second if it is busy).
  @Test func aStepDoesNotWaitForAnEffectWaitingOutsideTheStore() async {
    let clock = TestClock()
    let outside = Gate()
    let store = Store(initialState: [String]()) {
      Stalled(clock: clock) { await outside.wait() }
    }
    store.send("start")
    await clock.waitForSleepers(count: 2)
    await clock.advance(by: .seconds(2))
    #expect(store.state == ["a", "c"])
    outside.open()
    var waited = 0
    while store.state.count < 3, waited < 2_000 {
      try? await Task.sleep(for: .milliseconds(1))
      waited += 1
    }
    #expect(store.state == ["a", "c", "b"])
  }
}
