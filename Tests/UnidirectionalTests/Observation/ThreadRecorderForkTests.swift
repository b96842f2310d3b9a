import Synchronization
import Testing
import Unidirectional
import UnidirectionalTestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The thread recorder a recorder keeps, across `fork`: in the child only the forking
/// thread runs, but the threads of the parent never exited there, so their thread recorders still
/// say they are alive. glibc hands the stacks of those threads to the child's new threads, which
/// then have the ids of the parent's: a store whose owner was such a thread must not use its
/// thread recorder for the new one.
@Suite struct ThreadRecorderForkTests {
  /// What the child process found, as its exit status.
  enum Outcome: Int32 {
    case recorded = 0
    case lostTheNewRead = 1
    case noThreadWithTheID = 2
  }

  #if os(Linux)
    @Test(.timeLimit(.minutes(1)))
    func aThreadOfAForkedChildWithTheIDOfAParentThreadRecordsItsNewReads() throws {
      let store = makeEdgeStore()
      let runs = RunCounter()
      let token = store.observe {
        // `other` is read only once `count` is odd: a read the run before did not make.
        if store.count % 2 == 1 { _ = store.other }
        runs.add()
      }
      // A thread of the parent runs the observer last (an even count), and still runs at the
      // fork.
      let parentID = Atomic<UInt>(0)
      let release = Atomic<Bool>(false)
      let ran = Atomic<Bool>(false)
      let parent = startJoinableThread {
        parentID.store(currentThreadID(), ordering: .relaxed)
        store.send(EdgeAction { $0.count = 2 })
        ran.store(true, ordering: .releasing)
        while !release.load(ordering: .acquiring) { usleep(1_000) }
      }
      for _ in 0..<2_000 where !ran.load(ordering: .acquiring) { usleep(1_000) }
      let wanted = parentID.load(ordering: .relaxed)

      let child = fork()
      if child == 0 {
        // The child: no test machinery, exit with the outcome.
        alarm(2)
        _exit(Self.childRun(store: store, runs: runs, wanted: wanted).rawValue)
      }
      release.store(true, ordering: .releasing)
      joinThread(parent)
      var status: Int32 = 0
      waitpid(child, &status, 0)
      // Killed (a lock another test held at the fork, or a sanitizer that stops forked
      // children from making threads), or no thread with the id: inconclusive, not a failure.
      let exited = status & 0x7f == 0
      let outcome = exited ? Outcome(rawValue: (status >> 8) & 0xff) : nil
      #expect(
        outcome != .lostTheNewRead,
        "a thread of the child with a parent thread's id lost its run's new read")
      if outcome != .recorded && outcome != .lostTheNewRead {
        print("ThreadRecorderForkTests: inconclusive (status \(status))")
      }
      withExtendedLifetime(token) {}
    }
  #endif

  /// In the child: makes threads until one has the id `wanted` (the others wait, so that each
  /// new one takes another stack), and on that one checks that the observer's new read counts.
  private static func childRun(store: EdgeStore, runs: RunCounter, wanted: UInt) -> Outcome {
    let found = Atomic<Int32>(-1)
    let done = Atomic<Bool>(false)
    var threads: [pthread_t] = []
    for _ in 0..<16 {
      threads.append(
        startJoinableThread {
          guard currentThreadID() == wanted else {
            if found.load(ordering: .acquiring) < 0 {
              _ = found.compareExchange(expected: -1, desired: -2, ordering: .acquiringAndReleasing)
            }
            while !done.load(ordering: .acquiring) { usleep(1_000) }
            return
          }
          // The observer re-runs here and reads `other` for the first time.
          store.send(EdgeAction { $0.count = 3 })
          let before = runs.value
          store.send(EdgeAction { $0.other = 7 })
          let outcome: Outcome = runs.value == before + 1 ? .recorded : .lostTheNewRead
          found.store(outcome.rawValue, ordering: .releasing)
        })
      // Wait for the thread to report.
      for _ in 0..<2_000 where found.load(ordering: .acquiring) == -1 { usleep(500) }
      if found.load(ordering: .acquiring) >= 0 { break }
      found.store(-1, ordering: .releasing)
    }
    done.store(true, ordering: .releasing)
    threads.forEach(joinThread)
    let result = found.load(ordering: .acquiring)
    return result >= 0 ? Outcome(rawValue: result)! : .noThreadWithTheID
  }
}

/// A count of observer runs, shared with observers.
private final class RunCounter: Sendable {
  private let count = Atomic<Int>(0)
  var value: Int { count.load(ordering: .acquiring) }
  func add() { count.add(1, ordering: .acquiringAndReleasing) }
}
