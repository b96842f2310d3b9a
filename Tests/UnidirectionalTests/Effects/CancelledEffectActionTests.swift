import Foundation
import Testing
import UnidirectionalTestSupport

@testable import Unidirectional

/// An action an effect sent, still waiting in the queue when the effect is cancelled, is dropped:
/// cancelled effects cannot change state, and a dismissed child's effect never reaches the child
/// that replaced it. Which actions are dropped and which are reduced; all these drops are silent
/// (an action that waited while its child went away was sent while the child was there).
@Suite struct CancelledEffectActionTests {
  struct Feature: Reducer {
    struct State: Equatable, Sendable {
      var childEvents = 0
      var parentEvents = 0
      var others = 0
      var ticks = 0
    }
    enum Action: Equatable, Sendable {
      /// A child's effect (under a child id) with an inner `.cancellable` timer.
      case startChildTimer
      /// The child cancels its own timer: the child is still there.
      case stopChildTimer
      /// The parent dismisses the child: its effects are cancelled through the child's id.
      case dismissChild
      /// A child's effect that reports back to the parent at once.
      case startChildReporting
      case childReported
      case cancelParentWork
      /// A `.merge` of two parts inside one effect task, one of them cancellable.
      case startMerge
      case cancelMergePart
      /// An effect that hands its send to an unstructured task and ends.
      case startDetachedSender
      case cancelDetachedSender
      case childEvent
      case parentEvent
      case other
      case unrelated
      case tick
    }

    struct ChildEffects: ChildEffectsID {}
    struct Timer: Hashable, Sendable {}
    struct ParentWork: Hashable, Sendable {}
    struct MergePart: Hashable, Sendable {}
    struct DetachedSender: Hashable, Sendable {}

    let gate: Gate
    let executor: ThreadExecutor

    /// Waits for the gate on the executor's thread, then sends `action`.
    func waitingSend(_ action: Action) -> Effect<Action> {
      .run { [gate, executor] send in
        await withTaskExecutorPreference(executor) {
          await gate.wait()
          await send(action)
        }
      }
    }

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .startChildTimer:
        return waitingSend(.childEvent).cancellable(id: Timer()).cancellable(id: ChildEffects())
      case .stopChildTimer:
        return .cancel(id: Timer())
      case .dismissChild:
        return .cancel(id: ChildEffects())
      case .startChildReporting:
        return Effect<Action>.run { send in await send(.childReported) }
          .cancellable(id: ChildEffects())
      case .childReported:
        // A parent's effect, started while reducing an action a child's effect sent.
        return waitingSend(.parentEvent).cancellable(id: ParentWork())
      case .cancelParentWork:
        return .cancel(id: ParentWork())
      case .startMerge:
        // In a `.concatenate`, so that the `.merge` runs inside one effect task.
        return .concatenate(
          .merge(waitingSend(.childEvent).cancellable(id: MergePart()), waitingSend(.other)),
          .none)
      case .cancelMergePart:
        return .cancel(id: MergePart())
      case .startDetachedSender:
        return Effect<Action>.run { [gate, executor] send in
          Task {
            await withTaskExecutorPreference(executor) {
              await gate.wait()
              await send(.other)
            }
          }
        }
        .cancellable(id: DetachedSender())
      case .cancelDetachedSender:
        return .cancel(id: DetachedSender())
      case .childEvent:
        state.childEvents += 1
        return .none
      case .parentEvent:
        state.parentEvents += 1
        return .none
      case .other:
        state.others += 1
        return .none
      case .unrelated:
        return .none
      case .tick:
        state.ticks += 1
        return .none
      }
    }
  }

  /// Sends `start`, waits for `waiters` effects to wait on the gate, then, while the store is
  /// busy running an observer, sends `during`, opens the gate and waits until `queued` actions
  /// wait in the queue: the effects' actions are reduced (or dropped) after `during`.
  func race(
    start: Feature.Action, waiters: Int = 1, during: Feature.Action, queued: Int = 2,
    afterEffectsEnd: Bool = false
  ) async -> (state: Feature.State, issues: [StoreIssue]) {
    let gate = Gate()
    let executor = ThreadExecutor()
    defer { executor.stop() }
    let issues = Log<StoreIssue>()
    let store = Store(
      initialState: Feature.State(), reducer: Feature(gate: gate, executor: executor),
      onIssue: { issues.append($0) })
    let effect = store.send(start)
    while gate.waiterCount < waiters { await Task.yield() }
    while afterEffectsEnd, store.effects.runningCount > 0 { await Task.yield() }
    let token = store.observe {
      guard store.ticks == 1 else { return }
      store.send(during)
      gate.open()
      // wall-clock: a failure bound; a passing run goes on as soon as what it waits for happens.
      let deadline = ContinuousClock.now + .seconds(60)
      while queuedActions(store) < queued {
        // wall-clock: a failure bound; a passing run goes on as soon as what it waits for happens.
        guard ContinuousClock.now < deadline else {
          Issue.record("the effects' actions were not queued within 60 s")
          return
        }
        Thread.sleep(forTimeInterval: 0.001)
      }
    }
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
      Thread {
        store.send(.tick)
        done.resume()
      }.start()
    }
    await effect.finish()
    // wall-clock: a failure bound; a passing run goes on as soon as what it waits for happens.
    let deadline = ContinuousClock.now + .seconds(60)
    // wall-clock: a failure bound; a passing run goes on as soon as what it waits for happens.
    while store.effects.runningCount > 0, ContinuousClock.now < deadline {
      // wall-clock: polls a condition under a failure bound; a passing run stops once it holds.
      try? await Task.sleep(for: .milliseconds(1))
    }
    let state = store.state
    withExtendedLifetime(token) {}
    return (state, issues.values)
  }

  func queuedActions(_ store: Store<Feature.State, Feature.Action>) -> Int {
    store.gate.withLock { store.pending.actions.elements.count - store.pending.actions.head }
  }

  @Test func aDismissedChildsQueuedActionIsDroppedInSilence() async {
    let (state, issues) = await race(start: .startChildTimer, during: .dismissChild)
    #expect(state.childEvents == 0)
    #expect(issues.isEmpty, "\(issues)")
  }

  @Test func aQueuedActionOfAnEffectNotCancelledIsReduced() async {
    let (state, issues) = await race(start: .startChildTimer, during: .unrelated)
    #expect(state.childEvents == 1)
    #expect(issues.isEmpty)
  }

  /// The child cancels its own inner effect and stays: its dropped action is not an action "from
  /// a child that is gone".
  @Test func aChildCancellingItsOwnEffectIsNotReportedAsDismissed() async {
    let (state, issues) = await race(start: .startChildTimer, during: .stopChildTimer)
    #expect(state.childEvents == 0)
    #expect(issues.isEmpty, "\(issues)")
  }

  /// A parent's effect started while a child's effect reduced an action on its own task is the
  /// parent's, not the child's: cancelling it is not reported as a dismissed child's action.
  @Test func aParentEffectStartedFromAChildsSendIsNotAChildEffect() async {
    let (state, issues) = await race(start: .startChildReporting, during: .cancelParentWork)
    #expect(state.parentEvents == 0)
    #expect(issues.isEmpty, "\(issues)")
  }

  /// Two parts of a `.merge`: cancelling one drops its queued action only.
  @Test func cancellingOnePartOfAMergeDropsOnlyItsAction() async {
    let (state, issues) = await race(
      start: .startMerge, waiters: 2, during: .cancelMergePart, queued: 3)
    #expect(state.childEvents == 0)
    #expect(state.others == 1)
    #expect(issues.isEmpty)
  }

  /// An effect that ended before its id was cancelled: the action an unstructured task it made
  /// sent is still reduced.
  @Test func anActionOfAFinishedEffectsTaskIsReduced() async {
    let (state, issues) = await race(
      start: .startDetachedSender, during: .cancelDetachedSender, afterEffectsEnd: true)
    #expect(state.others == 1)
    #expect(issues.isEmpty)
  }
}
