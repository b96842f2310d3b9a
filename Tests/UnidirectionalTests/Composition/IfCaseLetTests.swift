import Testing
import Unidirectional
import UnidirectionalTestSupport

/// A feature whose state is one of two screens, or neither.
struct Modes: Reducer {
  enum State: Equatable, Sendable {
    case editing(Screen.State)
    case viewing(Screen.State)
    case idle
  }

  enum Action: Equatable, Sendable {
    case editor(Screen.Action)
    case viewer(Screen.Action)
    case edit(Int)
    case view(Int)
    case idle
  }

  let log: Log<String>
  let gate: Gate

  var body: some Reducer<State, Action> {
    Reduce { state, action in
      switch action {
      case .edit(let id): state = .editing(Screen.State(id: id))
      case .view(let id): state = .viewing(Screen.State(id: id))
      case .idle: state = .idle
      case .editor(let action):
        if case .editing(let screen) = state {
          log.append("parent saw \(action), count \(screen.count)")
        }
      case .viewer: break
      }
      return .none
    }
    .ifCaseLet(.editing, action: .editor) { Screen(log: log, gate: gate) }
    .ifCaseLet(.viewing, action: .viewer) { Screen(log: log, gate: gate) }
  }
}

extension CasePath where Root == Modes.State {
  static var editing: CasePath<Modes.State, Screen.State> {
    .init(Modes.State.editing) { if case .editing(let s) = $0 { s } else { nil } }
  }
  static var viewing: CasePath<Modes.State, Screen.State> {
    .init(Modes.State.viewing) { if case .viewing(let s) = $0 { s } else { nil } }
  }
}

extension CasePath where Root == Modes.Action {
  static var editor: CasePath<Modes.Action, Screen.Action> {
    .init(Modes.Action.editor) { if case .editor(let a) = $0 { a } else { nil } }
  }
  static var viewer: CasePath<Modes.Action, Screen.Action> {
    .init(Modes.Action.viewer) { if case .viewer(let a) = $0 { a } else { nil } }
  }
}

@Suite(.timeLimit(.minutes(1))) struct IfCaseLetTests {
  let log = Log<String>()
  let issues = Log<String>()
  let gate = Gate()

  func makeStore(_ state: Modes.State = .editing(Screen.State(id: 1))) -> Store<
    Modes.State, Modes.Action
  > {
    Store(initialState: state, reducer: Modes(log: log, gate: gate)) { [issues] in
      issues.append($0.description)
    }
  }

  @Test func theCaseRunsBeforeTheParent() {
    let store = makeStore()
    store.send(.editor(.increment))
    #expect(store.state == .editing(Screen.State(id: 1, count: 1)))
    #expect(log.values == ["parent saw increment, count 1"])
    #expect(issues.values.isEmpty)
  }

  @Test func leavingTheCaseCancelsItsEffectsAndTheNewCasesRun() async {
    let store = makeStore()
    let editing = store.send(.editor(.workUntilCancelled))
    store.send(.view(2))
    await editing.finish()
    #expect(log.values.filter { $0.hasPrefix("screen") } == ["screen 1 cancelled"])
    let viewing = store.send(.viewer(.waitThenTick))
    gate.open()
    await viewing.finish()
    #expect(store.state == .viewing(Screen.State(id: 2, count: 1)))
    // The editor's `.tick`, sent by its cancelled task, is dropped in silence, not applied.
    #expect(issues.values.isEmpty, "\(issues.values)")
  }

  @Test func returningToTheCaseIsANewChildForTheOldEffects() async {
    let store = makeStore()
    let editing = store.send(.editor(.workUntilCancelled))
    // Away and back at once: the old editor's effect sends after the new one is there.
    store.send(.view(2))
    store.send(.edit(3))
    await editing.finish()
    #expect(store.state == .editing(Screen.State(id: 3, count: 0)))
    // Sent by a cancelled task: dropped in silence.
    #expect(issues.values.isEmpty, "\(issues.values)")
  }

  @Test func leavingForAStateWithNoCaseCancels() async {
    let store = makeStore(.viewing(Screen.State(id: 3)))
    let work = store.send(.viewer(.workUntilCancelled))
    store.send(.idle)
    await work.finish()
    #expect(log.values == ["screen 3 cancelled"])
  }

  @Test func staysInTheCaseKeepsItsEffects() async {
    let store = makeStore()
    let work = store.send(.editor(.waitThenTick))
    store.send(.edit(1))  // Still the editing case: the same child, as documented.
    store.send(.view(5))
    store.send(.edit(1))
    gate.open()
    await work.finish()
    // Left and came back: the old effect's tick never reached the new editing state.
    #expect(store.state == .editing(Screen.State(id: 1, count: 0)))
  }

  @Test func anActionForAnotherCaseIsReportedAndIgnored() {
    let store = makeStore()
    store.send(.viewer(.increment))
    #expect(store.state == .editing(Screen.State(id: 1)))
    #expect(issues.values.count == 1)
    #expect(issues.values.first?.contains("case Screen.State of Modes.State was absent") == true)
  }

  @Test func aCasesOwnCancellationStaysSilent() async {
    let store = makeStore()
    let work = store.send(.editor(.startCancellableWork))
    store.send(.editor(.cancelWork))
    await work.finish()
    #expect(log.values.filter { $0.hasPrefix("screen") } == ["screen 1 work cancelled"])
    #expect(issues.values.isEmpty)
  }
}

/// A feature with an optional, `Identifiable` screen.
struct Holder: Reducer {
  struct State: Equatable, Sendable {
    var screen: Screen.State?
  }

  enum Action: Equatable, Sendable {
    case screen(Screen.Action)
    case show(Int)
    case hide
  }

  let log: Log<String>
  let gate: Gate

  var body: some Reducer<State, Action> {
    Reduce { state, action in
      switch action {
      case .show(let id): state.screen = Screen.State(id: id)
      case .hide: state.screen = nil
      case .screen: break
      }
      return .none
    }
    .ifLet(\.screen, action: .screen) { Screen(log: log, gate: gate) }
  }
}

extension CasePath where Root == Holder.Action {
  static var screen: CasePath<Holder.Action, Screen.Action> {
    .init(Holder.Action.screen) { if case .screen(let a) = $0 { a } else { nil } }
  }
}

@Suite(.timeLimit(.minutes(1))) struct NavigationIfLetTests {
  let log = Log<String>()
  let issues = Log<String>()
  let gate = Gate()

  func makeStore() -> Store<Holder.State, Holder.Action> {
    Store(
      initialState: Holder.State(screen: Screen.State(id: 1)), reducer: Holder(log: log, gate: gate)
    ) { [issues] in issues.append($0.description) }
  }

  @Test func aChildWithANewIDIsANewChild() async {
    let store = makeStore()
    let old = store.send(.screen(.workUntilCancelled))
    store.send(.show(2))
    await old.finish()
    #expect(log.values == ["screen 1 cancelled"])
    let new = store.send(.screen(.waitThenTick))
    gate.open()
    await new.finish()
    #expect(store.screen == Screen.State(id: 2, count: 1))
    // The old child's `.tick`, sent by its cancelled task, was dropped in silence, never
    // applied to the new child.
    #expect(issues.values.isEmpty, "\(issues.values)")
  }

  @Test func aChildWithTheSameIDKeepsItsEffects() async {
    let store = makeStore()
    let work = store.send(.screen(.waitThenTick))
    store.send(.show(1))
    gate.open()
    await work.finish()
    #expect(store.screen?.count == 1)
    #expect(issues.values.isEmpty)
  }

  @Test func becomingNilCancelsAndDropsStaleSendsInSilence() async {
    let store = makeStore()
    let work = store.send(.screen(.workUntilCancelled))
    store.send(.hide)
    await work.finish()
    #expect(log.values == ["screen 1 cancelled"])
    #expect(issues.values.isEmpty, "\(issues.values)")
  }
}
