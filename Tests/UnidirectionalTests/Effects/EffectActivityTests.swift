import Synchronization
import Testing
import UnidirectionalTestSupport

@testable import Unidirectional

/// A counted task that the activity made runnable (created, woken by a test clock, or handed
/// the count of its last child) waits for a thread, not for anything outside the store: a wait
/// for quiet effects goes on waiting for it, however long the cooperative pool keeps it waiting.
///
/// This is how the test store's parity property failed under ThreadSanitizer, with the heavy
/// suites keeping both threads of the pool busy: a merge's last child ended, and its parent
/// (which was to send the next action, and start an effect that sleeps) waited for a thread for
/// longer than the busy limit; the clock moved past that sleep's deadline first.
@Suite struct EffectActivityTests {
  /// Whether a wait for quiet effects has returned.
  final class Finished: Sendable {
    private let flag = Atomic<Bool>(false)
    var value: Bool { flag.load(ordering: .acquiring) }
    func set() { flag.store(true, ordering: .releasing) }
  }

  /// Starts a wait for `activity` to be quiet, with a busy limit far below the time the tests
  /// give it, so that only the waking rule can keep it waiting that long.
  private func startWaiting(on activity: EffectActivity) -> (Task<Void, Never>, Finished) {
    let finished = Finished()
    let task = Task {
      await EffectActivity.$busySettleLimit.withValue(.milliseconds(100)) {
        await activity.waitUntilQuiet()
      }
      finished.set()
    }
    return (task, finished)
  }

  private static let origin = EffectOrigin(task: 1, childTask: nil, site: nil)

  @Test(.timeLimit(.minutes(1)))
  func aWaitGoesOnWhileACreatedTaskHasNotStarted() async throws {
    let activity = EffectActivity()
    activity.taskBegan()
    let (waiter, finished) = startWaiting(on: activity)
    // Far past the settle time and the busy limit: only the task not having run explains a
    // wait still going on.
    try await Task.sleep(for: .milliseconds(400))
    #expect(!finished.value)
    // The task runs, then sleeps on a clock: the effects are quiet.
    activity.woke()
    activity.parked()
    await waiter.value
    #expect(finished.value)
    #expect(activity.wakingCount == 0)
  }

  @Test(.timeLimit(.minutes(1)))
  func aWaitGoesOnWhileAParentHandedItsLastChildsCountHasNotRun() async throws {
    let activity = EffectActivity()
    activity.taskBegan()
    activity.woke()
    let join = EffectActivity.Join(activity)
    join.childBegan()
    activity.woke()
    // The parent waits for its child; its return from that wait is held up by `resumption`,
    // as a thread of the pool would hold it up.
    let resumption = Gate()
    let parent = Task {
      await join.wait { await resumption.wait() }
      // The parent goes on to sleep on a clock.
      activity.parked()
    }
    while resumption.waiterCount == 0 { await Task.yield() }
    join.childEnded()
    #expect(activity.wakingCount == 1)
    let (waiter, finished) = startWaiting(on: activity)
    try await Task.sleep(for: .milliseconds(400))
    #expect(!finished.value)
    resumption.open()
    await parent.value
    await waiter.value
    #expect(finished.value)
    #expect(activity.wakingCount == 0)
  }

  /// Every way a store's effects make tasks runnable (started, merged, made cancellable and
  /// cancelled, woken by a clock, or sleeping until an instant already past) leaves nothing
  /// waking once they end: a count left behind would hold every later wait up for 10 s.
  @Test(.timeLimit(.minutes(1)))
  func aStoresEffectsLeaveNothingWakingOnceTheyEnd() async {
    struct Feature: Reducer {
      let clock: TestClock
      func reduce(into state: inout [String], action: String) -> Effect<String> {
        state.append(action)
        guard action == "start" else {
          return action == "cancel" ? .cancel(id: "held") : .none
        }
        return .merge(
          .run { [clock] send in
            try await clock.sleep(for: .seconds(1))
            await send("slept")
          },
          .run { [clock] send in
            // A deadline already reached: the sleep returns without parking.
            try await clock.sleep(until: clock.now)
            await send("past")
          },
          .run { [clock] _ in try await clock.sleep(for: .seconds(60)) }
            .cancellable(id: "held"),
          .concatenate(
            .merge(
              .run { [clock] _ in try await clock.sleep(for: .seconds(1)) },
              .run { [clock] _ in try await clock.sleep(for: .seconds(2)) }),
            .send("merged")))
      }
    }
    let clock = TestClock()
    let store = Store(initialState: [String]()) { Feature(clock: clock) }
    store.send("start")
    await clock.waitForSleepers(count: 4)
    store.send("cancel")
    await clock.advance(by: .seconds(2))
    await store.waitForQuietEffects()
    #expect(store.runningEffectCount == 0)
    #expect(store.effects.activity.taskCount == 0)
    #expect(store.effects.activity.wakingCount == 0)
    #expect(Set(store.state) == ["start", "past", "cancel", "slept", "merged"])
  }

  /// A clock's wake and a cancellation each make a parked sleeper waking once, and its sleep
  /// returning (or throwing) ends that, so nothing is left waking to hold later waits up.
  @Test(.timeLimit(.minutes(1)))
  func aSleepOnATestClockLeavesNothingWaking() async {
    let activity = EffectActivity()
    let clock = TestClock()
    func sleeper(for duration: Duration) -> Task<Void, Never> {
      activity.taskBegan()
      return Task {
        await activity.runCounted(origin: Self.origin) {
          try? await clock.sleep(for: duration)
        }
        activity.taskEnded()
      }
    }
    let woken = sleeper(for: .seconds(1))
    let cancelled = sleeper(for: .seconds(5))
    await clock.waitForSleepers(count: 2)
    #expect(activity.wakingCount == 0)
    cancelled.cancel()
    await cancelled.value
    await clock.advance(by: .seconds(1))
    await woken.value
    #expect(activity.wakingCount == 0)
    #expect(activity.taskCount == 0)
  }
}
