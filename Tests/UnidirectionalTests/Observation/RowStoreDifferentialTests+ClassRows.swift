import Observation
import Synchronization
import Testing
import Unidirectional
import UnidirectionalTestSupport

// Rows that are class instances with string ids, and `withObservationTracking` of row reads,
// each compared between the two kinds of row store (see RowStoreDifferentialTests+Scenarios).

final class RowDifferentialClassRow: Identifiable, Sendable {
  let id: String
  let score: Int
  let flag: Bool
  init(id: String, score: Int, flag: Bool) {
    self.id = id
    self.score = score
    self.flag = flag
  }
}

struct RowDifferentialClassState: Sendable {
  var rows: IdentifiedArray<RowDifferentialClassRow>
}

extension RowStoreDifferentialTests {
  /// Rows that are class instances (no stored offsets: unsafe element probes), with string
  /// ids, removed, re-added and reordered.
  @Test func classRowsWithStringIDs() {
    compare { fast in
      let store = Store(
        initialState: RowDifferentialClassState(
          rows: IdentifiedArray(
            uniqueElements: ["a", "b", "c"].map {
              RowDifferentialClassRow(id: $0, score: 0, flag: false)
            })),
        reducer: Reduce<RowDifferentialClassState, (String, Int, Bool, Int)> { state, action in
          let (id, score, flag, op) = action
          switch op {
          case 0: state.rows[id: id] = RowDifferentialClassRow(id: id, score: score, flag: flag)
          case 1: state.rows.remove(id: id)
          case 2:
            if state.rows[id: id] == nil {
              state.rows.insert(RowDifferentialClassRow(id: id, score: score, flag: flag), at: 0)
            }
          case 3: state.rows = IdentifiedArray(uniqueElements: state.rows.elementsArray.reversed())
          default: state.rows = []
          }
          return .none
        })
      let row: Store<RowDifferentialClassRow, Never>
      if fast {
        row = store.scope(
          state: \.rows, id: "b", action: { (n: Never) -> (String, Int, Bool, Int) in })!
      } else {
        row = store.scope(
          state: \.rows[id: "b"], action: { (n: Never) -> (String, Int, Bool, Int) in })!
      }
      let log = Log<String>()
      let t1 = row.observe { log.append("1 \(row.score) \(row.flag ? row.id : "-")") }
      let t2 = row.observe { log.append("2 \(row.flag) \(row.score)") }
      let script: [(String, Int, Bool, Int)] = [
        ("b", 1, false, 0), ("a", 1, true, 0), ("b", 1, true, 0), ("b", 0, false, 3),
        ("b", 1, true, 0), ("b", 2, true, 1), ("c", 0, false, 1), ("b", 5, false, 2),
        ("b", 5, true, 0), ("x", 0, false, 4), ("a", 0, false, 2), ("b", 7, true, 2),
        ("b", 7, true, 0), ("b", 8, true, 0),
      ]
      for action in script {
        log.append("> \(action)")
        store.send(action)
      }
      withExtendedLifetime((t1, t2)) {}
      return log.values
    }
  }

  /// `withObservationTracking` of row reads, outside observers, with integer and Bool fields
  /// (compared inline by their probes).
  @Test func trackingRowReadsHearsIntegerChanges() {
    compare { fast in
      let store = makeRowDifferentialStore()
      let row = rowDifferentialStore(store, 1, fast: fast)
      let log = Log<String>()
      for action in Self.scriptedActions {
        let fired = Mutex(false)
        let seen = withObservationTracking {
          "\(row.score) \(row.flag)"
        } onChange: {
          fired.withLock { $0 = true }
        }
        store.send(action)
        log.append("\(action) \(seen) fired=\(fired.withLock { $0 }) now \(row.score) \(row.flag)")
      }
      return log.values
    }
  }
}
