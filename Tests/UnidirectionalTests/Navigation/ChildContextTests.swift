import Synchronization
import Testing
import UnidirectionalTestSupport

@testable import Unidirectional

/// A parent's effect that starts while the store reduces an action a presented child's effect
/// sent (on that effect's task) belongs to the parent: it must not run with the child's
/// cancellation-id scope or the child's `dismiss`.
@Suite struct ChildContextTests {
  struct Child: Reducer {
    struct State: Equatable, Sendable {}
    enum Action: Equatable, Sendable {
      case tellParent
      case delegate
    }

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .tellParent:
        return .run { send in await send(.delegate) }
      case .delegate:
        return .none
      }
    }
  }

  struct Parent: Reducer {
    struct State: Equatable, Sendable {
      @PresentationState var child: Child.State?
    }
    enum Action: Equatable, Sendable {
      case child(PresentationAction<Child.Action>)
      case startTimer
    }
    struct TimerID: Hashable, Sendable {}
    /// What the parent does in an effect when its child tells it something.
    enum Reaction: Sendable {
      case cancelTimerFromTheEffect
      case dismissFromTheEffect
    }
    let reaction: Reaction
    @Dependency(\.continuousClock) var clock
    @Dependency(\.dismiss) var dismiss

    var body: some Reducer<State, Action> {
      Reduce { _, action in
        switch action {
        case .startTimer:
          return .run { _ in try await clock.sleep(for: .seconds(1000)) }
            .cancellable(id: TimerID())
        case .child(.presented(.delegate)):
          switch reaction {
          case .cancelTimerFromTheEffect:
            return .run { _ in Task.cancel(id: TimerID()) }
          case .dismissFromTheEffect:
            return .run { [dismiss] _ in await dismiss() }
          }
        case .child:
          return .none
        }
      }
      .ifLet(\.$child, action: .case(Action.child)) { Child() }
    }
  }

  @Test func aParentEffectStartedFromAChildsSendUsesTheParentsIDs() async {
    let clock = TestClock()
    let executor = TestExecutor()
    let store = withDependencies {
      $0.continuousClock = clock
    } operation: {
      Store(initialState: Parent.State(child: Child.State()), effectExecutor: executor) {
        Parent(reaction: .cancelTimerFromTheEffect)
      }
    }
    let timer = store.send(.startTimer)
    executor.drain()
    #expect(clock.sleeperCount == 1)
    await store.send(.child(.presented(.tellParent))).finish()
    // `Task.cancel(id: TimerID())` in the parent's effect names the parent's timer, so every
    // effect ends (the timer would otherwise sleep on the test clock).
    executor.drain()
    #expect(store.runningEffectCount == 0)
    timer.cancel()
  }

  @Test func aParentEffectStartedFromAChildsSendCannotDismissTheChild() async {
    let issues = Mutex<[String]>([])
    let store = withDependencies {
      $0.reportIssue = { message in issues.withLock { $0.append(message) } }
    } operation: {
      Store(initialState: Parent.State(child: Child.State())) {
        Parent(reaction: .dismissFromTheEffect)
      }
    }
    await store.send(.child(.presented(.tellParent))).finish()
    await store.waitForEffects()
    // The parent is not a presented child: its `dismiss()` is reported, and the child stays.
    #expect(store.child != nil)
    #expect(
      issues.withLock { $0.contains { $0.contains("outside an effect of a presented") } },
      "\(issues.withLock { $0 }), \(store.runningEffectCount) running")
  }
}
