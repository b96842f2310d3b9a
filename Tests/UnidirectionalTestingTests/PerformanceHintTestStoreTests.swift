import Synchronization
import Testing

@testable import Unidirectional
@testable import UnidirectionalTesting

#if DEBUG
  /// Issue 38 item 9: a performance hint is not a `StoreIssue`, so a test store, which fails
  /// the test on every issue, lets it pass.
  @Suite struct PerformanceHintTestStoreTests {
    struct Rows: Reducer {
      struct Row: Identifiable, Equatable, Sendable {
        let id: Int
        var value = 0
      }
      struct State: Equatable, Sendable {
        var rows = IdentifiedArray(uniqueElements: (0..<64).map { Row(id: $0) })
      }
      enum Action: Equatable, Sendable {
        case bump(id: Int)
      }
      func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .bump(let id): state.rows[id: id]?.value += 1
        }
        return .none
      }
    }

    @Test func aTestStoreWhoseObserversEarnAHintPasses() async {
      let store = TestStore(initialState: Rows.State()) { Rows() }
      let hints = Mutex<[String]>([])
      // Counted whatever the process-wide setting, which another test turns off for a moment.
      store.store.graph.performanceHintsEnabledForTests = true
      store.store.graph.performanceHintHandler = { hint in hints.withLock { $0.append(hint) } }
      let names = Set((0..<64).map { "row \($0)" })
      for id in 0..<64 {
        store.observe("row \(id)") { _ = $0.rows[id: id]?.value }
      }
      for id in 0..<3 {
        await store.send(.bump(id: id), fires: names) { $0.rows[id: id]?.value = 1 }
      }
      await store.finish()
      #expect(hints.withLock { $0.count } == 1)
      #expect(hints.withLock { $0.first?.contains("64 observers re-ran") } == true)
    }
  }
#endif
