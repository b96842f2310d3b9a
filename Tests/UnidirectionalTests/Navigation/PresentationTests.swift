import Testing
import Unidirectional
import UnidirectionalTestSupport

@Suite(.timeLimit(.minutes(1))) struct PresentationTests {
  let log = Log<String>()
  let issues = Log<String>()
  let gate = Gate()

  func makeStore(presenting id: Int? = nil) -> Store<Presenter.State, Presenter.Action> {
    var state = Presenter.State()
    state.screen = id.map { Screen.State(id: $0) }
    return Store(initialState: state, reducer: Presenter(log: log, gate: gate)) { [issues] in
      issues.append($0.description)
    }
  }

  @Test func thePresentedChildRunsBeforeTheParent() {
    let store = makeStore(presenting: 1)
    store.send(.screen(.presented(.increment)))
    #expect(store.screen?.count == 1)
    #expect(store.events == ["parent saw increment, count 1"])
    #expect(issues.values.isEmpty)
  }

  @Test func settingNilCancelsThePresentationsEffects() async {
    let store = makeStore(presenting: 1)
    let work = store.send(.screen(.presented(.workUntilCancelled)))
    store.send(.clear)
    await work.finish()
    #expect(log.values == ["screen 1 cancelled"])
    #expect(store.screen == nil)
  }

  @Test func theDismissActionEndsThePresentationAfterTheParentSawIt() async {
    let store = makeStore(presenting: 1)
    let work = store.send(.screen(.presented(.workUntilCancelled)))
    store.send(.screen(.dismiss))
    await work.finish()
    #expect(store.events == ["parent saw workUntilCancelled, count 0", "parent saw dismiss of 1"])
    #expect(store.screen == nil)
    #expect(log.values == ["screen 1 cancelled"])
  }

  @Test func dismissFromTheChildsEffectDismissesAndCancelsItsEffects() async {
    let store = makeStore(presenting: 1)
    let work = store.send(.screen(.presented(.workUntilCancelled)))
    await store.send(.screen(.presented(.close))).finish()
    #expect(store.screen == nil)
    #expect(
      store.events == [
        "parent saw workUntilCancelled, count 0", "parent saw close, count 0",
        "parent saw dismiss of 1",
      ])
    await work.finish()
    // `dismiss()` returned once the dismissal was reduced: by then its own effect was cancelled.
    #expect(
      Set(log.values) == ["screen 1 cancelled", "screen 1 dismiss returned, cancelled: true"])
  }

  @Test func aStaleSendFromADismissedChildsCancelledTaskIsDroppedInSilence() async {
    let store = makeStore(presenting: 1)
    let work = store.send(.screen(.presented(.workUntilCancelled)))
    store.send(.clear)
    store.send(.present(1))  // Same id, but a new presentation: nil came between.
    await work.finish()
    #expect(store.screen?.count == 0)  // The old effect's `.tick` never reached the new child.
    // It came from the child's cancelled task, which could not have known better.
    #expect(issues.values.isEmpty, "\(issues.values)")
  }

  @Test func aChildsOwnCancellationStaysSilent() async {
    let store = makeStore(presenting: 1)
    let work = store.send(.screen(.presented(.startCancellableWork)))
    store.send(.screen(.presented(.cancelWork)))
    await work.finish()
    #expect(log.values == ["screen 1 work cancelled"])
    #expect(store.screen?.count == 0)
    #expect(issues.values.isEmpty)
  }

  @Test func aChildWithAnotherIDIsANewPresentation() async {
    let store = makeStore(presenting: 1)
    let old = store.send(.screen(.presented(.workUntilCancelled)))
    store.send(.present(2))
    await old.finish()
    #expect(log.values == ["screen 1 cancelled"])
    // The new child's effects run, and their actions reach it.
    let new = store.send(.screen(.presented(.waitThenTick)))
    store.send(.screen(.presented(.increment)))
    gate.open()
    await new.finish()
    #expect(store.screen == Screen.State(id: 2, count: 2))
    #expect(issues.values.isEmpty, "\(issues.values)")  // The old child's `.tick`: silent.
  }

  @Test func replacingWithTheSameIDKeepsThePresentation() async {
    let store = makeStore(presenting: 1)
    let work = store.send(.screen(.presented(.waitThenTick)))
    store.send(.present(1))
    gate.open()
    await work.finish()
    #expect(store.screen?.count == 1)
    #expect(issues.values.isEmpty)
  }

  @Test func anActionWhileNothingIsPresentedIsReported() {
    let store = makeStore()
    store.send(.screen(.presented(.increment)))
    store.send(.screen(.dismiss))
    #expect(store.screen == nil)
    #expect(issues.values.count == 2)
    #expect(issues.values.allSatisfy { $0.contains("the presented Screen.State was absent") })
  }

  @Test func dismissOutsideAPresentedChildReports() async {
    let reports = Log<String>()
    await withDependencies {
      $0.reportIssue = { reports.append($0) }
    } operation: {
      let store = Store(
        initialState: Screen.State(id: 7), reducer: Screen(log: log, gate: gate))
      await store.send(.close).finish()
      #expect(store.count == 0)
      @Dependency(\.dismiss) var dismiss
      await dismiss()
    }
    #expect(reports.values.count == 2)
    #expect(reports.values.allSatisfy { $0.contains("outside an effect of a presented child") })
    #expect(log.values == ["screen 7 dismiss returned, cancelled: false"])
  }

  @Test func editingInPlaceKeepsThePresentation() async {
    let store = makeStore(presenting: 1)
    let work = store.send(.screen(.presented(.waitThenTick)))
    store.send(.bump)
    gate.open()
    await work.finish()
    #expect(store.screen?.count == 11)
    #expect(issues.values.isEmpty)
  }

  @Test func presentationStateEqualityIgnoresIdentity() {
    let a = PresentationState(wrappedValue: 1)
    let b = PresentationState(wrappedValue: 1)
    #expect(a == b)
    #expect(a != PresentationState(wrappedValue: 2))
    #expect(PresentationState<Int>(wrappedValue: nil) == PresentationState(wrappedValue: nil))
  }
}

/// Presents a `Presenter`, which presents a `Screen`: two levels of presentation.
struct Outer: Reducer {
  struct State: Equatable, Sendable {
    @PresentationState var inner: Presenter.State?
  }

  enum Action: Equatable, Sendable {
    case inner(PresentationAction<Presenter.Action>)
  }

  let log: Log<String>
  let gate: Gate

  var body: some Reducer<State, Action> {
    EmptyReducer()
      .ifLet(\.$inner, action: .inner) { Presenter(log: log, gate: gate) }
  }
}

extension CasePath where Root == Outer.Action {
  static var inner: CasePath<Outer.Action, PresentationAction<Presenter.Action>> {
    .init(Outer.Action.inner) { if case .inner(let a) = $0 { a } else { nil } }
  }
}

@Suite(.timeLimit(.minutes(1))) struct NestedPresentationTests {
  @Test func dismissReachesTheNearestPresentationOnly() async {
    let log = Log<String>()
    var presenter = Presenter.State()
    presenter.screen = Screen.State(id: 1)
    let store = Store(
      initialState: Outer.State(inner: presenter), reducer: Outer(log: log, gate: Gate()))
    await store.send(.inner(.presented(.screen(.presented(.close))))).finish()
    #expect(store.inner != nil)
    #expect(store.inner?.screen == nil)
    #expect(store.inner?.events.last == "parent saw dismiss of 1")
  }
}
