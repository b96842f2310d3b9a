import Testing
import Unidirectional
import UnidirectionalTestSupport
import UnidirectionalTesting

/// A child with a timer on the clock dependency, that can dismiss itself.
private struct Timed: Reducer {
  struct State: Equatable, Sendable, Identifiable {
    var id: Int
    var ticks = 0
  }

  enum Action: Equatable, Sendable {
    case start
    case tick
    case done
    /// Sends `.tick` after its task was cancelled (dropped in silence).
    case tickWhenCancelled
    /// Hands its send to a detached task, which sends `.tick` once `lateTickGate` opens, then
    /// opens `lateTickSent` (a leak the store reports if the child is gone by then).
    case tickFromDetachedTask
  }

  @Dependency(\.continuousClock) var clock
  @Dependency(\.dismiss) var dismiss

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .start:
      return .run { send in
        while true {
          try await clock.sleep(for: .seconds(1))
          await send(.tick)
        }
      }
    case .tick:
      state.ticks += 1
      return .none
    case .done:
      return .run { _ in await dismiss() }
    case .tickWhenCancelled:
      return .run { send in
        await waitForCancellation()
        await send(.tick)
      }
    case .tickFromDetachedTask:
      return .run { send in
        Task.detached {
          await lateTickGate.wait()
          await send(.tick)
          lateTickSent.open()
        }
      }
    }
  }
}

private let lateTickGate = Gate()
private let lateTickSent = Gate()

private struct Host: Reducer {
  struct State: Equatable, Sendable {
    @PresentationState var sheet: Timed.State?
    var path = StackState<Timed.State>()
  }

  enum Action: Equatable, Sendable {
    case sheet(PresentationAction<Timed.Action>)
    case path(StackAction<Timed.State, Timed.Action>)
    case show(Int)
  }

  var body: some Reducer<State, Action> {
    Reduce { state, action in
      if case .show(let id) = action { state.sheet = Timed.State(id: id) }
      return .none
    }
    .ifLet(\.$sheet, action: .sheet) { Timed() }
    .forEach(\.path, action: .path) { Timed() }
  }
}

extension CasePath where Root == Host.Action {
  fileprivate static var sheet: CasePath<Host.Action, PresentationAction<Timed.Action>> {
    .init(Host.Action.sheet) { if case .sheet(let a) = $0 { a } else { nil } }
  }
  fileprivate static var path: CasePath<Host.Action, StackAction<Timed.State, Timed.Action>> {
    .init(Host.Action.path) { if case .path(let a) = $0 { a } else { nil } }
  }
}

@Suite(.timeLimit(.minutes(1))) struct NavigationTestStoreTests {
  @Test func aPresentedTimerRunsUntilTheChildDismissesItself() async {
    let clock = TestClock()
    let store = TestStore(initialState: Host.State()) {
      Host()
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.show(1)) { $0.sheet = Timed.State(id: 1) }
    await store.send(.sheet(.presented(.start)))
    await clock.advance(by: .seconds(2))
    await store.receive(.sheet(.presented(.tick))) { $0.sheet?.ticks = 1 }
    await store.receive(.sheet(.presented(.tick))) { $0.sheet?.ticks = 2 }
    await store.send(.sheet(.presented(.done)))
    await store.receive(.sheet(.dismiss)) { $0.sheet = nil }
    // The timer died with the child: nothing more arrives, and `finish` finds nothing running.
    await clock.advance(by: .seconds(5))
    await store.finish()
  }

  @Test func replacingThePresentedChildStopsTheOldTimerOnly() async {
    let clock = TestClock()
    let store = TestStore(initialState: Host.State()) {
      Host()
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.show(1)) { $0.sheet = Timed.State(id: 1) }
    await store.send(.sheet(.presented(.start)))
    await store.send(.show(2)) { $0.sheet = Timed.State(id: 2) }
    await store.send(.sheet(.presented(.start)))
    await clock.advance(by: .seconds(1))
    await store.receive(.sheet(.presented(.tick))) { $0.sheet?.ticks = 1 }
    await store.send(.sheet(.dismiss)) { $0.sheet = nil }
    await store.finish()
  }

  @Test func aStackElementPopsItselfAndItsTimerStops() async {
    let clock = TestClock()
    let store = TestStore(initialState: Host.State(path: [Timed.State(id: 1)])) {
      Host()
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.path(.push(id: 1, state: Timed.State(id: 2)))) {
      $0.path.append(Timed.State(id: 2))
    }
    await store.send(.path(.element(id: 1, action: .start)))
    await clock.advance(by: .seconds(1))
    await store.receive(.path(.element(id: 1, action: .tick))) { $0.path[id: 1]?.ticks = 1 }
    await store.send(.path(.element(id: 1, action: .done)))
    await store.receive(.path(.popFrom(id: 1))) { $0.path.pop(from: 1) }
    await clock.advance(by: .seconds(3))
    await store.finish()
  }

  /// A dismissed child's cancelled effect that sends anyway: dropped, and the test passes (the
  /// task could not have known better).
  @Test func aSendFromADismissedChildsCancelledTaskPasses() async {
    let store = TestStore(initialState: Host.State()) { Host() }
    await store.send(.show(1)) { $0.sheet = Timed.State(id: 1) }
    let task = await store.send(.sheet(.presented(.tickWhenCancelled)))
    await store.send(.sheet(.dismiss)) { $0.sheet = nil }
    await task.finish()
    await store.finish()
  }

  /// A send from a task the store does not track, after its child was dismissed: a leak in the
  /// feature, which fails the test.
  @Test func aSendFromADismissedChildsDetachedTaskFailsTheTest() async {
    let failures = await recordedFailures {
      let store = TestStore(initialState: Host.State()) { Host() }
      await store.send(.show(1)) { $0.sheet = Timed.State(id: 1) }
      await store.send(.sheet(.presented(.tickFromDetachedTask)))
      await store.send(.sheet(.dismiss)) { $0.sheet = nil }
      lateTickGate.open()
      await lateTickSent.wait()
      await store.finish()
    }
    #expect(failures.count == 1)
    #expect(
      failures.first?.message.contains(
        "sent Timed.Action.tick after its child feature was dismissed or replaced") == true)
  }
}
