import Foundation
import Synchronization
import Testing
import Unidirectional
import UnidirectionalTestSupport

/// User code that runs where the store uses something without a reference of its own (a lent
/// observer body, a lent probe) or under a child's spin lock: nested drains of other stores,
/// cancellations and deinits there must free nothing in use and leave nothing behind.
@Suite(.serialized) struct ObservationNestedDrainTests {
  /// An observer of A sends to B; B's observer, nested, cancels A's running observer and drops
  /// A's row store. A's run goes on with its lent body and captures, and reads after it.
  @Test func nestedObserverOfAnotherStoreCancelsTheRunningObserverAndDropsARowStore() {
    for _ in 0..<20 {
      let a = makeLentPairStore()
      let b = makeLentPairStore()
      let before = a.observationFootprint
      let aToken = EdgeBox<ObservationToken>()
      let rowBox = EdgeBox<Store<HashedIDRow<Int>, Int>>(
        a.scope(
          state: \.rows, id: 1,
          action: { (v: Int) in
            LentPairAction { $0.rows[id: 1]?.title = v }
          }))
      let rowToken = EdgeBox<ObservationToken>()
      let seen = Log<String>()
      final class Capture: Sendable {
        let name: String
        init(_ name: String) { self.name = name }
      }
      let capture = Capture("captured")
      rowToken.value = rowBox.value!.observe { [weak rowBox] in
        _ = rowBox?.value?.title
      }
      aToken.value = a.observe { [capture] in
        let x = a.x
        if x == 1 { b.send(LentPairAction { $0.x = 1 }) }
        seen.append("\(capture.name) x \(x) y \(a.y) row \(a[\.rows, id: 1, \.title] ?? -1)")
      }
      _ = consume capture
      let bToken = b.observe {
        guard b.x == 1 else { return }
        aToken.take()?.cancel()
        rowToken.take()?.cancel()
        _ = rowBox.take()
      }
      a.send(LentPairAction { $0.x = 1 })
      a.send(LentPairAction { $0.y = 1 })
      a.send(LentPairAction { $0.rows[id: 1]?.title = 4 })
      #expect(seen.values == ["captured x 0 y 0 row 0", "captured x 1 y 0 row 0"])
      #expect(a.observationFootprint == before)
      bToken.cancel()
    }
  }

  /// The deinit of a row's old value, released after the keeper swaps it out of the last known
  /// state, reads the row store (which answers from that state once the row is gone): the spin
  /// lock must not be held then (it is not reentrant: this would spin for ever).
  @Test(.timeLimit(.minutes(1))) func deinitOfAnOldRowReadsTheRowStoreAfterTheKeeperSwap() {
    let store = makeLendingStore()
    let rowBox = EdgeBox<Store<LendingRow, Int>>(
      store.scope(
        state: \.rows, id: 1,
        action: { (v: Int) in
          LendingAction { $0.rows[id: 1]?.title = v }
        }))
    let seen = Log<Int>()
    let token = rowBox.value!.observe { seen.append(rowBox.value?.title ?? -1) }
    for round in 1...5 {
      // The hook's deinit reads the row store, then the root's row.
      let hook = LendingHook("hook \(round)") {
        seen.append(1_000 + (rowBox.value?.title ?? -1))
        _ = store[\.rows, id: 1, \.title]
      }
      store.send(LendingAction { $0.rows[id: 1]?.hook = hook })
      store.send(LendingAction { $0.rows[id: 1]?.title = round })
      store.send(LendingAction { $0.rows[id: 1]?.hook = nil })
    }
    // Gone: the last known state answers; its old hook is released outside the lock.
    store.send(LendingAction { _ = $0.rows.remove(id: 1) })
    #expect(rowBox.value?.title == 5)
    #expect(seen.values.contains(5))
    token.cancel()
  }
}
