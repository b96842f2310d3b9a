import Foundation
import Testing
import Unidirectional

@testable import PostgresActionLog

/// The action log in a real, throwaway PostgreSQL: group commit, recovery, idempotence, damage,
/// and the database going away and coming back.
@Suite(.serialized) struct PostgresActionLogDatabaseTests {
  struct State: Codable, Equatable, Sendable {
    var moves: [Int] = []
  }
  enum Action: Codable, Equatable, Sendable {
    case move(Int)
  }
  static let feature = Reduce<State, Action> { state, action in
    switch action {
    case .move(let value): state.moves.append(value)
    }
    return .none
  }

  /// A database on `server`, logging to a `Log` the tests can read.
  static func database(
    _ server: ThrowawayPostgres, messages: Messages = Messages()
  ) throws -> PostgresActionLogDatabase {
    try PostgresActionLogDatabase(
      connectionString: server.connectionString, backoff: .milliseconds(20)...(.milliseconds(200)),
      log: { messages.append($0) })
  }

  final class Messages: @unchecked Sendable {
    // Safe: `lines` is read and written only with `lock` held.
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ line: String) {
      lock.lock()
      lines.append(line)
      lock.unlock()
    }
    var all: [String] {
      lock.lock()
      defer { lock.unlock() }
      return lines
    }
  }

  /// Opens `name` in `database`, with a snapshot every 10 entries.
  static func open(
    _ name: String, in database: PostgresActionLogDatabase, committer: ActionLogCommitter
  ) throws -> (Store<State, Action>, DurableActionLog<Action>) {
    let recovery = try database.recover(
      log: name, program: "tests", initialState: State(), reducer: feature,
      committer: committer)
    let store = Store(
      initialState: recovery.state, reducer: feature,
      interceptors: [
        recovery.log.interceptor(
          snapshottingEvery: 10, with: database.snapshotWriter(forLog: name))
      ])
    return (store, recovery.log)
  }

  /// The sequences stored for `log`, in order, as a separate connection reads them.
  static func storedSequences(_ log: String, _ server: ThrowawayPostgres) throws -> [Int] {
    let connection = try PostgresConnection(server.connectionString)
    return try connection.execute(
      "SELECT sequence::text FROM unidirectional_log_lines WHERE log = $1 ORDER BY unidirectional_log_lines.sequence",
      [.text(log)]
    ).rows.compactMap { $0[0].flatMap(PostgresActionLogDatabase.integer) }
  }

  @Test func acknowledgedActionsRecoverFromTheSnapshotAndTheLinesAfterIt() async throws {
    try await ThrowawayPostgres.with { server in
      let committer = ActionLogCommitter(concurrentFlushes: 1)
      var live = State()
      do {
        let database = try Self.database(server)
        let (store, log) = try Self.open("game-1", in: database, committer: committer)
        for move in 1...25 { try await log.waitUntilDurable(store.send(.move(move))) }
        live = store.state
        // The snapshot after entry 20 was written before entry 20 was acknowledged; one more
        // round makes no difference, and keeps the test from depending on that order.
        try await log.waitUntilDurable(store.send(.move(26)))
        live = store.state
      }
      let stored = try Self.storedSequences("game-1", server)
      #expect(stored == Array(0...26))
      let database = try Self.database(server)
      let recovery = try database.recover(
        log: "game-1", program: "tests", initialState: State(), reducer: Self.feature,
        committer: committer)
      #expect(recovery.state == live)
      #expect(recovery.snapshotSequence == 20)
      #expect(recovery.replayedCount == 6)
      // It continues after entry 26, without a second header.
      let store = Store(
        initialState: recovery.state, reducer: Self.feature,
        interceptors: [recovery.log.interceptor()])
      try await recovery.log.waitUntilDurable(store.send(.move(27)))
      #expect(try Self.storedSequences("game-1", server) == Array(0...27))
      // Without the snapshot, every line is replayed, in the order of its sequence (not of its
      // text: 10 sorts before 2).
      let admin = try PostgresConnection(server.connectionString)
      _ = try admin.execute("DELETE FROM unidirectional_log_snapshots WHERE log = 'game-1'")
      let replayed = try Self.database(server).recover(
        log: "game-1", program: "tests", initialState: State(), reducer: Self.feature,
        committer: committer)
      #expect(replayed.state.moves == Array(1...27))
      #expect(replayed.replayedCount == 27)
      // The same log opened twice in one process is refused.
      #expect(throws: ActionLogError.self) {
        try database.recover(
          log: "game-1", program: "tests", initialState: State(), reducer: Self.feature,
          committer: committer)
      }
    }
  }

  @Test func oneTransactionCoversEveryLogOfARound() async throws {
    try await ThrowawayPostgres.with { server in
      let database = try Self.database(server)
      // Two sinks written in one round: the first flush commits both, the second finds its
      // lines committed.
      let sinkA = PostgresActionLogSink(database: database, name: "c")
      let sinkB = PostgresActionLogSink(database: database, name: "d")
      database.withState { state in
        state.logs["c"] = .init(committedThrough: -1)
        state.logs["d"] = .init(committedThrough: -1)
      }
      let before = database.commitCount
      try sinkA.write(Data("header c\n".utf8))
      try sinkB.write(Data("header d\nentry d1\n".utf8))
      try sinkA.flush()
      try sinkB.flush()
      #expect(database.commitCount == before + 1)
      #expect(try Self.storedSequences("c", server) == [0])
      #expect(try Self.storedSequences("d", server) == [0, 1])
    }
  }

  @Test func aRetriedRoundNeverWritesTwiceAndAnotherWritersBytesStopTheLog() async throws {
    try await ThrowawayPostgres.with { server in
      let database = try Self.database(server)
      let sink = PostgresActionLogSink(database: database, name: "x")
      database.withState { $0.logs["x"] = .init(committedThrough: -1) }
      try sink.write(Data("header\none\n".utf8))
      try sink.flush()
      // A commit whose reply was lost: the log hands the same lines again, then newer ones.
      database.withState { $0.logs["x"]?.committedThrough = -1 }
      try sink.write(Data("header\none\ntwo\n".utf8))
      try sink.flush()
      #expect(try Self.storedSequences("x", server) == [0, 1, 2])
      // Other bytes under a sequence already stored: another writer. Nothing is mixed in.
      database.withState { $0.logs["x"]?.committedThrough = 1 }
      try sink.write(Data("TWO\nthree\n".utf8))
      #expect {
        try sink.flush()
      } throws: { error in
        guard let error = error as? ActionLogError, case .fileError(let message) = error.reason
        else { return false }
        return message.contains("another process writes the same log")
      }
      #expect(try Self.storedSequences("x", server) == [0, 1, 2])
    }
  }

  @Test func aDamagedLineIsRefusedByNameNeverSkipped() async throws {
    try await ThrowawayPostgres.with { server in
      let committer = ActionLogCommitter(concurrentFlushes: 1)
      do {
        let database = try Self.database(server)
        let (store, log) = try Self.open("g", in: database, committer: committer)
        for move in 1...5 { try await log.waitUntilDurable(store.send(.move(move))) }
      }
      // One byte of entry 3's JSON changed behind the log's back.
      let admin = try PostgresConnection(server.connectionString)
      _ = try admin.execute(
        "UPDATE unidirectional_log_lines SET line = set_byte(line, 40, get_byte(line, 40) # 1) "
          + "WHERE log = 'g' AND sequence = 3")
      let database = try Self.database(server)
      #expect {
        try database.recover(
          log: "g", program: "tests", initialState: State(), reducer: Self.feature,
          committer: committer)
      } throws: { error in
        guard let error = error as? ActionLogError, case .damaged = error.reason else {
          return false
        }
        // Line 4: the header is line 1, so entry 3 is line 4, as in a file.
        return error.path == "g" && error.line == 4
      }
    }
  }

  @Test func whileTheDatabaseIsDownNothingIsAcknowledgedAndNothingIsLost() async throws {
    try await ThrowawayPostgres.with { server in
      let messages = Messages()
      let database = try Self.database(server, messages: messages)
      let committer = ActionLogCommitter(concurrentFlushes: 1)
      let (store, log) = try Self.open("g", in: database, committer: committer)
      for move in 1...3 { try await log.waitUntilDurable(store.send(.move(move))) }

      try server.stopServer()
      for move in 4...6 {
        let error = await #expect(throws: ActionLogError.self) {
          try await log.waitUntilDurable(store.send(.move(move)))
        }
        guard case .unavailable = error?.reason else {
          Issue.record("expected unavailable, got \(String(describing: error))")
          return
        }
      }
      #expect(log.failure == nil)
      #expect(log.durableCount == 3)
      #expect(database.isUnavailable)

      try server.startServer()
      try await log.waitUntilDurable(store.send(.move(7)))
      #expect(log.durableCount == 7)
      #expect(!database.isUnavailable)
      #expect(try Self.storedSequences("g", server) == Array(0...7))
      #expect(messages.all.contains { $0.contains("unavailable") })
      #expect(messages.all.contains { $0.contains("connected again") })

      let recovered = try Self.database(server).recover(
        log: "g", program: "tests", initialState: State(), reducer: Self.feature,
        committer: committer)
      #expect(recovered.state.moves == Array(1...7))
    }
  }
}
