import Testing
import Unidirectional
import UnidirectionalTestSupport

// `forEach`'s hint to the row it updated last, after removals, moves and replacements.

extension ObservationLendingTests {
  /// `forEach` finds the row it updated last by position: after removals, moves and a
  /// replacement of the whole array, the hint must never pick another row.
  @Test func forEachHintFollowsRemovalsMovesAndReplacements() {
    let store = Store(initialState: LendingListFeature.State()) { LendingListFeature() }
    func taps() -> [Int: Int] {
      Dictionary(uniqueKeysWithValues: store.state.rows.elementsArray.map { ($0.id, $0.taps) })
    }
    store.send(.row(id: 4, action: .tapped))  // Hint: position 4.
    store.send(.edit { $0.rows.remove(id: 0) })  // Row 4 moves to 3; position 4 is out of range.
    store.send(.row(id: 4, action: .tapped))
    store.send(.row(id: 2, action: .tapped))  // Hint: position 1.
    store.send(.edit { $0.rows.swapAt(1, 2) })  // Position 1 now holds row 3.
    store.send(.row(id: 3, action: .tapped))
    store.send(
      .edit {
        $0.rows = IdentifiedArray(uniqueElements: [10, 3, 11].map { RowFeature.State(id: $0) })
      })
    store.send(.row(id: 3, action: .tapped))
    store.send(.row(id: 11, action: .tapped))
    #expect(taps() == [10: 0, 3: 1, 11: 1])
  }
}

struct LendingListFeature: Reducer {
  struct State: Equatable, Sendable {
    var rows: IdentifiedArray<RowFeature.State> = IdentifiedArray(
      uniqueElements: (0..<5).map { RowFeature.State(id: $0) })
  }
  enum Action: Sendable {
    case row(id: Int, action: RowFeature.Action)
    case edit(@Sendable (inout State) -> Void)
  }
  var body: some Reducer<State, Action> {
    Reduce { state, action in
      if case .edit(let edit) = action { edit(&state) }
      return .none
    }
    .forEach(\.rows, action: .case(Action.row)) { RowFeature(log: Log()) }
  }
}
