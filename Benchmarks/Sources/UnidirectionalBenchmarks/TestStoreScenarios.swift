import Dispatch
import Unidirectional
import UnidirectionalTesting

// Issue 4's scenarios: one test-store step (send, observer check, state assertion) of a counter.

/// Runs `body` on the cooperative pool and blocks the calling (main) thread until it returns.
/// The task and semaphore are paid once per round, not per step.
func runAsync(_ body: @escaping @Sendable () async -> Void) {
  let done = DispatchSemaphore(value: 0)
  Task {
    await body()
    done.signal()
  }
  done.wait()
}

func makeTestStoreScenarios() -> [Scenario] {
  [
    Scenario(
      name: "T1 TestStore send + state assertion",
      actions: 200_000,
      target: .absolute(atMostNanoseconds: 3_000)
    ) {
      let store = TestStore(initialState: CounterFeature.State()) { CounterFeature() }
      return { iterations in
        runAsync {
          for _ in 0..<iterations {
            await store.send(.increment) { $0.count &+= 1 }
          }
        }
      }
    },
    Scenario(
      name: "T2 TestStore step with a named observer",
      actions: 200_000,
      target: .absolute(atMostNanoseconds: 3_000)
    ) {
      let store = TestStore(initialState: CounterFeature.State()) { CounterFeature() }
      store.observe("count") { _ = $0.count }
      return { iterations in
        runAsync {
          for _ in 0..<iterations {
            await store.send(.increment, fires: ["count"]) { $0.count &+= 1 }
          }
        }
      }
    },
  ]
}
