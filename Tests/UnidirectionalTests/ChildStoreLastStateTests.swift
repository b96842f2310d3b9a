import Foundation
import Testing
import Unidirectional
import UnidirectionalTestSupport

@Suite struct ReviewChildStoreTests {
  /// `observe(_:_:)` on a child store keeps running after the child store object is gone (by
  /// contract), but the keeper that remembers the child's last state went with the store: once
  /// the state is removed, the read answers from a state older than the last one seen, and the
  /// observer re-runs with a value that goes back in time.
  @Test func reviewChildObserverOutlivingItsStoreDoesNotRevertOnRemoval() {
    let store = makeReviewStore(ReviewState(child: ReviewChild(count: 0)))
    let values = Log<Int>()
    var child: Store<ReviewChild, Never>? = store.scope(
      state: \.child, action: { (never: Never) -> ReviewAction in })
    let token = child!.observe(\.count) { values.append($0) }
    child = nil
    store.send(ReviewAction { $0.child?.count = 5 })
    #expect(values.values == [0, 5])
    store.send(ReviewAction { $0.child = nil })
    #expect(values.values == [0, 5])
    withExtendedLifetime((token, child)) {}
  }

  /// The same for a row's child store.
  @Test func reviewRowObserverOutlivingItsStoreDoesNotRevertOnRemoval() {
    let store = makeReviewStore(ReviewState(rows: [ReviewRow(id: 1, title: "a")]))
    let values = Log<String>()
    var row: Store<ReviewRow, Never>? = store.scope(
      state: \.rows, id: 1, action: { (never: Never) -> ReviewAction in })
    let token = row!.observe(\.title) { values.append($0) }
    row = nil
    store.send(ReviewAction { $0.rows[id: 1]?.title = "b" })
    store.send(ReviewAction { $0.rows[id: 1] = nil })
    #expect(values.values == ["a", "b"])
    withExtendedLifetime((token, row)) {}
  }

  /// Reads through a child store outside observers should leave nothing behind; the child's
  /// cache of root key paths keeps every distinct child key path read, forever.
  @Test func reviewChildReadsOutsideObserversKeepNoKeyPath() {
    let store = makeReviewStore(ReviewState(items: Array(0..<100)))
    let child: Store<[Int], Never> = store.scope(
      state: \.items, action: { (never: Never) -> ReviewAction in })
    let leaks = LeakTracker()
    for index in 0..<100 {
      let keyPath = \[Int].[index]
      leaks.track(keyPath, "\\.[\(index)]")
      _ = child[keyPath]
    }
    #expect(leaks.alive.count == 0)
  }
}

struct ReviewSection: Equatable, Sendable {
  var rows: IdentifiedArray<ReviewPropertyTests.Row> = [
    ReviewPropertyTests.Row(id: 1, title: "a", score: 0)
  ]
}

struct ReviewSectionState: Sendable {
  var section = ReviewSection()
}

struct ReviewSectionAction: Sendable {
  let apply: @Sendable (inout ReviewSectionState) -> Void
}

extension ReviewChildStoreTests {
  /// `child[\.rows, id: 1, \.title]` on a child store is tracked as the whole row: changing the
  /// row's score re-runs an observer that read only its title.
  @Test func reviewChildRowFieldReadIsFieldPrecise() {
    let store = Store(
      initialState: ReviewSectionState(),
      reducer: Reduce<ReviewSectionState, ReviewSectionAction> { state, action in
        action.apply(&state)
        return .none
      })
    let child = store.scope(state: \.section, action: { (never: Never) -> ReviewSectionAction in })
    let runs = Log<String?>()
    let token = child.observe { runs.append(child[\.rows, id: 1, \.title]) }
    store.send(ReviewSectionAction { $0.section.rows[id: 1]?.score = 5 })
    #expect(runs.values == ["a"], "the observer read only the title")
    withExtendedLifetime(token) {}
  }
}
