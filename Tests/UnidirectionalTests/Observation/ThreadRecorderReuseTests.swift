import Synchronization
import Testing
import Unidirectional
import UnidirectionalTestSupport

@Suite struct ThreadRecorderReuseTests {
  /// A store keeps the thread recorder of the thread that ran its observers last, to skip the
  /// thread-local slot next time. A thread made after that one exited often gets its id: the
  /// recorder kept must not serve it, or the reads of its runs that go through the slot (a read
  /// the last run did not make) are lost, and the observer misses later changes of them.
  @Test(.timeLimit(.minutes(1)))
  func aThreadWithTheIDOfAnExitedOneStillRecordsItsNewReads() {
    var sawReusedID = false
    // A few rounds: a new thread usually, not always, gets the id of the one just joined.
    for _ in 0..<8 where !sawReusedID {
      let store = makeEdgeStore()
      let runs = Mutex(0)
      let token = store.observe {
        // `other` is read only once `count` is odd: a read the run before did not make.
        if store.count % 2 == 1 { _ = store.other }
        runs.withLock { $0 += 1 }
      }
      // The first thread runs the observer (an even count: `count` alone), and exits.
      let first = runOnJoinedThread { store.send(EdgeAction { $0.count = 2 }) }
      // The second reads `other` for the first time, in a re-run on the owner's thread.
      let second = runOnJoinedThread { store.send(EdgeAction { $0.count = 3 }) }
      sawReusedID = first == second
      let before = runs.withLock { $0 }
      store.send(EdgeAction { $0.other = 7 })
      #expect(runs.withLock { $0 } == before + 1, "the change of `other` was not seen")
      withExtendedLifetime(token) {}
    }
    // Without a reused id the rounds above test nothing new (glibc reuses a joined thread's).
    #expect(sawReusedID)
  }
}
