import Foundation
import Observation
import Testing
import Unidirectional
import UnidirectionalTestSupport

@Suite struct ObservationInteropStressTests {
  /// An `Observations` sequence over `count` while another thread sends increments (a reducer
  /// that takes a little time): the sequence must end up yielding the final count.
  @Test(.timeLimit(.minutes(1)))
  func observationsSeesTheLastValueUnderConcurrentSends() async throws {
    let store = Store(
      initialState: EdgeState(),
      reducer: Reduce<EdgeState, EdgeAction> { state, action in
        action.apply(&state)
        usleep(200)
        return .none
      })
    let total = 300
    let sender = Thread {
      for _ in 0..<total {
        store.send(EdgeAction { $0.count += 1 })
        usleep(100)
      }
    }
    sender.start()
    let lastSeen = Locked(0)
    let watcher = Task.detached {
      for await value in Observations({ store.count }) {
        lastSeen.withLock { $0 = value }
        if value == total { return true }
      }
      return false
    }
    // Wait for the sender to finish and the sequence to catch up with it.
    var waited = 0
    while (store.count < total || lastSeen.withLock({ $0 }) < total) && waited < 30_000 {
      // wall-clock: polls under a failure bound of 30 s; a passing run stops once the sequence
      // has seen the last value.
      try await Task.sleep(for: .milliseconds(10))
      waited += 10
    }
    let seen = lastSeen.withLock { $0 }
    watcher.cancel()
    #expect(store.count == total)
    #expect(seen == total, "Observations stopped at \(seen) of \(total)")
  }
}
