import Foundation
import Synchronization
import Testing

@testable import Unidirectional

@Suite struct SpinLockedTests {
  /// Threads contending for the lock each bump two plain counters together: every update must
  /// be seen whole (never one counter without the other) and none lost. Under ThreadSanitizer
  /// (CI), a missing acquire or release ordering is reported as a race on the counters.
  @Test func contendedUpdatesAreExclusiveAndNoneIsLost() {
    struct Pair {
      var first = 0
      var second = 0
    }
    let lock = SpinLocked(Pair())
    let threads = 4
    let updates = 100_000
    let torn = Locked(0)
    let done = DispatchSemaphore(value: 0)
    let started = Atomic<Int>(0)
    for _ in 0..<threads {
      Thread {
        // Start together, so that the threads overlap.
        started.add(1, ordering: .relaxed)
        while started.load(ordering: .relaxed) < threads {}
        for _ in 0..<updates {
          let seen = lock.withLock { pair -> Pair in
            // Read, then write: an update that another thread's overlaps is lost.
            let first = pair.first
            pair.second += 1
            pair.first = first + 1
            return pair
          }
          if seen.first != seen.second { torn.withLock { $0 += 1 } }
        }
        done.signal()
      }.start()
    }
    for _ in 0..<threads { done.wait() }
    let final = lock.withLock { $0 }
    #expect(final.first == threads * updates)
    #expect(final.second == threads * updates)
    #expect(torn.withLock { $0 } == 0)
  }

  /// A holder that keeps the lock across a yield: the waiter gets it once it is released, with
  /// the holder's write.
  @Test func aWaiterGetsTheLockOnceTheHolderReleasesIt() {
    let lock = SpinLocked(0)
    lock.lock()
    let waiter = Thread {
      lock.withLock { $0 += 1 }
    }
    waiter.start()
    // The waiter spins, then yields, while the lock is held.
    usleep(20_000)
    lock.value = 41
    lock.unlock()
    var value = 0
    for _ in 0..<1_000 {
      value = lock.withLock { $0 }
      if value == 42 { break }
      usleep(1_000)
    }
    #expect(value == 42)
  }
}
