import Observation
import Testing
import Unidirectional
import UnidirectionalTestSupport

@Suite struct ChildStoreTests {
  let log = Log<String>()
  let issues = Log<String>()

  func makeStore() -> Store<AppFeature.State, AppFeature.Action> {
    var state = AppFeature.State()
    state.list.rows = [RowFeature.State(id: 1), RowFeature.State(id: 2), RowFeature.State(id: 3)]
    return Store(initialState: state, reducer: AppFeature(log: log)) { [issues] issue in
      issues.append(issue.description)
    }
  }

  func rowStore(
    _ list: Store<ListFeature.State, ListFeature.Action>, id: Int
  ) -> Store<RowFeature.State, RowFeature.Action>? {
    list.scope(state: \.rows[id: id], action: { .row(id: id, action: $0) })
  }

  @Test func threeLevelsOnlyTheChangedRowsObserverFires() throws {
    let app = makeStore()
    let list = app.scope(state: \.list, action: .list)
    let two = try #require(rowStore(list, id: 2))
    let three = try #require(rowStore(list, id: 3))
    let fired = Log<String>()
    let tokenTwo = two.observe { fired.append("two: \(two.taps)") }
    let tokenThree = three.observe { fired.append("three: \(three.taps)") }
    fired.removeAll()

    two.send(.tapped)
    #expect(fired.values == ["two: 1"])
    #expect(app.list.rows[id: 2]?.taps == 1)
    #expect(app.list.rows[id: 3]?.taps == 0)

    fired.removeAll()
    app.send(.list(.row(id: 3, action: .tapped)))
    #expect(fired.values == ["three: 1"])
    withExtendedLifetime((tokenTwo, tokenThree)) {}
  }

  @Test func aChildStoreReadsThroughItsParent() throws {
    let app = makeStore()
    let list = app.scope(state: \.list, action: .list)
    let one = try #require(rowStore(list, id: 1))
    app.send(.list(.row(id: 1, action: .tapped)))
    #expect(one.taps == 1)
    #expect(one.state == RowFeature.State(id: 1, taps: 1))
    #expect(list.rows.count == 3)
  }

  @Test func anElementStoreAfterItsElementIsRemoved() throws {
    let app = makeStore()
    let list = app.scope(state: \.list, action: .list)
    let two = try #require(rowStore(list, id: 2))
    two.send(.tapped)
    app.send(.list(.remove(id: 2)))
    let before = app.state
    two.send(.tapped)  // A reported no-op: no crash, no write into another element.
    #expect(app.state == before)
    #expect(issues.values.count == 1)
    #expect(issues.values.first?.contains("child store") == true)
    #expect(two.taps == 1)  // Reads answer from the last state it had.
    #expect(rowStore(list, id: 2) == nil)
  }

  @Test func anOptionalChildStoreExistsOnlyWhileItsStateDoes() throws {
    let app = makeStore()
    #expect(app.scope(state: \.detail, action: AppFeature.Action.detail) == nil)
    app.send(.showDetail)
    let detail = try #require(app.scope(state: \.detail, action: AppFeature.Action.detail))
    detail.send(.edit("typed"))
    #expect(app.detail?.text == "typed")
    #expect(detail.text == "typed")
  }

  @Test func nestedScopesCompose() throws {
    let app = makeStore()
    let list = app.scope(state: \.list, action: .list)
    let rows = list.scope(state: \.rows, action: { (action: ListFeature.Action) in action })
    #expect(rows.state.ids == [1, 2, 3])
    let row = try #require(rowStore(list, id: 1))
    let fired = Log<Int>()
    let token = row.observe(\.taps) { fired.append($0) }
    app.send(.list(.row(id: 1, action: .tapped)))
    app.send(.list(.row(id: 2, action: .tapped)))
    #expect(fired.values == [0, 1])
    withExtendedLifetime(token) {}
  }

  @Test func observationInteropThroughAChildStore() throws {
    let app = makeStore()
    let list = app.scope(state: \.list, action: .list)
    let two = try #require(rowStore(list, id: 2))
    let fired = Log<Bool>()
    withObservationTracking {
      _ = two.taps
    } onChange: {
      fired.append(true)
    }
    app.send(.list(.row(id: 3, action: .tapped)))
    #expect(fired.values.isEmpty)
    two.send(.tapped)
    #expect(fired.values == [true])
  }

  @Test func scopingAChildStoreWhoseStateIsGoneDoesNotCrash() throws {
    let app = makeStore()
    let list = app.scope(state: \.list, action: .list)
    let two = try #require(rowStore(list, id: 2))
    two.send(.tapped)
    app.send(.list(.remove(id: 2)))
    // A required scope of a gone child: a store answering from the last state it had.
    let taps = two.scope(state: \.taps, action: { (action: RowFeature.Action) in action })
    #expect(taps.state == 1)
    taps.send(.tapped)  // Reported, ignored.
    #expect(app.list.rows.ids == [1, 3])
    #expect(issues.values.count == 1)
  }
}
