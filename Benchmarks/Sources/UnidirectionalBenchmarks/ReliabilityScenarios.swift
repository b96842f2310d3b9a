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

/// A feature whose every `start` runs an effect that sends `finished` back at once.
struct EffectLoopFeature: Reducer {
  struct State: Equatable, Sendable {
    var started = 0
    var finished = 0
  }
  enum Action: Sendable {
    case start
    case finished
  }
  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .start:
      state.started += 1
      return .run { send in await send(.finished) }
    case .finished:
      state.finished += 1
      return .none
    }
  }
}

/// Resident memory while one store reduces `actions` actions that each start an effect which
/// finishes (feeding one action back): sampled `samples` times, after each equal share.
///
/// Sends in batches of 100 and waits for the batch's effects between batches, so what is
/// measured is what a finished effect leaves behind, not a backlog of running ones. Before each
/// sample, the allocator returns its free pages to the system (`malloc_trim`), so the figure is
/// memory in use, not pages an arena keeps in reserve. Batches stay small because a worker
/// thread's arena keeps the high-water mark of a burst resident (a small live block at its top
/// pins the pages below, and `malloc_trim` does not trim the top of a thread's arena): with
/// 1,000 effects in flight, one-time steps of 1.3–2 MiB appeared in some runs while the heap in
/// use (glibc's `malloc_stats`) stayed at 370 KiB.
func residentBytesOverEffects(actions: Int, samples: Int) -> [(actions: Int, bytes: Int)] {
  let store = Store(initialState: EffectLoopFeature.State()) { EffectLoopFeature() }
  let batch = 100
  let perSample = max(actions / samples / batch, 1) * batch
  var figures: [(actions: Int, bytes: Int)] = []
  var sent = 0
  while figures.count < samples {
    for _ in 0..<perSample / batch {
      for _ in 0..<batch { store.send(.start) }
      runAsync { await store.waitForEffects() }
    }
    sent += perSample
    // Zero lost: every effect fed its action back.
    precondition(store.started == sent && store.finished == sent, "lost actions")
    releaseFreeMemory()
    figures.append((sent, residentBytes()))
  }
  return figures
}

/// Asks the allocator to give its free pages back to the system (glibc's `malloc_trim`, looked
/// up at run time since the `Glibc` module does not declare it); does nothing elsewhere.
func releaseFreeMemory() {
  guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "malloc_trim") else { return }
  typealias Trim = @convention(c) (Int) -> Int32
  _ = unsafeBitCast(symbol, to: Trim.self)(0)
}
