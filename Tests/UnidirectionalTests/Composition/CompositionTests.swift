import Testing
import Unidirectional
import UnidirectionalTestSupport

// A three-level tree: app → list → row, with an optional detail and an enum mode.

struct RowFeature: Reducer {
  struct State: Identifiable, Equatable, Sendable {
    let id: Int
    var title = ""
    var taps = 0
  }
  enum Action: Equatable, Sendable {
    case tapped
    case startLongWork
    case finished
  }
  let log: Log<String>
  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .tapped:
      state.taps += 1
      return .none
    case .startLongWork:
      return .run { [id = state.id, log] send in
        await waitForCancellation()
        log.append("row \(id) work cancelled")
        await send(.finished)  // Dropped: cancelled.
      }
    case .finished:
      state.title = "finished"
      return .none
    }
  }
}

struct ListFeature: Reducer {
  struct State: Equatable, Sendable {
    var rows: IdentifiedArray<RowFeature.State> = []
  }
  enum Action: Sendable {
    case row(id: Int, action: RowFeature.Action)
    case remove(id: Int)
  }
  let log: Log<String>
  var body: some Reducer<State, Action> {
    Reduce { state, action in
      if case .remove(let id) = action { state.rows[id: id] = nil }
      return .none
    }
    .forEach(\.rows, action: .row) { RowFeature(log: log) }
  }
}

extension CasePath where Root == ListFeature.Action {
  static var row: CasePath<ListFeature.Action, (id: Int, action: RowFeature.Action)> {
    .init(ListFeature.Action.row) {
      if case .row(let id, let action) = $0 { (id, action) } else { nil }
    }
  }
}

struct DetailFeature: Reducer {
  struct State: Equatable, Sendable { var text = "" }
  enum Action: Sendable {
    case edit(String)
    case startWork
  }
  let log: Log<String>
  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .edit(let text):
      state.text = text
      return .none
    case .startWork:
      return .run { [log] _ in
        await waitForCancellation()
        log.append("detail work cancelled")
      }
    }
  }
}

struct AppFeature: Reducer {
  struct State: Equatable, Sendable {
    var list = ListFeature.State()
    var detail: DetailFeature.State?
  }
  enum Action: Sendable {
    case list(ListFeature.Action)
    case detail(DetailFeature.Action)
    case showDetail
    case dismissDetail
  }
  let log: Log<String>
  var body: some Reducer<State, Action> {
    Scope(state: \.list, action: .list) { ListFeature(log: log) }
    Reduce<State, Action> { state, action in
      switch action {
      case .showDetail: state.detail = DetailFeature.State()
      case .dismissDetail: state.detail = nil
      default: break
      }
      return .none
    }
    .ifLet(\.detail, action: .detail) { DetailFeature(log: log) }
  }
}

extension CasePath where Root == AppFeature.Action {
  static var list: CasePath<AppFeature.Action, ListFeature.Action> {
    .init(AppFeature.Action.list) { if case .list(let a) = $0 { a } else { nil } }
  }
  static var detail: CasePath<AppFeature.Action, DetailFeature.Action> {
    .init(AppFeature.Action.detail) { if case .detail(let a) = $0 { a } else { nil } }
  }
}

/// A feature whose whole state is an enum: the editor runs only while editing.
struct ModeFeature: Reducer {
  enum State: Equatable, Sendable {
    case editing(DetailFeature.State)
    case viewing
  }
  enum Action: Sendable {
    case editor(DetailFeature.Action)
    case view
  }
  let log: Log<String>
  var body: some Reducer<State, Action> {
    Scope(state: .editing, action: .editor) { DetailFeature(log: log) }
    Reduce { state, action in
      if case .view = action { state = .viewing }
      return .none
    }
  }
}

extension CasePath where Root == ModeFeature.State {
  static var editing: CasePath<ModeFeature.State, DetailFeature.State> {
    .init(ModeFeature.State.editing) { if case .editing(let s) = $0 { s } else { nil } }
  }
}

extension CasePath where Root == ModeFeature.Action {
  static var editor: CasePath<ModeFeature.Action, DetailFeature.Action> {
    .init(ModeFeature.Action.editor) { if case .editor(let a) = $0 { a } else { nil } }
  }
}

@Suite struct CompositionTests {
  let log = Log<String>()
  let issues = Log<String>()

  func makeStore(rows: [Int] = [1, 2, 3]) -> Store<AppFeature.State, AppFeature.Action> {
    var state = AppFeature.State()
    state.list.rows = IdentifiedArray(uniqueElements: rows.map { RowFeature.State(id: $0) })
    return Store(initialState: state, reducer: AppFeature(log: log)) { [issues] issue in
      issues.append(issue.description)
    }
  }

  @Test func casePathsEmbedAndExtract() {
    let path = CasePath<AppFeature.Action, ListFeature.Action>.list
    guard case .list(.remove(let id)) = path.embed(.remove(id: 4)) else {
      Issue.record("embed built the wrong case")
      return
    }
    #expect(id == 4)
    #expect(path.extract(.showDetail) == nil)
    #expect(path.extract(.list(.remove(id: 5))) != nil)
  }

  @Test func aRowActionChangesOnlyThatRow() {
    let store = makeStore()
    let before = store.state
    store.send(.list(.row(id: 2, action: .tapped)))
    var expected = before
    expected.list.rows[id: 2]?.taps = 1
    #expect(store.state == expected)
    #expect(issues.values.isEmpty)
  }

  @Test func removingARowCancelsItsEffectsOnly() async {
    let store = makeStore()
    let two = store.send(.list(.row(id: 2, action: .startLongWork)))
    let three = store.send(.list(.row(id: 3, action: .startLongWork)))
    store.send(.list(.remove(id: 2)))
    await two.finish()
    #expect(log.values == ["row 2 work cancelled"])
    #expect(store.list.rows.ids == [1, 3])
    #expect(!three.isCancelled)
    three.cancel()
    await three.finish()
    #expect(store[\.list.rows[id: 3]?.title] == "")  // Its `.finished` was dropped.
  }

  /// Rows behind a computed property have no stored offset: `forEach` reaches them through its
  /// key path (the path its fast one leaves out of line). Row actions, a missing row and a
  /// row's effect cancelled by a removal behave as for stored rows.
  @Test func forEachOverAComputedPropertyReachesItsRows() async {
    struct Pages: Reducer {
      struct State: Sendable {
        var pages: [IdentifiedArray<RowFeature.State>] = [[RowFeature.State(id: 1)], []]
        var page = 0
        var rows: IdentifiedArray<RowFeature.State> {
          get { pages[page] }
          set { pages[page] = newValue }
        }
      }
      let log: Log<String>
      var body: some Reducer<State, ListFeature.Action> {
        Reduce { state, action in
          if case .remove(let id) = action { state.rows[id: id] = nil }
          return .none
        }
        .forEach(\.rows, action: .row) { RowFeature(log: log) }
      }
    }
    let issues = Log<String>()
    let store = Store(initialState: Pages.State(), reducer: Pages(log: log)) {
      issues.append("\($0)")
    }
    store.send(.row(id: 1, action: .tapped))
    store.send(.row(id: 1, action: .tapped))
    #expect(store[\.pages[0][id: 1]?.taps] == 2)
    store.send(.row(id: 7, action: .tapped))
    #expect(issues.values.count == 1)
    let work = store.send(.row(id: 1, action: .startLongWork))
    store.send(.remove(id: 1))
    await work.finish()
    #expect(log.values.contains("row 1 work cancelled"))
    #expect(store[\.pages[0]].isEmpty)
  }

  @Test func anElementReducerThatChangesTheIDStops() async {
    let result = await #expect(
      processExitsWith: .failure, observing: [\.standardErrorContent]
    ) {
      struct Renumber: Reducer {
        func reduce(into state: inout RowFeature.State, action: RowFeature.Action)
          -> Effect<RowFeature.Action>
        {
          state = RowFeature.State(id: state.id + 10)
          return .none
        }
      }
      struct List: Reducer {
        var body: some Reducer<ListFeature.State, ListFeature.Action> {
          EmptyReducer().forEach(\.rows, action: .row) { Renumber() }
        }
      }
      var state = ListFeature.State()
      state.rows = [RowFeature.State(id: 1), RowFeature.State(id: 2)]
      let store = Store(initialState: state, reducer: List())
      store.send(.row(id: 2, action: .tapped))
    }
    // Optimized builds stop without printing a precondition's message.
    #if DEBUG
      #expect(
        result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) }?
          .contains("IdentifiedArray: an element's id changed from 2 to 12 in an element reducer")
          == true)
    #else
      #expect(result != nil)
    #endif
  }

  /// A parent that restores an earlier copy of its rows (an undo) removes the rows added since:
  /// their effects are cancelled, though no row was removed by a removal.
  @Test func restoringAnEarlierCopyOfTheRowsCancelsTheEffectsOfRowsAddedSince() async {
    struct Undoable: Reducer {
      struct State: Sendable {
        var rows: IdentifiedArray<RowFeature.State> = [RowFeature.State(id: 1)]
        var saved: IdentifiedArray<RowFeature.State> = []
      }
      enum Action: Sendable {
        case row(id: Int, action: RowFeature.Action)
        case save, add(Int), restore
      }
      let log: Log<String>
      var body: some Reducer<State, Action> {
        Reduce { state, action in
          switch action {
          case .save: state.saved = state.rows
          case .add(let id): state.rows.append(RowFeature.State(id: id))
          case .restore: state.rows = state.saved
          case .row: break
          }
          return .none
        }
        .forEach(\.rows, action: .case(Action.row)) { RowFeature(log: log) }
      }
    }
    for replacement in [[2], [2, 3]] {
      let store = Store(initialState: Undoable.State(), reducer: Undoable(log: log))
      store.send(.save)
      // One added row, or two (then the restored copy has fewer rows than the current one).
      for id in replacement { store.send(.add(id)) }
      let work = store.send(.row(id: 2, action: .startLongWork))
      let kept = store.send(.row(id: 1, action: .startLongWork))
      store.send(.restore)
      #expect(store.rows.ids == [1])
      #expect(work.isCancelled, "the effect of row 2, gone, still runs (added \(replacement))")
      #expect(!kept.isCancelled)
      work.cancel()
      kept.cancel()
      await work.finish()
      await kept.finish()
    }
    // Rows added in place of others, as many: the restored copy has as many rows as before.
    let store = Store(initialState: Undoable.State(), reducer: Undoable(log: log))
    store.send(.add(2))
    store.send(.save)
    store.send(.restore)
    let work = store.send(.row(id: 2, action: .startLongWork))
    store.send(.save)
    #expect(!work.isCancelled)
    work.cancel()
    await work.finish()
  }

  @Test func anActionForAMissingRowIsReportedAndIgnored() {
    let store = makeStore()
    let before = store.state
    store.send(.list(.row(id: 99, action: .tapped)))
    #expect(store.state == before)
    #expect(issues.values.count == 1)
    #expect(issues.values.first?.contains("id 99") == true)
  }

  @Test func ifLetRunsTheChildWhilePresentAndCancelsOnDismiss() async {
    let store = makeStore()
    store.send(.showDetail)
    store.send(.detail(.edit("hello")))
    #expect(store.detail?.text == "hello")
    let work = store.send(.detail(.startWork))
    store.send(.dismissDetail)
    await work.finish()
    #expect(log.values == ["detail work cancelled"])
    #expect(store.detail == nil)
  }

  @Test func aChildActionWithoutChildStateIsReportedAndIgnored() {
    let store = makeStore()
    store.send(.detail(.edit("lost")))
    #expect(store.detail == nil)
    #expect(issues.values.count == 1)
    #expect(issues.values.first?.contains("DetailFeature.State") == true)
  }

  @Test func enumStateRoutesToTheActiveCaseOnly() {
    let store = Store(initialState: .editing(DetailFeature.State()), reducer: ModeFeature(log: log))
    {
      [issues] issue in issues.append(issue.description)
    }
    store.send(.editor(.edit("draft")))
    #expect(store.state == .editing(DetailFeature.State(text: "draft")))
    store.send(.view)
    store.send(.editor(.edit("ignored")))
    #expect(store.state == .viewing)
    #expect(issues.values.count == 1)
    #expect(
      issues.values.first?.contains("DetailFeature.State of ModeFeature.State")
        == true)
  }
}
