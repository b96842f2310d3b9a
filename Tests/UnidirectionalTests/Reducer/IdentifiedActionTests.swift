import Testing
import Unidirectional
import UnidirectionalTestSupport

// Actions addressed to one element of a `forEach` by id (`IdentifiedAction`).

/// A list of screens addressed by `IdentifiedAction`.
struct ScreenList: Reducer {
  struct State: Equatable, Sendable {
    var rows: IdentifiedArray<Screen.State> = []
  }

  enum Action: Equatable, Sendable {
    case rows(IdentifiedActionOf<Screen>)
    case remove(Int)
  }

  let log: Log<String>
  let gate: Gate

  var body: some Reducer<State, Action> {
    Reduce { state, action in
      if case .remove(let id) = action { state.rows[id: id] = nil }
      return .none
    }
    .forEach(\.rows, action: .rows) { Screen(log: log, gate: gate) }
  }
}

extension CasePath where Root == ScreenList.Action {
  static var rows: CasePath<ScreenList.Action, IdentifiedActionOf<Screen>> {
    .init(ScreenList.Action.rows) { if case .rows(let a) = $0 { a } else { nil } }
  }
}

@Suite(.timeLimit(.minutes(1))) struct IdentifiedActionTests {
  let log = Log<String>()
  let issues = Log<String>()
  let gate = Gate()

  func makeStore() -> Store<ScreenList.State, ScreenList.Action> {
    let rows = IdentifiedArray(uniqueElements: [1, 2, 3].map { Screen.State(id: $0) })
    return Store(
      initialState: ScreenList.State(rows: rows), reducer: ScreenList(log: log, gate: gate)
    ) { [issues] in issues.append($0.description) }
  }

  @Test func anElementActionReachesThatElementOnly() {
    let store = makeStore()
    store.send(.rows(.element(id: 2, action: .increment)))
    #expect(store.rows.elementsArray.map(\.count) == [0, 1, 0])
    #expect(issues.values.isEmpty)
  }

  @Test func removingAnElementCancelsItsEffectsOnly() async {
    let store = makeStore()
    let two = store.send(.rows(.element(id: 2, action: .workUntilCancelled)))
    let three = store.send(.rows(.element(id: 3, action: .waitThenTick)))
    store.send(.remove(2))
    await two.finish()
    #expect(log.values == ["screen 2 cancelled"])
    gate.open()
    await three.finish()
    #expect(store.rows[id: 3]?.count == 1)
  }

  @Test func anActionForAMissingIDIsReported() {
    let store = makeStore()
    store.send(.rows(.element(id: 9, action: .increment)))
    #expect(issues.values.count == 1)
    #expect(issues.values.first?.contains("the element with id 9 was absent") == true)
  }
}
