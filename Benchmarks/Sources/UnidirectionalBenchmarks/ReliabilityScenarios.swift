import Foundation
import Unidirectional

// Issue 6's figures: two threads sending into one store, and the memory an idle observer costs.

func makeReliabilityScenarios() -> [Scenario] {
  [
    Scenario(
      name: "R1 two threads sending concurrently", actions: 4_000_000,
      // Throughput at least half of one thread's: at most twice B1's time per action.
      target: .ratio(over: "B1 send, no observers", atMost: 2)
    ) {
      let store = Store(initialState: CounterFeature.State()) { CounterFeature() }
      var expected = 0
      return { iterations in
        let group = DispatchGroup()
        let perThread = iterations / 2
        for _ in 0..<2 {
          group.enter()
          Thread {
            for _ in 0..<perThread { store.send(.increment) }
            group.leave()
          }.start()
        }
        group.wait()
        // Zero lost: every action sent to this store so far is counted.
        expected += 2 * perThread
        precondition(store.count == expected, "lost \(expected - store.count) actions")
        blackHole(store)
      }
    }
  ]
}

/// The memory one idle observer costs: registers `count` observers of a value that never
/// changes and divides the growth of the resident set (`/proc/self/statm`) by `count`.
/// Page-granular, so `count` must be large; run alone (`--only M1`) so freed pages of earlier
/// scenarios do not absorb the growth.
func idleObserverBytes(count: Int) -> Double {
  let store = Store(initialState: CounterFeature.State()) { CounterFeature() }
  var tokens: [ObservationToken] = []
  tokens.reserveCapacity(count)
  let before = residentBytes()
  for _ in 0..<count {
    tokens.append(store.observe { _ = store.title })
  }
  let after = residentBytes()
  withExtendedLifetime(tokens) {}
  return Double(after - before) / Double(count)
}

/// The process's resident memory in bytes.
func residentBytes() -> Int {
  let statm = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? ""
  let fields = statm.split(separator: " ")
  let pages = fields.count > 1 ? Int(fields[1]) ?? 0 : 0
  return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}
