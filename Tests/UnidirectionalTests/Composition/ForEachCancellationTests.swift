import Testing
import UnidirectionalTestSupport

@testable import Unidirectional

// Which row effects `forEach` cancels when a parent changes its rows: those of rows that are
// gone, and no others, whatever other arrays at the same key path hold.

// Two instances of one list feature side by side (Scope), as in a split view.
struct SplitPanel: Reducer {
  struct State: Sendable {
    var rows: IdentifiedArray<RowFeature.State> = []
  }
  enum Action: Sendable {
    case row(id: Int, action: RowFeature.Action)
    case add(Int)
    case remove(Int)
  }
  let log: Log<String>
  var body: some Reducer<State, Action> {
    Reduce { state, action in
      switch action {
      case .add(let id): state.rows.append(RowFeature.State(id: id))
      case .remove(let id): state.rows.remove(id: id)
      case .row: break
      }
      return .none
    }
    .forEach(\.rows, action: .case(Action.row)) { RowFeature(log: log) }
  }
}

struct SplitView: Reducer {
  struct State: Sendable {
    var left = SplitPanel.State()
    var right = SplitPanel.State()
  }
  enum Action: Sendable {
    case left(SplitPanel.Action)
    case right(SplitPanel.Action)
  }
  let log: Log<String>
  var body: some Reducer<State, Action> {
    Scope(state: \.left, action: .case(Action.left)) { SplitPanel(log: log) }
    Scope(state: \.right, action: .case(Action.right)) { SplitPanel(log: log) }
  }
}

/// Projects, each with its own list of tasks: a `forEach` inside a `forEach`.
struct ProjectsFeature: Reducer {
  struct State: Sendable {
    var projects: IdentifiedArray<ProjectFeature.State> = [
      ProjectFeature.State(id: 1, tasks: [RowFeature.State(id: 10)]),
      ProjectFeature.State(id: 2, tasks: [RowFeature.State(id: 20)]),
    ]
  }
  enum Action: Sendable {
    case project(id: Int, action: ProjectFeature.Action)
  }
  let log: Log<String>
  var body: some Reducer<State, Action> {
    EmptyReducer().forEach(\.projects, action: .case(Action.project)) { ProjectFeature(log: log) }
  }
}

struct ProjectFeature: Reducer {
  struct State: Sendable, Identifiable {
    let id: Int
    var tasks: IdentifiedArray<RowFeature.State>
  }
  enum Action: Sendable {
    case task(id: Int, action: RowFeature.Action)
    case remove(Int)
  }
  let log: Log<String>
  var body: some Reducer<State, Action> {
    Reduce { state, action in
      if case .remove(let id) = action { state.tasks.remove(id: id) }
      return .none
    }
    .forEach(\.tasks, action: .case(Action.task)) { RowFeature(log: log) }
  }
}

/// Rows that use a cancellation id of their own (`Screen.WorkID`).
struct SharedIDRows: Reducer {
  struct State: Sendable {
    var screens: IdentifiedArray<Screen.State> = [Screen.State(id: 1), Screen.State(id: 2)]
  }
  enum Action: Sendable {
    case screen(id: Int, action: Screen.Action)
  }
  let log: Log<String>
  let gate: Gate
  var body: some Reducer<State, Action> {
    EmptyReducer().forEach(\.screens, action: .case(Action.screen)) {
      Screen(log: log, gate: gate)
    }
  }
}

/// Rows with an undo and a redo: each puts back a whole copy of the rows.
struct UndoRedoRows: Reducer {
  struct State: Sendable {
    var rows: IdentifiedArray<RowFeature.State> = [RowFeature.State(id: 1)]
    var undo: IdentifiedArray<RowFeature.State> = []
    var redo: IdentifiedArray<RowFeature.State> = []
  }
  enum Action: Sendable {
    case row(id: Int, action: RowFeature.Action)
    case add(Int), checkpoint, undo, redo
  }
  let log: Log<String>
  var body: some Reducer<State, Action> {
    Reduce { state, action in
      switch action {
      case .add(let id): state.rows.append(RowFeature.State(id: id))
      case .checkpoint: state.undo = state.rows
      case .undo:
        state.redo = state.rows
        state.rows = state.undo
      case .redo: state.rows = state.redo
      case .row: break
      }
      return .none
    }
    .forEach(\.rows, action: .case(Action.row)) { RowFeature(log: log) }
  }
}

/// Two optional instances of one list feature, held by `ifLet` (not `Scope`).
struct OptionalPanels: Reducer {
  struct State: Sendable {
    var left: SplitPanel.State? = SplitPanel.State()
    var right: SplitPanel.State? = SplitPanel.State()
  }
  enum Action: Sendable {
    case left(SplitPanel.Action)
    case right(SplitPanel.Action)
  }
  let log: Log<String>
  var body: some Reducer<State, Action> {
    EmptyReducer()
      .ifLet(\.left, action: .case(Action.left)) { SplitPanel(log: log) }
      .ifLet(\.right, action: .case(Action.right)) { SplitPanel(log: log) }
  }
}

/// Tabs whose selected panel is reached through a computed key path: one `Scope`, several
/// instances over time.
struct ComputedTabs: Reducer {
  struct State: Sendable {
    var panels: [SplitPanel.State] = [SplitPanel.State(), SplitPanel.State()]
    var selection = 0
    var current: SplitPanel.State {
      get { panels[selection] }
      set { panels[selection] = newValue }
    }
  }
  enum Action: Sendable {
    case current(SplitPanel.Action)
    case select(Int)
  }
  let log: Log<String>
  var body: some Reducer<State, Action> {
    Reduce { state, action in
      if case .select(let index) = action { state.selection = index }
      return .none
    }
    Scope(state: \.current, action: .case(Action.current)) { SplitPanel(log: log) }
  }
}

@Suite(.timeLimit(.minutes(1))) struct ForEachCancellationTests {
  let log = Log<String>()

  /// Appending a row in one instance of a feature must not touch the other instance's rows.
  @Test func addingARowToOnePanelKeepsTheOtherPanelsRowEffects() async {
    let store = Store(initialState: SplitView.State(), reducer: SplitView(log: log))
    store.send(.left(.add(1)))
    let work = store.send(.left(.row(id: 1, action: .startLongWork)))
    store.send(.right(.add(2)))
    #expect(!work.isCancelled, "adding a row on the right cancelled a row's effect on the left")
    work.cancel()
    await work.finish()
  }

  /// Removing a row in one instance of a feature must not touch the other instance's rows: the
  /// element effects inside each `Scope` are scoped to its key path.
  @Test func removingARowFromOnePanelKeepsTheOtherPanelsRowEffects() async {
    let store = Store(initialState: SplitView.State(), reducer: SplitView(log: log))
    store.send(.left(.add(1)))
    store.send(.right(.add(2)))
    let work = store.send(.left(.row(id: 1, action: .startLongWork)))
    store.send(.right(.remove(2)))
    #expect(!work.isCancelled, "removing a row on the right cancelled a row's effect on the left")
    work.cancel()
    await work.finish()
  }
  /// Lists of lists: removing a task of one project cancels that task's effects, and none of
  /// another project's tasks (the inner lists share a key path, `\.tasks`).
  @Test func removingATaskOfOneProjectKeepsAnotherProjectsTaskEffects() async {
    let store = Store(initialState: ProjectsFeature.State(), reducer: ProjectsFeature(log: log))
    let removed = store.send(.project(id: 1, action: .task(id: 10, action: .startLongWork)))
    let other = store.send(.project(id: 2, action: .task(id: 20, action: .startLongWork)))
    store.send(.project(id: 1, action: .remove(10)))
    #expect(removed.isCancelled)
    #expect(!other.isCancelled, "removing project 1's task cancelled project 2's task")
    other.cancel()
    await removed.finish()
    await other.finish()
  }
  /// The ids a row's own code uses are the store's, shared by every row (as in TCA): one row's
  /// `.cancel(id:)` cancels another's effect under that id.
  @Test func theIDsARowUsesAreSharedWithTheOtherRows() async {
    let store = Store(
      initialState: SharedIDRows.State(), reducer: SharedIDRows(log: log, gate: Gate()))
    let work = store.send(.screen(id: 1, action: .startCancellableWork))
    store.send(.screen(id: 2, action: .cancelWork))
    await work.finish()
    #expect(log.values == ["screen 1 work cancelled"])
  }

  /// A redo puts back a copy that diverged by additions and has more rows, but lacks row 4,
  /// added after the undo: 4's effect must end.
  @Test func aRedoThatDropsARowCancelsItsEffects() async {
    let store = Store(initialState: UndoRedoRows.State(), reducer: UndoRedoRows(log: log))
    store.send(.checkpoint)  // undo: [1]
    store.send(.add(2))
    store.send(.add(3))  // rows: [1, 2, 3]
    store.send(.undo)  // rows: [1], redo: [1, 2, 3]
    store.send(.add(4))  // rows: [1, 4]
    let work = store.send(.row(id: 4, action: .startLongWork))
    let kept = store.send(.row(id: 1, action: .startLongWork))
    store.send(.redo)  // rows: [1, 2, 3]
    // Documented: telling this from additions alone would cost every append a visit of the
    // running effects.
    withKnownIssue("a redo after new additions is not seen to drop elements") {
      #expect(work.isCancelled, "row 4 is gone but its effect still runs")
    }
    #expect(!kept.isCancelled)
    work.cancel()
    kept.cancel()
    await work.finish()
    await kept.finish()
  }
  /// Two instances under `ifLet`: an addition on one side cancels nothing, and a removal
  /// there none of the other side's row effects.
  @Test func twoIfLetPanelsKeepTheirRowEffectsApart() async {
    let issues = Log<StoreIssue>()
    let store = Store(
      initialState: OptionalPanels.State(), reducer: OptionalPanels(log: log),
      onIssue: { issues.append($0) })
    store.send(.left(.add(1)))
    store.send(.right(.add(2)))
    let work = store.send(.left(.row(id: 1, action: .startLongWork)))
    store.send(.right(.add(3)))
    #expect(!work.isCancelled, "adding a row on the right cancelled a row's effect on the left")
    store.send(.right(.remove(2)))
    #expect(!work.isCancelled, "removing a row on the right cancelled a row's effect on the left")
    work.cancel()
    await work.finish()
    #expect(issues.values.isEmpty, "issues: \(issues.values)")
  }

  /// One `Scope` through a computed key path reaches another tab's panel after a selection. A
  /// row is where its reducers find it: once the key path reaches tab 1, tab 0's row 1 is not
  /// there (its effect's actions would reach tab 1, which has no row 1), so its effect ends at
  /// the selection, as any row that is gone. An addition to tab 1 ends nothing more.
  @Test func aRowTheKeyPathNoLongerReachesLosesItsEffects() async {
    let store = Store(initialState: ComputedTabs.State(), reducer: ComputedTabs(log: log))
    store.send(.current(.add(1)))
    let work = store.send(.current(.row(id: 1, action: .startLongWork)))
    store.send(.current(.add(5)))
    let kept = store.send(.current(.row(id: 5, action: .startLongWork)))
    store.send(.current(.add(2)))
    #expect(!work.isCancelled, "adding a row to tab 0 cancelled a row effect there")
    store.send(.select(1))
    #expect(work.isCancelled, "tab 0's row 1 is out of reach but its effect still runs")
    #expect(kept.isCancelled)
    await work.finish()
    await kept.finish()
  }

  /// Appending visits no running effects: only a change that may drop elements does (the
  /// visit is O(running ids), which a feed appending one row per action must not pay).
  @Test func anAppendIsNotALoss() {
    typealias Membership = ForEachReducer<
      EmptyReducer<SplitPanel.State, SplitPanel.Action>, RowFeature
    >.Membership
    var rows: IdentifiedArray<RowFeature.State> = [RowFeature.State(id: 1)]
    let start = Membership(rows)
    rows.append(RowFeature.State(id: 2))
    #expect(!Membership(rows).mayHaveLost(since: start))
    let afterAppend = Membership(rows)
    rows.remove(id: 1)
    #expect(Membership(rows).mayHaveLost(since: afterAppend))
  }
}
