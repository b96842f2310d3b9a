import Foundation
import Synchronization
import Testing
import Unidirectional
import UnidirectionalTestSupport

// Rows removed mid-run, and observer bodies run without a reference of their own (lent), whose
// observer is cancelled or dropped while they run.

extension ObservationLentPathsTests {
  /// A row observer removes its own row mid-run, then reads it (from the last known state), and
  /// cancels itself and drops its row store while its closure is still running.
  @Test func rowObserverRemovingItsRowAndDroppingItselfMidRun() {
    for _ in 0..<50 {
      let store = makeHashedIDRowsStore(Array(0..<3))
      let before = store.observationFootprint
      let rowBox = EdgeBox<Store<HashedIDRow<Int>, Int>>()
      let tokenBox = EdgeBox<ObservationToken>()
      let seen = Log<String>()
      rowBox.value = store.scope(
        state: \.rows, id: 1,
        action: { (v: Int) in
          HashedIDRowsAction { $0.rows[id: 1]?.title = v }
        })
      let row = rowBox.value!
      tokenBox.value = row.observe { [weak row] in
        guard let row else { return }
        let title = row.title
        if title == 5 {
          store.send(HashedIDRowsAction { _ = $0.rows.remove(id: 1) })
          tokenBox.take()?.cancel()
          _ = rowBox.take()
        }
        // The row is gone (queued removal aside): the last known state answers.
        seen.append("title \(title) again \(row.title) id \(row.id)")
      }
      _ = consume row
      store.send(HashedIDRowsAction { $0.rows[id: 1]?.title = 5 })
      #expect(seen.values == ["title 0 again 0 id 1", "title 5 again 5 id 1"])
      store.send(HashedIDRowsAction { $0.rows[id: 0]?.title = 5 })
      #expect(store.state.rows.ids == [0, 2])
      #expect(store.observationFootprint == before)
    }
  }

  /// An observer cancelled from another thread while its closure runs: the closure keeps its
  /// captures until it returns (the record keeps the box until `endRun`).
  @Test(.timeLimit(.minutes(1))) func observerCancelledFromAnotherThreadMidRun() async {
    for _ in 0..<30 {
      let store = makeLentPairStore()
      let tokenBox = EdgeBox<ObservationToken>()
      let entered = Atomic<Int>(0)
      let proceed = Atomic<Bool>(false)
      let seen = Log<Int>()
      final class Capture: Sendable {
        let value: Int
        init(_ v: Int) { value = v }
      }
      let capture = Capture(42)
      tokenBox.value = store.observe { [capture] in
        let x = store.x
        if x == 1 {
          entered.store(1, ordering: .releasing)
          while !proceed.load(ordering: .acquiring) { sched_yield() }
        }
        // Uses the captures after the cancellation.
        seen.append(capture.value + x)
      }
      _ = consume capture
      let canceller = Thread {
        while entered.load(ordering: .acquiring) == 0 { sched_yield() }
        tokenBox.take()?.cancel()
        proceed.store(true, ordering: .releasing)
      }
      canceller.start()
      store.send(LentPairAction { $0.x = 1 })
      store.send(LentPairAction { $0.x = 2 })
      #expect(seen.values == [42, 43])
    }
  }
}
