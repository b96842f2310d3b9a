import Testing
import Unidirectional
import UnidirectionalTestSupport

// A three-level tree: app → list → row, with an optional detail and an enum mode.
// The list's `forEach` rows are tested in CompositionTests+ForEach.

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
