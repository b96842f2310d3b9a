import Synchronization
import Testing
import UnidirectionalTestSupport

@testable import Unidirectional

// What a store keeps to end navigation children's effects (issue 33's review, F1–F5): a watch
// lives only while something can still act for its child, a lifted watch ends with the outer
// child it was lifted through, and no action of a child that is gone reaches the child after it,
// whether it comes from a task racing the replacement or from a synchronous `.send`.

/// A leaf whose `quick` effect ends at once.
private struct WatchedLeaf: Reducer {
  struct State: Equatable, Sendable, Identifiable {
    var id: Int
    var ticks = 0
  }
  enum Action: Equatable, Sendable { case quick, tick }
  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .quick: return .run { _ in }
    case .tick:
      state.ticks += 1
      return .none
    }
  }
}

/// A row with a presented leaf and a collection of leaves.
private struct WatchedRow: Reducer {
  struct State: Equatable, Sendable, Identifiable {
    var id: Int
    @PresentationState var sheet: WatchedLeaf.State?
    var items: IdentifiedArray<WatchedLeaf.State> = []
  }
  enum Action: Equatable, Sendable {
    case present(Int)
    case sheet(PresentationAction<WatchedLeaf.Action>)
    case items(IdentifiedActionOf<WatchedLeaf>)
    case addItem(Int)
    case removeItem(Int)
  }
  var body: some Reducer<State, Action> {
    Reduce { state, action in
      switch action {
      case .present(let id): state.sheet = WatchedLeaf.State(id: id)
      case .addItem(let id): state.items.append(WatchedLeaf.State(id: id))
      case .removeItem(let id): _ = state.items.remove(id: id)
      case .sheet, .items: break
      }
      return .none
    }
    .ifLet(\.$sheet, action: .case(Action.sheet)) { WatchedLeaf() }
    .forEach(\.items, action: .case(Action.items)) { WatchedLeaf() }
  }
}

/// A child that counts the reads of its id, and whose effect runs until cancelled.
private struct CountedLeaf: Reducer {
  static let idReads = Atomic<Int>(0)

  struct State: Equatable, Sendable, Identifiable {
    var storedID: Int
    var id: Int {
      CountedLeaf.idReads.add(1, ordering: .relaxed)
      return storedID
    }
  }
  enum Action: Equatable, Sendable { case wait }
  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    .run { _ in await waitForCancellation() }
  }
}

/// Rows, each presenting a counted child.
private struct CountedRows: Reducer {
  struct Row: Equatable, Sendable, Identifiable {
    var id: Int
    var edits = 0
    @PresentationState var sheet: CountedLeaf.State?
  }
  enum RowAction: Equatable, Sendable {
    case sheet(PresentationAction<CountedLeaf.Action>)
    case edit
  }
  struct State: Equatable, Sendable {
    var rows: IdentifiedArray<Row> = []
    var bumps = 0
  }
  enum Action: Equatable, Sendable {
    case rows(IdentifiedAction<Int, RowAction>)
    case bump
    case removeAll
  }
  var body: some Reducer<State, Action> {
    Reduce { state, action in
      switch action {
      case .bump: state.bumps += 1
      case .removeAll: state.rows.removeAll()
      case .rows: break
      }
      return .none
    }
    .forEach(\.rows, action: .case(Action.rows)) {
      Reduce<Row, RowAction> { state, action in
        if case .edit = action { state.edits += 1 }
        return .none
      }
      .ifLet(\.$sheet, action: .case(RowAction.sheet)) { CountedLeaf() }
    }
  }
}

/// Rows, each presenting a child whose effect logs its cancellation, and the ways a parent can
/// dismiss the child inside row 42.
private struct DismissedInRows: Reducer {
  struct Leaf: Reducer {
    struct State: Equatable, Sendable, Identifiable { var id: Int }
    enum Action: Equatable, Sendable { case wait }
    let cancelled: Log<Int>
    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      .run { [id = state.id, cancelled] _ in
        await withTaskCancellationHandler {
          await waitForCancellation()
        } onCancel: {
          cancelled.append(id)
        }
      }
    }
  }
  struct Row: Equatable, Sendable, Identifiable {
    var id: Int
    var edits = 0
    @PresentationState var sheet: Leaf.State?
  }
  enum RowAction: Equatable, Sendable {
    case sheet(PresentationAction<Leaf.Action>)
    case edit
  }
  struct State: Equatable, Sendable {
    var rows: IdentifiedArray<Row> = IdentifiedArray(
      uniqueElements: (40..<45).map { Row(id: $0, sheet: Leaf.State(id: $0)) })
  }
  /// A way to dismiss row 42's child, or (`.editOtherRows`) to leave it.
  enum Edit: CaseIterable, Sendable {
    case byIDSubscript, byPosition, twoRowsThenIt, itThenAnotherRow, rebuiltArray
    case sortedThenByID, rowRemoved, rowReplacedByID, editOtherRows
  }
  enum Action: Equatable, Sendable {
    case rows(IdentifiedAction<Int, RowAction>)
    case edit(Edit)
    case editFromEffect(Edit)
  }
  let cancelled: Log<Int>

  var body: some Reducer<State, Action> {
    Reduce { state, action in
      switch action {
      case .edit(let edit): Self.apply(edit, to: &state.rows)
      case .editFromEffect(let edit):
        return .run { send in
          await Task { await send(.edit(edit)) }.value
        }
      case .rows: break
      }
      return .none
    }
    .forEach(\.rows, action: .case(Action.rows)) {
      Reduce<Row, RowAction> { state, action in
        if case .edit = action { state.edits += 1 }
        return .none
      }
      .ifLet(\.$sheet, action: .case(RowAction.sheet)) { Leaf(cancelled: cancelled) }
    }
  }

  static func apply(_ edit: Edit, to rows: inout IdentifiedArray<Row>) {
    switch edit {
    case .byIDSubscript:
      rows[id: 42]?.sheet = nil
    case .byPosition:
      rows[rows.index(id: 42)!].sheet = nil
    case .twoRowsThenIt:
      rows[id: 40]?.edits += 1
      rows[id: 41]?.edits += 1
      rows[id: 42]?.sheet = nil
    case .itThenAnotherRow:
      rows[id: 42]?.sheet = nil
      rows[id: 43]?.edits += 1
    case .rebuiltArray:
      rows = IdentifiedArray(
        uniqueElements: rows.elementsArray.map { row in
          var row = row
          if row.id == 42 { row.sheet = nil }
          return row
        })
    case .sortedThenByID:
      rows.sort { $0.id > $1.id }
      rows[id: 42]?.sheet = nil
    case .rowRemoved:
      _ = rows.remove(id: 42)
    case .rowReplacedByID:
      rows[id: 42] = Row(id: 42)
    case .editOtherRows:
      rows[id: 41]?.edits += 1
      rows[id: 43]?.sheet = Leaf.State(id: 43)
      rows.sort { $0.id > $1.id }
    }
  }
}

/// Rows, a presented row and a stack of rows, changed from the outside.
private struct WatchedRoot: Reducer {
  struct State: Equatable, Sendable {
    var rows: IdentifiedArray<WatchedRow.State> = []
    @PresentationState var sheet: WatchedRow.State?
    var path = StackState<WatchedRow.State>()
    var bumps = 0
  }
  enum Action: Equatable, Sendable {
    case rows(IdentifiedActionOf<WatchedRow>)
    case sheet(PresentationAction<WatchedRow.Action>)
    case path(StackAction<WatchedRow.State, WatchedRow.Action>)
    case addRow(Int)
    case bump
    case presentSheet(Int)
    case changeSheetID(Int)
    case push(Int)
    case rebuildPath
  }
  var body: some Reducer<State, Action> {
    Reduce { state, action in
      switch action {
      case .addRow(let id): state.rows.append(WatchedRow.State(id: id))
      case .bump: state.bumps += 1
      case .presentSheet(let id): state.sheet = WatchedRow.State(id: id)
      case .changeSheetID(let id): state.sheet?.id = id
      case .push(let id): state.path.append(WatchedRow.State(id: id))
      case .rebuildPath: state.path = StackState(state.path.elements)
      case .rows, .sheet, .path: break
      }
      return .none
    }
    .forEach(\.rows, action: .case(Action.rows)) { WatchedRow() }
    .ifLet(\.$sheet, action: .case(Action.sheet)) { WatchedRow() }
    .forEach(\.path, action: .case(Action.path)) { WatchedRow() }
  }
}

/// A child that pings itself, with its own id, until it is cancelled.
private struct WatchedSpinner: Reducer {
  struct State: Equatable, Sendable, Identifiable {
    var id: Int
    var pings = 0
    var foreignPings = 0
  }
  enum Action: Equatable, Sendable { case spin, ping(Int) }
  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .spin:
      return .run { [id = state.id] send in
        while !Task.isCancelled {
          await send(.ping(id))
          await Task.yield()
        }
      }
    case .ping(let id):
      if id == state.id { state.pings += 1 } else { state.foreignPings += 1 }
      return .none
    }
  }
}

private struct WatchedSpinnerHost: Reducer {
  struct State: Equatable, Sendable {
    @PresentationState var sheet: WatchedSpinner.State?
  }
  enum Action: Equatable, Sendable {
    case sheet(PresentationAction<WatchedSpinner.Action>)
    case replace(Int)
  }
  var body: some Reducer<State, Action> {
    Reduce { state, action in
      if case .replace(let id) = action { state.sheet = WatchedSpinner.State(id: id) }
      return .none
    }
    .ifLet(\.$sheet, action: .case(Action.sheet)) { WatchedSpinner() }
  }
}

/// A child whose `kick` sends `tick` synchronously, and a sibling that replaces the child in the
/// same action.
private struct WatchedKicked: Reducer {
  struct State: Equatable, Sendable, Identifiable {
    var id: Int
    var ticks = 0
  }
  enum Action: Equatable, Sendable { case kick, tick }
  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .kick: return .send(.tick)
    case .tick:
      state.ticks += 1
      return .none
    }
  }
}

private struct WatchedKickedHost: Reducer {
  struct State: Equatable, Sendable {
    var child: WatchedKicked.State? = WatchedKicked.State(id: 1)
    /// Whether a kick also replaces the child with another (id 2).
    var replacesOnKick = true
  }
  enum Action: Equatable, Sendable { case child(WatchedKicked.Action) }
  var body: some Reducer<State, Action> {
    EmptyReducer()
      .ifLet(\.child, action: .case(Action.child)) { WatchedKicked() }
    Reduce { state, action in
      if case .child(.kick) = action, state.replacesOnKick {
        state.child = WatchedKicked.State(id: 2)
      }
      return .none
    }
  }
}

@Suite(.timeLimit(.minutes(2))) struct ChildWatchBookkeepingTests {
  let issues = Log<StoreIssue>()

  private func makeStore() -> Store<WatchedRoot.State, WatchedRoot.Action> {
    Store(initialState: WatchedRoot.State(), reducer: WatchedRoot()) { [issues] in issues.append($0)
    }
  }

  /// Rows whose children ran effects that ended leave nothing to check after later actions: the
  /// watches of a store are as many as the children that can still act, not one per row that
  /// ever ran an effect.
  @Test func rowsWhoseEffectsEndedLeaveNoWatches() async {
    let store = makeStore()
    for id in 0..<200 {
      store.send(.addRow(id))
      store.send(.rows(.element(id: id, action: .present(id))))
      await store.send(.rows(.element(id: id, action: .sheet(.presented(.quick))))).finish()
      store.send(.rows(.element(id: id, action: .addItem(1))))
      await store.send(.rows(.element(id: id, action: .items(.element(id: 1, action: .quick)))))
        .finish()
    }
    store.send(.bump)
    #expect(store.effects.bookkeeping.watches == 0)
    #expect(store.effects.bookkeeping.lifetimes == 0)
    #expect(issues.values.isEmpty)
  }

  /// Children inside rows whose effects run are checked after an action only if it wrote their
  /// row: an action elsewhere checks none of them, one that edits a row checks that row's.
  @Test func onlyTheRowsAnActionWroteAreChecked() async {
    let rows = IdentifiedArray(
      uniqueElements: (0..<100).map {
        CountedRows.Row(id: $0, sheet: CountedLeaf.State(storedID: $0))
      })
    let store = Store(initialState: CountedRows.State(rows: rows), reducer: CountedRows()) {
      [issues] in issues.append($0)
    }
    for id in 0..<100 { store.send(.rows(.element(id: id, action: .sheet(.presented(.wait))))) }
    #expect(store.effects.bookkeeping.watches == 101)
    store.send(.bump)
    CountedLeaf.idReads.store(0, ordering: .relaxed)
    store.send(.bump)
    store.send(.bump)
    #expect(CountedLeaf.idReads.load(ordering: .relaxed) == 0)
    store.send(.rows(.element(id: 42, action: .edit)))
    let readsForOneRow = CountedLeaf.idReads.load(ordering: .relaxed)
    #expect(readsForOneRow > 0)
    #expect(readsForOneRow <= 4)
    store.send(.removeAll)
    await store.effects.activity.waitUntilDone()
    #expect(store.effects.runningCount == 0)
    #expect(issues.values.isEmpty)
  }

  /// A child inside a row ends at the end of the action that dismissed it, whichever way the
  /// parent wrote the rows (by id, by position, several rows, a new array, a sort, removing or
  /// replacing the row), and whether that action came from the user or from an effect's
  /// unstructured task; rows the action did not dismiss keep their children's effects.
  @Test(arguments: DismissedInRows.Edit.allCases, [false, true])
  fileprivate func aChildInARowEndsWithItsDismissal(edit: DismissedInRows.Edit, fromEffect: Bool)
    async
  {
    let cancelled = Log<Int>()
    // Effects run when drained, so that each has reached its wait before the edit.
    let executor = TestExecutor()
    let store = Store(
      initialState: DismissedInRows.State(), reducer: DismissedInRows(cancelled: cancelled),
      onIssue: { [issues] in issues.append($0) }, effectExecutor: executor)
    for id in 40..<45 { store.send(.rows(.element(id: id, action: .sheet(.presented(.wait))))) }
    // A first action after the effects started, so that the collection's versions were seen.
    store.send(.rows(.element(id: 44, action: .edit)))
    executor.drain()
    if fromEffect {
      await store.send(.editFromEffect(edit)).finish()
    } else {
      store.send(.edit(edit))
    }
    executor.drain()
    #expect(cancelled.values == (edit == .editOtherRows ? [] : [42]))
    #expect(store.effects.runningCount == (edit == .editOtherRows ? 5 : 4))
    #expect(issues.values.isEmpty)
  }

  /// A grandchild's watch is lifted through its presented parent: when that parent becomes a new
  /// presentation (another id), the grandchild is another one, and the old watch ends.
  @Test func aNewPresentationEndsTheWatchesLiftedThroughTheOldOne() async {
    let store = makeStore()
    store.send(.presentSheet(0))
    store.send(.sheet(.presented(.present(100))))
    for id in 1...50 {
      await store.send(.sheet(.presented(.sheet(.presented(.quick))))).finish()
      store.send(.changeSheetID(id))
    }
    store.send(.bump)
    #expect(store.effects.bookkeeping.watches == 0)
    #expect(store.effects.bookkeeping.lifetimes == 0)
  }

  /// The same through a stack replaced by a new one with the same elements.
  @Test func aNewStackEndsTheWatchesLiftedThroughTheOldOne() async {
    let store = makeStore()
    store.send(.push(0))
    store.send(.path(.element(id: 0, action: .present(5))))
    for _ in 1...50 {
      await store.send(.path(.element(id: 0, action: .sheet(.presented(.quick))))).finish()
      store.send(.rebuildPath)
    }
    store.send(.bump)
    #expect(store.effects.bookkeeping.watches == 0)
    #expect(store.effects.bookkeeping.lifetimes == 0)
  }

  /// A child's synchronous `.send` is the child's too: when the action that sent it also replaced
  /// the child, the new child never receives it; when the child is still there, it does.
  @Test(arguments: [true, false])
  func aChildsSendEffectReachesItsChildOnly(replacesOnKick: Bool) {
    let store = Store(
      initialState: WatchedKickedHost.State(replacesOnKick: replacesOnKick),
      reducer: WatchedKickedHost()
    ) { [issues] in issues.append($0) }
    store.send(.child(.kick))
    #expect(
      store.child
        == (replacesOnKick
          ? WatchedKicked.State(id: 2, ticks: 0) : WatchedKicked.State(id: 1, ticks: 1)))
    #expect(issues.values.isEmpty)
  }

  /// The action of a child's effect is checked after its sender took the store, in a plain and
  /// in an intercepted store: the owner that removed the child marked it gone before giving the
  /// store up, so a sender that checked before taking the store could reach the replacement.
  @Test(arguments: [false, true])
  func aGoneChildsActionIsDroppedOnceItsSenderTookTheStore(intercepted: Bool) {
    let store = Store(
      initialState: WatchedKickedHost.State(), reducer: WatchedKickedHost(),
      interceptors: intercepted ? [StoreInterceptor()] : [],
      onIssue: { [issues] in issues.append($0) })
    let gone = ChildLifetime(releases: .init())
    gone.end()
    _ = store.process(
      .child(.tick), from: EffectOrigin(task: .max, children: [gone], site: nil))
    #expect(store.child?.ticks == 0)
    _ = store.process(
      .child(.tick),
      from: EffectOrigin(task: .max, children: [ChildLifetime(releases: .init())], site: nil))
    #expect(store.child?.ticks == 1)
    #expect(issues.values.isEmpty)
  }

  /// An old child's effect that keeps sending while the child is replaced: none of its actions
  /// reaches the new child, whichever thread takes the store first, and none is reported (its
  /// task was cancelled with its child). Bounded: 100 replacements, each after 20 pings or 4,000
  /// polls.
  @Test func aReplacedChildsRacingActionsNeverReachTheNewChild() async {
    let store = Store(initialState: WatchedSpinnerHost.State(), reducer: WatchedSpinnerHost()) {
      [issues] in issues.append($0)
    }
    var foreignPings = 0
    for id in 1...100 {
      store.send(.replace(id))
      store.send(.sheet(.presented(.spin)))
      var polls = 0
      while (store.sheet?.pings ?? 0) < 20, polls < 4_000 {
        await Task.yield()
        polls += 1
      }
      foreignPings += store.sheet?.foreignPings ?? 0
    }
    store.send(.sheet(.dismiss))
    await store.effects.activity.waitUntilDone()
    #expect(foreignPings == 0)
    #expect(
      issues.values.allSatisfy {
        if case .actionFromDismissedChild = $0.kind { false } else { true }
      })
  }
}
