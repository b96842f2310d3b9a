import Foundation
import Testing
import Unidirectional
import UnidirectionalTestSupport

/// Recovering from lines a sink of one's own kept as records (a database's rows), with
/// snapshots handed to a closure.
@Suite struct ActionLogSinkRecoveryTests {
  typealias State = ActionLogRecoveryTests.State
  typealias Action = ActionLogRecoveryTests.Action

  /// The lines `sink` was given, each with its newline: the records a database would hold.
  func records(of sink: TestSink) -> [Data] {
    sink.written.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast().map {
      Data($0) + [0x0A]
    }
  }

  /// Plays `moves` on a live store logging to `sink`, a snapshot every 10 entries kept in
  /// `snapshots`, each move acknowledged (so each snapshot due is written); then one more round.
  func play(
    _ moves: some Sequence<Int>, sink: TestSink, snapshots: Locked<[(Int, Data)]>,
    committer: ActionLogCommitter
  ) async throws -> State {
    let log = DurableActionLog<Action>(sink: sink, program: "server", committer: committer)
    let store = Store(
      initialState: State(), reducer: ActionLogRecoveryTests.feature,
      interceptors: [
        log.interceptor(snapshottingEvery: 10) { sequence, data in
          snapshots.withLock { $0.append((sequence, data)) }
        }
      ])
    for move in moves { try await log.waitUntilDurable(store.send(.move(move))) }
    // Snapshots are written on the committer's thread after their round: one more round of
    // another log proves the last one done.
    let other = DurableActionLog<Action>(sink: TestSink(), program: "x", committer: committer)
    try await other.waitUntilDurable()
    return store.state
  }

  @Test func recoveryFromTheLatestSnapshotAndTheRecordsAfterItReachesTheLiveState() async throws {
    let committer = ActionLogCommitter()
    let sink = TestSink()
    let snapshots = Locked<[(Int, Data)]>([])
    let live = try await play(1...25, sink: sink, snapshots: snapshots, committer: committer)
    let lines = records(of: sink)
    #expect(lines.count == 26)  // The header, then 25 entries.
    let (sequence, snapshot) = try #require(snapshots.withLock { $0.last })
    #expect(sequence == 20)
    #expect(snapshots.withLock { $0.map(\.0) } == [10, 20])

    let next = TestSink()
    let recovery = try DurableActionLog<Action>.recover(
      header: lines[0].dropLast(), snapshot: snapshot,
      entries: Data(lines[(sequence + 1)...].joined()), continuingIn: next, name: "game-1",
      program: "server", initialState: State(), reducer: ActionLogRecoveryTests.feature,
      committer: committer)
    #expect(recovery.state == live)
    #expect(recovery.sequence == 25)
    #expect(recovery.snapshotSequence == 20)
    #expect(recovery.replayedCount == 5)

    // The reopened log continues at entry 26 without writing its header again.
    let store = Store(
      initialState: recovery.state, reducer: ActionLogRecoveryTests.feature,
      interceptors: [recovery.log.interceptor()])
    try await recovery.log.waitUntilDurable(store.send(.move(100)))
    let continued = records(of: next)
    #expect(continued.count == 1)
    #expect(String(decoding: continued[0], as: UTF8.self).contains("\"sequence\":26"))

    // From the header and every entry, without the snapshot, the same state.
    let full = try DurableActionLog<Action>.recover(
      header: lines[0].dropLast(), snapshot: nil, entries: Data(lines[1...].joined()),
      continuingIn: TestSink(), name: "game-1", program: "server", initialState: State(),
      reducer: ActionLogRecoveryTests.feature, committer: committer)
    #expect(full.state == live)
    #expect(full.replayedCount == 25)
  }

  @Test func aRecordThatDoesNotVerifyIsRefusedEvenAtTheEnd() async throws {
    let committer = ActionLogCommitter()
    let sink = TestSink()
    _ = try await play(1...3, sink: sink, snapshots: Locked([]), committer: committer)
    var lines = records(of: sink)
    // The last entry's JSON changed after it was committed: a file would call it a torn tail;
    // a database row is never torn, so it is damage.
    let last = lines.count - 1
    lines[last] = Data(
      String(decoding: lines[last], as: UTF8.self)
        .replacingOccurrences(of: "\"move\"", with: "\"mover\"").utf8)
    #expect {
      try DurableActionLog<Action>.recover(
        header: lines[0].dropLast(), snapshot: nil, entries: Data(lines[1...].joined()),
        continuingIn: TestSink(), name: "game-1", program: "server", initialState: State(),
        reducer: ActionLogRecoveryTests.feature, committer: committer)
    } throws: { error in
      guard let error = error as? ActionLogError, case .damaged(_, let problem) = error.reason
      else { return false }
      return error.line == 4 && problem.hasPrefix("checksum mismatch")
    }
  }

  @Test func noHeaderStartsANewLogWhoseHeaderIsWrittenFirst() async throws {
    let committer = ActionLogCommitter()
    let sink = TestSink()
    let recovery = try DurableActionLog<Action>.recover(
      header: nil, snapshot: nil, entries: Data(), continuingIn: sink, name: "game-2",
      program: "server", initialState: State(), reducer: ActionLogRecoveryTests.feature,
      committer: committer)
    #expect(recovery.sequence == 0)
    let store = Store(
      initialState: recovery.state, reducer: ActionLogRecoveryTests.feature,
      interceptors: [recovery.log.interceptor()])
    try await recovery.log.waitUntilDurable(store.send(.move(1)))
    let lines = records(of: sink)
    #expect(lines.count == 2)
    #expect(String(decoding: lines[0], as: UTF8.self).contains("\"actionLog\":2"))

    // Entries without a header are not a log this library wrote.
    #expect(throws: ActionLogError.self) {
      try DurableActionLog<Action>.recover(
        header: nil, snapshot: nil, entries: lines[1], continuingIn: TestSink(), name: "game-2",
        program: "server", initialState: State(), reducer: ActionLogRecoveryTests.feature,
        committer: committer)
    }
  }
}
