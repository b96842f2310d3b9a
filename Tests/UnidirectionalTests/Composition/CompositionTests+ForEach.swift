import Testing
import Unidirectional
import UnidirectionalTestSupport

// The list's rows under `forEach`: actions for one row or a missing one, effects cancelled with
// their row, rows behind a computed property, and an element reducer that changes the id.

extension CompositionTests {
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
}
