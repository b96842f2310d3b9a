import Foundation
import Testing
import Unidirectional
import UnidirectionalTestSupport

@Suite struct ChildStoreLastStateTests {
  /// `observe(_:_:)` on a child store keeps running after the child store object is gone (by
  /// contract), but the keeper that remembers the child's last state went with the store: once
  /// the state is removed, the read answers from a state older than the last one seen, and the
  /// observer re-runs with a value that goes back in time.
  @Test func childObserverOutlivingItsStoreDoesNotRevertOnRemoval() {
    let store = makeEdgeStore(EdgeState(child: EdgeChild(count: 0)))
    let values = Log<Int>()
    var child: Store<EdgeChild, Never>? = store.scope(
      state: \.child, action: { (never: Never) -> EdgeAction in })
    let token = child!.observe(\.count) { values.append($0) }
    child = nil
    store.send(EdgeAction { $0.child?.count = 5 })
    #expect(values.values == [0, 5])
    store.send(EdgeAction { $0.child = nil })
    #expect(values.values == [0, 5])
    withExtendedLifetime((token, child)) {}
  }

  /// The same for a row's child store.
  @Test func rowObserverOutlivingItsStoreDoesNotRevertOnRemoval() {
    let store = makeEdgeStore(EdgeState(rows: [EdgeRow(id: 1, title: "a")]))
    let values = Log<String>()
    var row: Store<EdgeRow, Never>? = store.scope(
      state: \.rows, id: 1, action: { (never: Never) -> EdgeAction in })
    let token = row!.observe(\.title) { values.append($0) }
    row = nil
    store.send(EdgeAction { $0.rows[id: 1]?.title = "b" })
    store.send(EdgeAction { $0.rows[id: 1] = nil })
    #expect(values.values == ["a", "b"])
    withExtendedLifetime((token, row)) {}
  }

  /// Reads through a child store outside observers leave nothing behind but a bounded cache of
  /// the latest root key paths: a thousand distinct key paths keep at most 64 alive.
  @Test func childReadsOutsideObserversKeepABoundedNumberOfKeyPaths() {
    let store = makeEdgeStore(EdgeState(items: Array(0..<1_000)))
    let child: Store<[Int], Never> = store.scope(
      state: \.items, action: { (never: Never) -> EdgeAction in })
    let leaks = LeakTracker()
    for index in 0..<1_000 {
      let keyPath = \[Int].[index]
      leaks.track(keyPath, "\\.[\(index)]")
      _ = child[keyPath]
    }
    #expect(leaks.alive.count <= 64)
  }
}

struct EdgeSection: Equatable, Sendable {
  var rows: IdentifiedArray<ElementReadPropertyTests.Row> = [
    ElementReadPropertyTests.Row(id: 1, title: "a", score: 0)
  ]
}

struct EdgeSectionState: Sendable {
  var section = EdgeSection()
}

struct EdgeSectionAction: Sendable {
  let apply: @Sendable (inout EdgeSectionState) -> Void
}

extension ChildStoreLastStateTests {
  /// `child[\.rows, id: 1, \.title]` on a child store is tracked as the whole row: changing the
  /// row's score re-runs an observer that read only its title.
  @Test func childRowFieldReadIsFieldPrecise() {
    let store = Store(
      initialState: EdgeSectionState(),
      reducer: Reduce<EdgeSectionState, EdgeSectionAction> { state, action in
        action.apply(&state)
        return .none
      })
    let child = store.scope(state: \.section, action: { (never: Never) -> EdgeSectionAction in })
    let runs = Log<String?>()
    let token = child.observe { runs.append(child[\.rows, id: 1, \.title]) }
    store.send(EdgeSectionAction { $0.section.rows[id: 1]?.score = 5 })
    #expect(runs.values == ["a"], "the observer read only the title")
    withExtendedLifetime(token) {}
  }
}
