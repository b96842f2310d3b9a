import Unidirectional

// Issue 3's scenarios: sends through child stores, and a list whose rows each have a child
// store with an observer.

/// One level of nesting: the state of the level below, under `inner`.
struct Nest<Inner: Sendable>: Sendable {
  var inner: Inner
}

/// Ten levels down to a counter.
typealias TenDeep = Nest<Nest<Nest<Nest<Nest<Nest<Nest<Nest<Nest<Nest<Int>>>>>>>>>>

/// Adds the action to the counter at the bottom, through one `Scope` per level. Every level's
/// action is an `Int`, so scoping embeds with the identity.
struct Bottom: Reducer {
  func reduce(into state: inout Int, action: Int) -> Effect<Int> {
    state &+= action
    return .none
  }
}

/// One level. The `Scope` is built once: in generic code like this, a key-path literal is
/// instantiated at run time on every evaluation, which a feature's non-generic `body` avoids.
struct Level<Inner: Reducer>: Reducer where Inner.Action == Int, Inner.State: Sendable {
  let scope: Scope<Nest<Inner.State>, Int, Inner>
  init(inner: Inner) {
    scope = Scope(state: \.inner, action: .identity) { inner }
  }
  func reduce(into state: inout Nest<Inner.State>, action: Int) -> Effect<Int> {
    scope.reduce(into: &state, action: action)
  }
}

extension CasePath where Root == Int, Value == Int {
  static var identity: Self { .init({ $0 }, extract: { $0 }) }
}

typealias TenLevels = Level<Level<Level<Level<Level<Level<Level<Level<Level<Level<Bottom>>>>>>>>>>

func tenLevels() -> TenLevels {
  Level(
    inner: Level(
      inner: Level(
        inner: Level(
          inner: Level(
            inner: Level(inner: Level(inner: Level(inner: Level(inner: Level(inner: Bottom()))))))))
    ))
}

func tenDeepState() -> TenDeep {
  Nest(
    inner: Nest(
      inner: Nest(
        inner: Nest(
          inner: Nest(inner: Nest(inner: Nest(inner: Nest(inner: Nest(inner: Nest(inner: 0))))))))))
}

struct RowState: Identifiable, Sendable {
  let id: Int
  var value = 0
}

struct ListState: Sendable {
  var rows: IdentifiedArray<RowState>
}

enum ListAction: Sendable {
  case row(id: Int, action: Int)
}

struct RowReducer: Reducer {
  func reduce(into state: inout RowState, action: Int) -> Effect<Int> {
    state.value &+= action
    return .none
  }
}

struct ListReducer: Reducer {
  var body: some Reducer<ListState, ListAction> {
    EmptyReducer().forEach(\.rows, action: .row) { RowReducer() }
  }
}

extension CasePath where Root == ListAction {
  static var row: CasePath<ListAction, (id: Int, action: Int)> {
    .init(ListAction.row) { if case .row(let id, let action) = $0 { (id, action) } else { nil } }
  }
}

@MainActor
func makeCompositionScenarios() -> [Scenario] {
  /// - Parameter byKeyPath: Whether each row's observer is `row.observe(\.value) { … }` rather
  ///   than `row.observe { … row.value … }`.
  func listScenario(rows: Int, byKeyPath: Bool = false) -> () -> (Int) -> Void {
    {
      let store = Store(
        initialState: ListState(
          rows: IdentifiedArray(uniqueElements: (0..<rows).map { RowState(id: $0) }))
      ) { ListReducer() }
      let sink = Sink()
      let tokens = (0..<rows).map { id in
        let row = store.scope(state: \.rows, id: id) { ListAction.row(id: id, action: $0) }!
        if byKeyPath { return row.observe(\.value) { sink.add($0) } }
        return row.observe { sink.add(row.value) }
      }
      return { iterations in
        for iteration in 0..<iterations {
          store.send(.row(id: iteration % rows, action: 1))
        }
        withExtendedLifetime(tokens) {}
      }
    }
  }
  return [
    // Issue 17: composition costs at most ten plain sends (B1), measured in the same run.
    Scenario(
      name: "C0 root send, 10 nested Scopes", actions: 2_000_000,
      target: .ratio(over: "B1 send, no observers", atMost: 10)
    ) {
      let store = Store(initialState: tenDeepState(), reducer: tenLevels())
      return { iterations in
        for _ in 0..<iterations { store.send(1) }
        blackHole(store)
      }
    },
    Scenario(
      name: "C1 child send, 1 level", actions: 1_000_000,
      target: .ratio(over: "C0 root send, 10 nested Scopes", atMost: 3)
    ) {
      let store = Store(initialState: tenDeepState(), reducer: tenLevels())
      let child = store.scope(state: \.inner, action: { (action: Int) in action })
      return { iterations in
        for _ in 0..<iterations { child.send(1) }
        blackHole(store)
      }
    },
    Scenario(
      name: "C2 child send, 10 levels", actions: 1_000_000,
      target: .ratio(over: "C0 root send, 10 nested Scopes", atMost: 3)
    ) {
      let store = Store(initialState: tenDeepState(), reducer: tenLevels())
      // Ten nested child stores, each scoped from the one above.
      let child = store.scope(state: \.inner, action: { (action: Int) in action })
        .scope(state: \.inner, action: { (action: Int) in action })
        .scope(state: \.inner, action: { (action: Int) in action })
        .scope(state: \.inner, action: { (action: Int) in action })
        .scope(state: \.inner, action: { (action: Int) in action })
        .scope(state: \.inner, action: { (action: Int) in action })
        .scope(state: \.inner, action: { (action: Int) in action })
        .scope(state: \.inner, action: { (action: Int) in action })
        .scope(state: \.inner, action: { (action: Int) in action })
        .scope(state: \.inner, action: { (action: Int) in action })
      precondition(child.state == 0)
      return { iterations in
        for _ in 0..<iterations { child.send(1) }
        blackHole(store)
      }
    },
    Scenario(
      name: "C3 forEach, 1 row with a child-store observer", actions: 500_000,
      target: .ratio(over: "B1 send, no observers", atMost: 10), make: listScenario(rows: 1)),
    Scenario(
      name: "C4 forEach, 1000 rows, one changes per action", actions: 2_000,
      target: .ratio(over: "C3 forEach, 1 row with a child-store observer", atMost: 2),
      make: listScenario(rows: 1_000)
    ),
    Scenario(
      name: "C5 forEach, 1 row observed by key path", actions: 500_000,
      target: .ratio(over: "C3 forEach, 1 row with a child-store observer", atMost: 1.2),
      make: listScenario(rows: 1, byKeyPath: true)),
  ]
}
