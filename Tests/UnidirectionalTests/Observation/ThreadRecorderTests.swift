import Foundation
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

/// The thread recorder a recorder keeps (`AccessRecorder.installedOnRecorder`): the
/// owner of a store moving between live threads, nested installs (an observer of one store that
/// sends to another, an observer that registers another), threads that exit, and what the kept
/// recorder keeps alive.
///
/// The observers make reads that their last run did not make: such reads go through the
/// thread-local slot, so they are lost if an install put the recorder in another thread's slot.
@Suite struct ThreadRecorderTests {
  /// The observer's reads for a count: `count`, then `other` if `count % 3 == 0`, `flag` if
  /// `count % 3 == 1`.
  private static func observeConditionally(_ store: EdgeStore, runs: RunCount)
    -> ObservationToken
  {
    store.observe {
      let count = store.count
      if count % 3 == 0 { _ = store.other }
      if count % 3 == 1 { _ = store.flag }
      runs.add()
    }
  }

  /// On the calling thread: sets `count`, then checks the observer re-runs for `other` exactly
  /// when it read it, and for `flag` exactly when it read it. Returns what went wrong.
  private static func step(_ store: EdgeStore, count: Int, runs: RunCount) -> [String] {
    var problems: [String] = []
    store.send(EdgeAction { $0.count = count })
    var before = runs.value
    store.send(EdgeAction { $0.other += 1 })
    var ran = runs.value != before
    if ran != (count % 3 == 0) { problems.append("count \(count): `other` ran \(ran)") }
    before = runs.value
    store.send(EdgeAction { $0.flag.toggle() })
    ran = runs.value != before
    if ran != (count % 3 == 1) { problems.append("count \(count): `flag` ran \(ran)") }
    return problems
  }

  /// Two threads that both live throughout take turns owning one store: each install is on
  /// another thread than the last, whose thread recorder is alive (so only the id check keeps
  /// the kept one from serving).
  @Test(.timeLimit(.minutes(1)))
  func ownershipAlternatingBetweenLiveThreadsRecordsEachThreadsReads() {
    let store = makeEdgeStore()
    let runs = RunCount()
    let token = Self.observeConditionally(store, runs: runs)
    let problems = Mutex<[String]>([])
    alternateOnTwoThreads(rounds: 24) { count in
      let found = Self.step(store, count: count, runs: runs)
      problems.withLock { $0 += found }
    }
    #expect(problems.withLock { $0 } == [])
    withExtendedLifetime(token) {}
  }

  /// An observer of store A sends to store B, whose observers run on the same thread inside
  /// A's run (B's drain recorder installed over A's); then A's observer makes a read its last
  /// run did not make. Threads alternate, alive, and the rounds also run on joined threads that
  /// may reuse an exited thread's id.
  @Test(.timeLimit(.minutes(1)))
  func anObserverSendingToAnotherStoreOnAlternatingThreadsKeepsBothRecorded() {
    let first = makeEdgeStore()
    let second = makeEdgeStore()
    let firstRuns = RunCount()
    let secondRuns = RunCount()
    let firstToken = first.observe {
      let count = first.count
      second.send(EdgeAction { $0.count = count })
      if count % 3 == 0 { _ = first.other }
      if count % 3 == 1 { _ = first.flag }
      firstRuns.add()
    }
    let secondToken = Self.observeConditionally(second, runs: secondRuns)
    let problems = Mutex<[String]>([])
    let check: @Sendable (Int) -> Void = { count in
      var found = Self.step(first, count: count, runs: firstRuns)
      // `second.count` is `count` now (sent by the first store's observer).
      var before = secondRuns.value
      second.send(EdgeAction { $0.other += 1 })
      var ran = secondRuns.value != before
      if ran != (count % 3 == 0) { found.append("second, count \(count): `other` ran \(ran)") }
      before = secondRuns.value
      second.send(EdgeAction { $0.flag.toggle() })
      ran = secondRuns.value != before
      if ran != (count % 3 == 1) { found.append("second, count \(count): `flag` ran \(ran)") }
      problems.withLock { $0 += found }
    }
    alternateOnTwoThreads(rounds: 12, check)
    // Joined threads: the next often gets the id of the one before.
    for round in 0..<6 { joinThread(startJoinableThread { check(100 + round) }) }
    check(200)
    #expect(problems.withLock { $0 } == [])
    withExtendedLifetime((firstToken, secondToken)) {}
  }

  /// An observer that registers another observer of its store while it runs (a first-run
  /// recorder installed over the drain recorder, on threads that take turns): the inner
  /// observer's reads, and the outer one's later reads, are both recorded.
  @Test(.timeLimit(.minutes(1)))
  func anObserverRegisteringAnotherOnAlternatingThreadsKeepsBothRecorded() {
    let store = makeEdgeStore()
    let outerRuns = RunCount()
    let innerRuns = RunCount()
    let inner = EdgeBox<ObservationToken>()
    let outer = store.observe {
      let count = store.count
      if count > 0 {
        // Replaced on every run: the inner observer reads `items` for an even count, else
        // `value`.
        inner.value = store.observe {
          if store.count % 2 == 0 { _ = store.items } else { _ = store.value }
          innerRuns.add()
        }
      }
      if count % 3 == 0 { _ = store.other }
      outerRuns.add()
    }
    let problems = Mutex<[String]>([])
    let check: @Sendable (Int) -> Void = { count in
      var found: [String] = []
      store.send(EdgeAction { $0.count = count })
      var before = (outerRuns.value, innerRuns.value)
      store.send(EdgeAction { $0.other += 1 })
      var ran = outerRuns.value != before.0
      if ran != (count % 3 == 0) { found.append("count \(count): outer ran \(ran) for `other`") }
      before = (outerRuns.value, innerRuns.value)
      store.send(EdgeAction { $0.items.append(count) })
      ran = innerRuns.value != before.1
      if ran != (count % 2 == 0) { found.append("count \(count): inner ran \(ran) for `items`") }
      if outerRuns.value != before.0 { found.append("count \(count): outer ran") }
      before = (outerRuns.value, innerRuns.value)
      store.send(EdgeAction { $0.value += 1 })
      ran = innerRuns.value != before.1
      if ran != (count % 2 == 1) { found.append("count \(count): inner ran \(ran) for `value`") }
      problems.withLock { $0 += found }
    }
    alternateOnTwoThreads(rounds: 12) { check(1 + $0) }
    for round in 0..<4 { joinThread(startJoinableThread { check(100 + round) }) }
    #expect(problems.withLock { $0 } == [])
    inner.value = nil
    withExtendedLifetime(outer) {}
  }

  /// Threads that send concurrently: the owner changes under contention, and observers run on
  /// whichever thread drains. The observer's last run sees the last state, and its reads of
  /// that run are the ones that count afterwards. (Run under ThreadSanitizer.)
  @Test(.timeLimit(.minutes(1)))
  func concurrentSendersLeaveTheObserverSubscribedToItsLastReads() {
    let store = makeEdgeStore()
    let runs = RunCount()
    let lastSeen = Mutex(-1)
    let token = store.observe {
      let count = store.count
      if count % 3 == 0 { _ = store.other }
      if count % 3 == 1 { _ = store.flag }
      lastSeen.withLock { $0 = count }
      runs.add()
    }
    let threads = (0..<3).map { _ in
      startJoinableThread {
        for _ in 0..<20 { store.send(EdgeAction { $0.count += 1 }) }
      }
    }
    threads.forEach(joinThread)
    #expect(lastSeen.withLock { $0 } == 60)
    // 60 % 3 == 0: `other` is read, `flag` is not.
    var before = runs.value
    store.send(EdgeAction { $0.other += 1 })
    #expect(runs.value == before + 1)
    before = runs.value
    store.send(EdgeAction { $0.flag.toggle() })
    #expect(runs.value == before)
    withExtendedLifetime(token) {}
  }

  /// The thread recorder a store's recorder keeps, of a thread that exited, holds nothing of the
  /// store: the store and its observer's captures are released once their last user lets go.
  @Test(.timeLimit(.minutes(1)))
  func aKeptThreadRecorderOfAnExitedThreadKeepsNothingAlive() {
    final class Captured: Sendable {}
    weak var weakStore: EdgeStore?
    weak var weakCaptured: Captured?
    do {
      let store = makeEdgeStore()
      let captured = Captured()
      weakStore = store
      weakCaptured = captured
      let token = store.observe {
        _ = store.count
        withExtendedLifetime(captured) {}
      }
      // Observers run on these threads, which exit; the last one's recorder is kept.
      for count in 1...3 {
        joinThread(startJoinableThread { store.send(EdgeAction { $0.count = count }) })
      }
      token.cancel()
    }
    #expect(weakStore == nil)
    #expect(weakCaptured == nil)
  }
}

/// A count of observer runs, shared with observers.
private final class RunCount: Sendable {
  private let count = Mutex(0)
  var value: Int { count.withLock { $0 } }
  func add() { count.withLock { $0 += 1 } }
}
