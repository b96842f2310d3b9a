import Testing
import Unidirectional
import UnidirectionalTestSupport

// Reads that find their recorder by `AccessRecorder.activeThread` while another recorder runs
// nested on the same thread: an observer's reads after a nested drain or registration stay its.

extension ObservationLentPathsTests {
  /// An observer of A sends to B mid-run; B's observers (run on this thread, nested) read A and
  /// a row store of A. A's observer's reads after the send must still be recorded for it
  /// (A's drain recorder active again after B's restore), and B's reads of A must not land in
  /// A's observer.
  @Test func observerOfASendingToBWhoseObserversReadA() {
    let a = makeLentPairStore()
    let b = makeLentPairStore()
    let aRuns = Log<String>()
    let bRuns = Log<String>()
    let aRow = a.scope(
      state: \.rows, id: 1, action: { (v: Int) in LentPairAction { $0.rows[id: 1]?.title = v } })!
    let tokenA = a.observe {
      let x = a.x
      b.send(LentPairAction { $0.x = x })
      // Read after the nested drain of B: must subscribe A's observer to `y`.
      let y = a.y
      aRuns.append("x \(x) y \(y)")
    }
    let tokenB = b.observe {
      let bx = b.x
      let az = a.z
      let row = aRow.title
      bRuns.append("bx \(bx) az \(az) row \(row)")
    }
    aRuns.removeAll()
    bRuns.removeAll()
    a.send(LentPairAction { $0.x = 1 })
    #expect(aRuns.values == ["x 1 y 0"])
    #expect(bRuns.values == ["bx 1 az 0 row 0"])
    aRuns.removeAll()
    bRuns.removeAll()
    a.send(LentPairAction { $0.y = 1 })
    #expect(aRuns.values == ["x 1 y 1"])
    aRuns.removeAll()
    // A's observer did not read `z` or the row: B's reads of A are not its.
    a.send(LentPairAction { $0.z = 1 })
    a.send(LentPairAction { $0.rows[id: 1]?.title = 9 })
    #expect(aRuns.values == [])
    // Repeat, so that A's observer re-runs as predicted around the nested drain.
    for value in 2...5 {
      aRuns.removeAll()
      a.send(LentPairAction { $0.y = value })
      #expect(aRuns.values == ["x \(value - 1) y \(value)"])
      aRuns.removeAll()
      a.send(LentPairAction { $0.x = value })
      #expect(aRuns.values == ["x \(value) y \(value)"])
    }
    withExtendedLifetime((tokenA, tokenB, aRow)) {}
  }

  /// A row store's observer sends to another store whose observer reads the same row store:
  /// the row observer's reads after the nested drain must stay its own.
  @Test func rowObserverSendingToAStoreWhoseObserverReadsTheRow() {
    let a = makeLentPairStore()
    let b = makeLentPairStore()
    let runs = Log<String>()
    let row = a.scope(
      state: \.rows, id: 2, action: { (v: Int) in LentPairAction { $0.rows[id: 2]?.title = v } })!
    let other = a.scope(
      state: \.rows, id: 0, action: { (v: Int) in LentPairAction { $0.rows[id: 0]?.title = v } })!
    let tokenRow = row.observe {
      let title = row.title
      b.send(LentPairAction { $0.x = title })
      let otherTitle = other.title
      runs.append("row \(title) other \(otherTitle)")
    }
    let tokenB = b.observe {
      _ = b.x
      runs.append("b sees row \(row.title)")
    }
    runs.removeAll()
    for value in 1...4 {
      row.send(value)
      #expect(runs.values == ["b sees row \(value)", "row \(value) other \(value - 1)"])
      runs.removeAll()
      // Read after the nested drain: the row observer must fire on it.
      other.send(value)
      #expect(runs.values == ["row \(value) other \(value)"])
      runs.removeAll()
    }
    withExtendedLifetime((tokenRow, tokenB)) {}
  }

  /// An observer that registers another observer of its own store mid-run (a first run, on
  /// another recorder, nested) keeps recording its later reads.
  @Test func observerRegisteringAnObserverMidRunKeepsItsLaterReads() {
    let store = makeLentPairStore()
    let runs = Log<String>()
    let inner = Locked<[ObservationToken]>([])
    let row = store.scope(
      state: \.rows, id: 0, action: { (v: Int) in LentPairAction { $0.rows[id: 0]?.title = v } })!
    let outer = store.observe {
      let x = store.x
      let token = store.observe { runs.append("inner z \(store.z) row \(row.title)") }
      inner.withLock { $0.append(token) }
      let y = store.y
      let title = row.title
      runs.append("outer x \(x) y \(y) row \(title)")
    }
    #expect(runs.values == ["inner z 0 row 0", "outer x 0 y 0 row 0"])
    for value in 1...3 {
      runs.removeAll()
      store.send(LentPairAction { $0.y = value })
      #expect(
        runs.values.filter { $0.hasPrefix("outer") } == ["outer x 0 y \(value) row \(value - 1)"])
      runs.removeAll()
      store.send(LentPairAction { $0.rows[id: 0]?.title = value })
      let outerRuns = runs.values.filter { $0.hasPrefix("outer") }
      #expect(outerRuns == ["outer x 0 y \(value) row \(value)"])
    }
    outer.cancel()
    for token in inner.withLock({ $0 }) { token.cancel() }
  }
}
