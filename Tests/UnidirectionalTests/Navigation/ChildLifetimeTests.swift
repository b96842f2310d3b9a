import Dispatch
import Testing
import UnidirectionalTestSupport

@testable import Unidirectional

// A child's effects die with the child, however it goes away (issue 33): whichever reducer
// removed it (the navigation reducer's parent, a sibling combined before or after it), for the
// four containers, nested children, and actions sent from tasks the store does not track.

/// A child feature whose effects wait: for cancellation, for the gate, or in tasks the store
/// does not track (an unstructured task, a Dispatch queue).
struct Tracked: Reducer {
  struct State: Equatable, Sendable, Identifiable {
    var id: Int
    var ticks = 0
    @PresentationState var inner: Screen.State?
  }

  enum Action: Equatable, Sendable {
    /// Waits until cancelled, logs it, then sends `.tick` (a send from a cancelled task).
    case workUntilCancelled
    /// Waits for the gate, then sends `.tick`.
    case waitThenTick
    /// Starts an unstructured task that waits for the gate, sends `.tick`, then opens `sent`.
    case tickFromUnstructuredTask
    /// Hands the send to a Dispatch queue, which waits for `release`, then sends `.tick` from a
    /// task it creates (no task-local of the store there), then opens `sent`.
    case tickFromDispatchQueue
    case tick
    /// The child changes its own id: a new child, whose old effects end.
    case changeID(Int)
    case presentInner(Int)
    case inner(PresentationAction<Screen.Action>)
  }

  let log: Log<String>
  let gate: Gate
  let sent: Gate
  let release: DispatchSemaphore

  var body: some Reducer<State, Action> {
    Reduce { state, action in
      switch action {
      case .workUntilCancelled:
        return .run { [id = state.id, log] send in
          await waitForCancellation()
          log.append("child \(id) cancelled")
          await send(.tick)
        }
      case .waitThenTick:
        return .run { [gate] send in
          await gate.wait()
          await send(.tick)
        }
      case .tickFromUnstructuredTask:
        return .run { [gate, sent] send in
          Task {
            await gate.wait()
            await send(.tick)
            sent.open()
          }
        }
      case .tickFromDispatchQueue:
        return .run { [release, sent] send in
          DispatchQueue.global().async {
            release.wait()
            Task.detached {
              await send(.tick)
              sent.open()
            }
          }
        }
      case .tick:
        state.ticks += 1
        return .none
      case .changeID(let id):
        state.id = id
        return .none
      case .presentInner(let id):
        state.inner = Screen.State(id: id)
        return .none
      case .inner:
        return .none
      }
    }
    .ifLet(\.$inner, action: .case(Action.inner)) { Screen(log: log, gate: gate) }
  }
}

/// A parent with a child in each container, and a sibling reducer that edits the state,
/// combined before or after the navigation reducers.
struct Household: Reducer {
  enum Mode: Equatable, Sendable {
    case idle
    case editing(Tracked.State)
  }

  enum ModeAction: Equatable, Sendable {
    case editing(Tracked.Action)
  }

  struct State: Equatable, Sendable {
    @PresentationState var sheet: Tracked.State?
    var optional: Tracked.State?
    var path = StackState<Tracked.State>()
    var rows: IdentifiedArray<Tracked.State> = []
    var mode = Mode.idle
  }

  /// What the sibling reducer does to the state.
  enum Edit: Equatable, Sendable {
    case presentSheet(Int)
    case clearSheet
    case setOptional(Int?)
    case push(Int)
    case popLast
    case addRow(Int)
    case removeRow(Int)
    case setMode(Mode)
  }

  enum Action: Equatable, Sendable {
    case sheet(PresentationAction<Tracked.Action>)
    case optional(Tracked.Action)
    case path(StackAction<Tracked.State, Tracked.Action>)
    case rows(IdentifiedActionOf<Tracked>)
    case mode(ModeAction)
    case edit(Edit)
  }

  /// Whether the sibling reducer runs before the navigation reducers (else after them).
  let siblingFirst: Bool
  let child: Tracked

  var body: some Reducer<State, Action> {
    Reduce(sibling(runsFirst: true))
    Reduce { _, _ in .none }
      .ifLet(\.$sheet, action: .case(Action.sheet)) { child }
      .ifLet(\.optional, action: .case(Action.optional)) { child }
      .forEach(\.path, action: .case(Action.path)) { child }
      .forEach(\.rows, action: .case(Action.rows)) { child }
    Scope(state: \.mode, action: .case(Action.mode)) {
      Reduce<Mode, ModeAction> { _, _ in .none }
        .ifCaseLet(.case(Mode.editing), action: .case(ModeAction.editing)) { child }
    }
    Reduce(sibling(runsFirst: false))
  }

  func sibling(runsFirst: Bool) -> @Sendable (inout State, Action) -> Effect<Action> {
    { [siblingFirst] state, action in
      guard siblingFirst == runsFirst, case .edit(let edit) = action else { return .none }
      switch edit {
      case .presentSheet(let id): state.sheet = Tracked.State(id: id)
      case .clearSheet: state.sheet = nil
      case .setOptional(let id): state.optional = id.map { Tracked.State(id: $0) }
      case .push(let id): state.path.append(Tracked.State(id: id))
      case .popLast: _ = state.path.popLast()
      case .addRow(let id): state.rows.append(Tracked.State(id: id))
      case .removeRow(let id): _ = state.rows.remove(id: id)
      case .setMode(let mode): state.mode = mode
      }
      return .none
    }
  }
}

@Suite(.timeLimit(.minutes(1))) struct ChildLifetimeTests {
  let log = Log<String>()
  let issues = Log<StoreIssue>()
  let gate = Gate()
  let sent = Gate()
  let release = DispatchSemaphore(value: 0)

  func makeStore(siblingFirst: Bool, _ state: Household.State = Household.State())
    -> Store<Household.State, Household.Action>
  {
    let child = Tracked(log: log, gate: gate, sent: sent, release: release)
    return Store(initialState: state, reducer: Household(siblingFirst: siblingFirst, child: child))
    {
      [issues] in issues.append($0)
    }
  }

  /// The effects `work` covers were cancelled by the time the action that removed their child
  /// returned, and end; the action the cancelled effect sent was dropped without a report.
  func expectCancelledAtOnce(_ work: StoreTask, child id: Int) async {
    #expect(work.isCancelled)
    await work.finish()
    #expect(log.values == ["child \(id) cancelled"])
    #expect(issues.values.isEmpty, "\(issues.values)")
  }

  @Test(arguments: [true, false])
  func aSiblingDismissingAPresentationCancelsItsEffects(siblingFirst: Bool) async {
    let store = makeStore(siblingFirst: siblingFirst)
    store.send(.edit(.presentSheet(1)))
    let work = store.send(.sheet(.presented(.workUntilCancelled)))
    store.send(.edit(.clearSheet))
    await expectCancelledAtOnce(work, child: 1)
  }

  @Test(arguments: [true, false])
  func aSiblingClearingAnOptionalChildCancelsItsEffects(siblingFirst: Bool) async {
    let store = makeStore(siblingFirst: siblingFirst)
    store.send(.edit(.setOptional(1)))
    let work = store.send(.optional(.workUntilCancelled))
    store.send(.edit(.setOptional(nil)))
    await expectCancelledAtOnce(work, child: 1)
  }

  @Test(arguments: [true, false])
  func aSiblingReplacingAnOptionalChildWithAnotherIDCancelsItsEffects(siblingFirst: Bool) async {
    let store = makeStore(siblingFirst: siblingFirst)
    store.send(.edit(.setOptional(1)))
    let work = store.send(.optional(.workUntilCancelled))
    store.send(.edit(.setOptional(2)))
    await expectCancelledAtOnce(work, child: 1)
  }

  @Test(arguments: [true, false])
  func aSiblingPoppingAStackElementCancelsItsEffects(siblingFirst: Bool) async {
    let store = makeStore(siblingFirst: siblingFirst)
    store.send(.edit(.push(1)))
    let work = store.send(.path(.element(id: 0, action: .workUntilCancelled)))
    store.send(.edit(.popLast))
    await expectCancelledAtOnce(work, child: 1)
  }

  @Test(arguments: [true, false])
  func aSiblingRemovingARowCancelsItsEffects(siblingFirst: Bool) async {
    let store = makeStore(siblingFirst: siblingFirst)
    store.send(.edit(.addRow(1)))
    store.send(.edit(.addRow(2)))
    let work = store.send(.rows(.element(id: 1, action: .workUntilCancelled)))
    let other = store.send(.rows(.element(id: 2, action: .waitThenTick)))
    store.send(.edit(.removeRow(1)))
    await expectCancelledAtOnce(work, child: 1)
    // The other row's effect runs on.
    #expect(!other.isCancelled)
    gate.open()
    await other.finish()
    #expect(store.rows[id: 2]?.ticks == 1)
  }

  @Test(arguments: [true, false])
  func aSiblingLeavingTheCaseCancelsItsEffects(siblingFirst: Bool) async {
    let store = makeStore(siblingFirst: siblingFirst)
    store.send(.edit(.setMode(.editing(Tracked.State(id: 1)))))
    let work = store.send(.mode(.editing(.workUntilCancelled)))
    store.send(.edit(.setMode(.idle)))
    await expectCancelledAtOnce(work, child: 1)
  }

  /// Another id in the same case is another child: the old one's effects end, and its response
  /// never reaches the new one.
  @Test(arguments: [true, false])
  func anotherIDInTheSameCaseIsANewChild(siblingFirst: Bool) async {
    let store = makeStore(siblingFirst: siblingFirst)
    store.send(.edit(.setMode(.editing(Tracked.State(id: 1)))))
    let work = store.send(.mode(.editing(.workUntilCancelled)))
    let response = store.send(.mode(.editing(.waitThenTick)))
    store.send(.edit(.setMode(.editing(Tracked.State(id: 2)))))
    await expectCancelledAtOnce(work, child: 1)
    #expect(response.isCancelled)
    gate.open()
    await response.finish()
    #expect(store.mode == .editing(Tracked.State(id: 2)))
  }

  /// A presented child that changes its own id is a new child: its old effects end.
  @Test func aPresentedChildChangingItsOwnIDEndsItsEffects() async {
    let store = makeStore(siblingFirst: false)
    store.send(.edit(.presentSheet(1)))
    let work = store.send(.sheet(.presented(.workUntilCancelled)))
    store.send(.sheet(.presented(.changeID(2))))
    await expectCancelledAtOnce(work, child: 1)
    // The new child's effects run on.
    let next = store.send(.sheet(.presented(.waitThenTick)))
    gate.open()
    await next.finish()
    #expect(store.sheet?.ticks == 1)
  }

  /// The same for an optional child.
  @Test func anOptionalChildChangingItsOwnIDEndsItsEffects() async {
    let store = makeStore(siblingFirst: false)
    store.send(.edit(.setOptional(1)))
    let work = store.send(.optional(.workUntilCancelled))
    store.send(.optional(.changeID(2)))
    await expectCancelledAtOnce(work, child: 1)
  }

  /// A dismissed child takes its presented grandchild's effects with it.
  @Test(arguments: [true, false])
  func aDismissedChildTakesItsGrandchildsEffects(siblingFirst: Bool) async {
    let store = makeStore(siblingFirst: siblingFirst)
    store.send(.edit(.presentSheet(1)))
    store.send(.sheet(.presented(.presentInner(7))))
    let work = store.send(.sheet(.presented(.inner(.presented(.workUntilCancelled)))))
    store.send(.edit(.clearSheet))
    #expect(work.isCancelled)
    await work.finish()
    #expect(log.values == ["screen 7 cancelled"])
  }

  /// An unstructured task of a dismissed child's effect: its action never reaches the child
  /// presented after it, and is reported, naming where the effect was created.
  @Test func anUnstructuredTasksActionAfterDismissalIsDroppedAndReported() async {
    let store = makeStore(siblingFirst: false)
    store.send(.edit(.presentSheet(1)))
    await store.send(.sheet(.presented(.tickFromUnstructuredTask))).finish()
    store.send(.sheet(.dismiss))
    store.send(.edit(.presentSheet(1)))
    gate.open()
    await sent.wait()
    #expect(store.sheet?.ticks == 0)
    expectOneReportOfALateTick()
  }

  /// The same from a Dispatch queue: the `Send` knows its effect without any task-local.
  @Test func aDispatchQueuesActionAfterDismissalIsDroppedAndReported() async {
    let store = makeStore(siblingFirst: false)
    store.send(.edit(.presentSheet(1)))
    await store.send(.sheet(.presented(.tickFromDispatchQueue))).finish()
    store.send(.edit(.clearSheet))
    store.send(.edit(.presentSheet(1)))
    release.signal()
    await sent.wait()
    #expect(store.sheet?.ticks == 0)
    expectOneReportOfALateTick()
  }

  /// While the child is there, the same sends reach it.
  @Test func anUnstructuredTasksActionReachesAChildStillThere() async {
    let store = makeStore(siblingFirst: false)
    store.send(.edit(.presentSheet(1)))
    await store.send(.sheet(.presented(.tickFromUnstructuredTask))).finish()
    gate.open()
    await sent.wait()
    #expect(store.sheet?.ticks == 1)
    #expect(issues.values.isEmpty, "\(issues.values)")
  }

  func expectOneReportOfALateTick() {
    #expect(issues.values.count == 1, "\(issues.values)")
    guard let issue = issues.values.first else { return }
    guard case .actionFromDismissedChild(let action) = issue.kind else {
      Issue.record("expected actionFromDismissedChild, got \(issue)")
      return
    }
    #expect(action.contains("tick"))
    #expect(issue.fileID == "UnidirectionalTests/ChildLifetimeTests.swift")
  }
}
