import Foundation
import Testing
import UnidirectionalTestSupport

@testable import Unidirectional

/// An action an effect sent, still waiting in the queue when the effect is cancelled, is dropped:
/// cancelled effects cannot change state, and a replaced child's effect never reaches the child
/// that replaced it.
@Suite struct CancelledEffectActionTests {
  /// A slot holding one child at a time, whose effects run under an id naming the child.
  struct Slot: Reducer {
    struct Child: Equatable, Sendable {
      var id: Int
      var events = 0
    }
    struct State: Equatable, Sendable {
      var child = Child(id: 1)
      var ticks = 0
    }
    enum Action: Equatable, Sendable {
      case start
      case childEvent
      case replace(id: Int)
      case tick
    }

    /// Effects of the child with `id`, as a navigation child's (reported when dropped), or as
    /// any effect's.
    struct ChildEffects: ChildEffectsID { let id: Int }
    struct PlainEffects: Hashable, Sendable { let id: Int }

    let gate: Gate
    let executor: ThreadExecutor
    let asChild: Bool

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .start:
        let effect = Effect<Action>.run { [gate, executor] send in
          // On a thread of its own, so that it runs even while every thread of the task pool
          // is blocked by other tests.
          await withTaskExecutorPreference(executor) {
            await gate.wait()
            await send(.childEvent)
          }
        }
        let id = state.child.id
        return asChild
          ? effect.cancellable(id: ChildEffects(id: id))
          : effect.cancellable(id: PlainEffects(id: id))
      case .childEvent:
        state.child.events += 1
        return .none
      case .replace(let id):
        let old = state.child.id
        state.child = Child(id: id)
        return asChild ? .cancel(id: ChildEffects(id: old)) : .cancel(id: PlainEffects(id: old))
      case .tick:
        state.ticks += 1
        return .none
      }
    }
  }

  /// Makes the race happen in order: while the store runs an observer (so it is busy), the
  /// observer queues `.replace`, lets the child's effect send, and waits until the effect's action
  /// is queued behind it. Then the store reduces `.replace` (cancelling the effect) and only then
  /// reaches the effect's action.
  func raceReplacement(asChild: Bool) async -> (state: Slot.State, issues: [StoreIssue]) {
    let gate = Gate()
    let executor = ThreadExecutor()
    defer { executor.stop() }
    let issues = Log<StoreIssue>()
    let store = Store(
      initialState: Slot.State(), reducer: Slot(gate: gate, executor: executor, asChild: asChild),
      onIssue: { issues.append($0) })
    let effect = store.send(.start)
    while gate.waiterCount == 0 { await Task.yield() }
    let token = store.observe {
      guard store.ticks == 1 else { return }
      store.send(.replace(id: 2))
      gate.open()
      // The effect runs on its own thread: it queues its action within milliseconds.
      let deadline = ContinuousClock.now + .seconds(60)
      while queuedActions(store) < 2 {
        guard ContinuousClock.now < deadline else {
          Issue.record("the effect's action was not queued within 60 s")
          return
        }
        Thread.sleep(forTimeInterval: 0.001)
      }
    }
    // On a thread of its own: the observer blocks it.
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
      Thread {
        store.send(.tick)
        done.resume()
      }.start()
    }
    await effect.finish()
    let state = store.state
    withExtendedLifetime(token) {}
    return (state, issues.values)
  }

  func queuedActions(_ store: Store<Slot.State, Slot.Action>) -> Int {
    store.gate.withLock { store.pending.actions.elements.count - store.pending.actions.head }
  }

  @Test func aReplacedChildsQueuedActionIsDroppedAndReported() async {
    let (state, issues) = await raceReplacement(asChild: true)
    #expect(state.child == Slot.Child(id: 2, events: 0))
    #expect(issues.count == 1)
    #expect(issues.first.map { "\($0)" }?.contains("Slot.Action.childEvent") == true)
    if case .actionFromDismissedChild = issues.first?.kind {
    } else {
      Issue.record("expected an actionFromDismissedChild issue, got \(issues)")
    }
  }

  @Test func anyCancelledEffectsQueuedActionIsDroppedSilently() async {
    let (state, issues) = await raceReplacement(asChild: false)
    #expect(state.child == Slot.Child(id: 2, events: 0))
    #expect(issues.isEmpty)
  }
}
