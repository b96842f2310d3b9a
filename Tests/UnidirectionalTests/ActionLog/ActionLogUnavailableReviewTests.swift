import Foundation
import Testing
import Unidirectional
import UnidirectionalTestSupport

/// Review of issue 35: a round refused as unavailable while more actions arrive during it.
@Suite struct ActionLogUnavailableReviewTests {
  typealias State = ActionLogRecoveryTests.State
  typealias Action = ActionLogRecoveryTests.Action

  /// A sink whose first flush of a round holding entry 1 waits until the test lets it go, then
  /// refuses the round as unavailable; other rounds are kept (the header's own round too).
  final class GatedSink: ActionLogSink {
    private struct Storage {
      var round = Data()
      var durable = Data()
      var flushes = 0
      var isInFirstFlush = false
      var isReleased = false
    }
    private let storage = Locked(Storage())

    var durable: Data { storage.withLock { $0.durable } }
    var isInFirstFlush: Bool { storage.withLock { $0.isInFirstFlush } }
    func release() { storage.withLock { $0.isReleased = true } }

    func write(_ lines: Data) throws(ActionLogError) {
      storage.withLock { $0.round.append(lines) }
    }

    func flush() throws(ActionLogError) {
      let isFirst = storage.withLock { storage -> Bool in
        let holdsEntry1 = String(decoding: storage.round, as: UTF8.self).contains(
          "\"sequence\":1,")
        guard holdsEntry1, storage.flushes == 0 else { return false }
        storage.flushes += 1
        storage.isInFirstFlush = true
        return true
      }
      if isFirst {
        // On the committer's own thread: the round waits for the test.
        while !storage.withLock({ $0.isReleased }) { sched_yield() }
        storage.withLock { $0.round = Data() }
        throw ActionLogError(path: "gated", line: nil, reason: .unavailable("gated"))
      }
      storage.withLock { storage in
        storage.durable.append(storage.round)
        storage.round = Data()
      }
    }
  }

  final class Outcomes: @unchecked Sendable {
    // Safe: `values` is read and written only with `lock` held.
    private let lock = NSLock()
    private var values: [String: ActionLogError?] = [:]
    private var snapshotSequences: [Int] = []
    func set(_ name: String, _ failure: ActionLogError?) {
      lock.lock()
      values[name] = .some(failure)
      lock.unlock()
    }
    func snapshot(_ sequence: Int) {
      lock.lock()
      snapshotSequences.append(sequence)
      lock.unlock()
    }
    subscript(name: String) -> ActionLogError?? {
      lock.lock()
      defer { lock.unlock() }
      return values[name]
    }
    var snapshots: [Int] {
      lock.lock()
      defer { lock.unlock() }
      return snapshotSequences
    }
  }

  /// Polls `condition` until it holds or `bound` passed (a failure bound only).
  func until(_ bound: Duration, _ condition: () -> Bool) async throws {
    // wall-clock: a failure bound; a passing run goes on as soon as `condition` holds.
    let deadline = ContinuousClock.now + bound
    while !condition(), ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(5))
    }
    #expect(condition())
  }

  @Test func anActionAppendedDuringARefusedRoundIsNotRefusedWithIt() async throws {
    let committer = ActionLogCommitter()
    let sink = GatedSink()
    let outcomes = Outcomes()
    let log = DurableActionLog<Action>(sink: sink, program: "server", committer: committer)
    let store = Store(
      initialState: State(), reducer: ActionLogRecoveryTests.feature,
      interceptors: [
        log.interceptor(snapshottingEvery: 1) { sequence, _ in outcomes.snapshot(sequence) }
      ])
    log.whenDurable(store.send(.move(1))) { outcomes.set("first", $0) }
    try await until(.seconds(30)) { sink.isInFirstFlush }
    // During the round: another action and its waiter.
    log.whenDurable(store.send(.move(2))) { outcomes.set("second", $0) }
    sink.release()
    try await until(.seconds(30)) { outcomes["first"] != nil && outcomes["second"] != nil }
    guard case .some(.some(let error)) = outcomes["first"], case .unavailable = error.reason
    else {
      Issue.record("the first waiter got \(String(describing: outcomes["first"]))")
      return
    }
    #expect(outcomes["second"] == .some(nil), "refused with the round it was not part of")
    #expect(log.durableCount == 2)
    let sequences = try ActionLog<Action>(data: sink.durable, program: "server").entries.map(
      \.sequence)
    #expect(sequences == [1, 2])
    // Each snapshot once, in order, after its lines were kept.
    #expect(outcomes.snapshots == [1, 2])
  }
}
