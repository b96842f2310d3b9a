import Foundation
import Testing
import Unidirectional
import UnidirectionalTestSupport

// Row stores used from several threads at once: two send, a third makes row stores, observes
// them and cancels (fixtures in RowStoreDifferentialTests+Scenarios).

extension RowStoreDifferentialTests {
  /// Two threads send; a third makes row stores, registers observers on them (first runs on a
  /// copy while another thread owns the store: deferred recorders), reads rows outside
  /// observers and cancels. Rows are never removed: at the end, every live observer's last run
  /// saw the row's current values.
  @Test(.timeLimit(.minutes(2)))
  func rowStoresUsedFromSeveralThreads() async throws {
    let ids = [1, 2, 3, 4]
    let store = makeRowDifferentialStore(ids: ids)
    let persistent = ids.map { rowDifferentialStore(store, $0, fast: true) }
    let logs = ids.map { _ in Log<String>() }
    var tokens: [ObservationToken] = []
    for (index, row) in persistent.enumerated() {
      let log = logs[index]
      tokens.append(row.observe { log.append("\(row.score) \(row.title) \(row.flag)") })
    }
    let iterations = 3000
    let done = DispatchGroup()
    for seed in 0..<2 {
      done.enter()
      Thread {
        var rng = SplitMix64(seed: UInt64(seed))
        for _ in 0..<iterations {
          let id = ids[Int(rng.next() % 4)]
          switch rng.next() % 4 {
          case 0: store.send(.score(id, Int(rng.next() % 5)))
          case 1: store.send(.title(id, "t\(rng.next() % 3)"))
          case 2: store.send(.flag(id))
          default: store.send(.other)
          }
        }
        done.leave()
      }.start()
    }
    done.enter()
    let churnLog = Log<String>()
    Thread {
      var rng = SplitMix64(seed: 99)
      var live: [ObservationToken] = []
      for step in 0..<(iterations / 3) {
        let id = ids[Int(rng.next() % 4)]
        let row = rowDifferentialStore(store, id, fast: true)
        live.append(row.observe { churnLog.append("\(row.score)") })
        live.append(row.observe(\.title) { churnLog.append($0) })
        _ = row.score + (row.flag ? 1 : 0)
        if step % 3 == 0, !live.isEmpty { live.removeFirst().cancel() }
        if live.count > 12 { live.removeAll() }
      }
      live.removeAll()
      done.leave()
    }.start()
    // wall-clock: a failure bound; a passing run is signalled long before.
    try #require(await finishes(done, within: .seconds(100)), "hang")
    let state = store.state
    for (index, id) in ids.enumerated() {
      let row = state.rows[id: id]!
      #expect(logs[index].values.last == "\(row.score) \(row.title) \(row.flag)", "row \(id)")
    }
    withExtendedLifetime((tokens, persistent)) {}
  }
}
