import Foundation
import Testing
import Unidirectional

@testable import PostgresActionLog

#if canImport(Glibc)
  import Glibc
#endif

/// Review of issue 35: what a PostgreSQL in production does to the log (restarts, a full disk,
/// a failover to a standby, a stalled backend, a weaker commit setting), each against a
/// throwaway PostgreSQL.
@Suite(.serialized) struct PostgresActionLogReviewTests {
  typealias Base = PostgresActionLogDatabaseTests

  /// Where a callback's outcome lands: `nil` until it is called.
  final class Outcome: @unchecked Sendable {
    // Safe: `value` is read and written only with `lock` held.
    private let lock = NSLock()
    private var value: ActionLogError??
    func set(_ failure: ActionLogError?) {
      lock.lock()
      value = .some(failure)
      lock.unlock()
    }
    var current: ActionLogError?? {
      lock.lock()
      defer { lock.unlock() }
      return value
    }
  }

  /// Waits until `outcome` is set or `bound` passed (a failure bound, never a pass condition).
  static func wait(for outcome: Outcome, bound: Duration) async throws -> ActionLogError?? {
    // wall-clock: a failure bound; a passing run goes on as soon as the callback ran.
    let deadline = ContinuousClock.now + bound
    while outcome.current == nil, ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(20))
    }
    return outcome.current
  }

  /// A database restarted while the server was idle (an operator's restart, a minor-version
  /// upgrade, `idle_session_timeout`): it is back before the next move, and that move should be
  /// acknowledged, not refused as unavailable (which disconnects both players of every game in
  /// the round).
  @Test func aRestartWhileIdleDoesNotFailTheNextRound() async throws {
    try await ThrowawayPostgres.with { server in
      let database = try Base.database(server)
      let committer = ActionLogCommitter(concurrentFlushes: 1)
      let (store, log) = try Base.open("idle", in: database, committer: committer)
      try await log.waitUntilDurable(store.send(.move(1)))

      try server.stopServer()
      try server.startServer()
      // The database is up and accepts connections (`pg_ctl start -w` returned).
      await #expect(throws: Never.self) {
        try await log.waitUntilDurable(store.send(.move(2)))
      }
      try await log.waitUntilDurable(store.send(.move(3)))
      #expect(try Base.storedSequences("idle", server) == Array(0...3))
    }
  }

  /// A transient error on a live connection (here `disk_full`, as a full disk raises it): the
  /// log must retry with the backoff, as for a lost connection, and tell the operator; it must
  /// not retry in a tight loop holding the database's lock.
  @Test func aTransientErrorOnALiveConnectionBacksOff() async throws {
    try await ThrowawayPostgres.with { server in
      let messages = Base.Messages()
      let database = try PostgresActionLogDatabase(
        connectionString: server.connectionString, backoff: .seconds(2)...(.seconds(2)),
        log: { messages.append($0) })
      let committer = ActionLogCommitter(concurrentFlushes: 1)
      let (store, log) = try Base.open("full", in: database, committer: committer)
      try await log.waitUntilDurable()
      let admin = try PostgresConnection(server.connectionString)
      // A sequence counts the attempts: it is not rolled back with them.
      _ = try admin.execute("CREATE SEQUENCE attempts")
      _ = try admin.execute(
        """
        CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          PERFORM nextval('attempts');
          RAISE EXCEPTION 'could not extend file: No space left on device'
            USING ERRCODE = 'disk_full';
        END $$
        """)
      _ = try admin.execute(
        "CREATE TRIGGER refuse BEFORE INSERT ON unidirectional_log_lines FOR EACH ROW "
          + "EXECUTE FUNCTION refuse()")

      let error = await #expect(throws: ActionLogError.self) {
        try await log.waitUntilDurable(store.send(.move(1)))
      }
      guard case .unavailable = error?.reason else {
        Issue.record("expected unavailable, got \(String(describing: error))")
        return
      }
      // The backoff is measured from the database's count of attempts, not from when the
      // error reached this test (a loaded machine can deliver it after later attempts): from a
      // moment the count was read as `first`, three more attempts need at least two backoffs
      // after the next attempt, which cannot have happened before the read.
      func attemptsSoFar() throws -> Int {
        try admin.execute("SELECT last_value FROM attempts").rows.first?[0]
          .flatMap(PostgresActionLogDatabase.integer) ?? 0
      }
      // wall-clock: taken before the read, so every attempt after `first` comes after it.
      let before = ContinuousClock.now
      let first = try attemptsSoFar()
      // wall-clock: a failure bound; a passing run goes on once three more attempts happened.
      let deadline = before + .seconds(120)
      var attempts = first
      // wall-clock: the failure bound above; the loop ends on the database's count.
      while attempts < first + 3, ContinuousClock.now < deadline {
        attempts = try attemptsSoFar()
        // wall-clock: the pace of reading that count, not a condition of the test.
        try await Task.sleep(for: .milliseconds(20))
      }
      #expect(attempts >= first + 3, "the log stopped retrying")
      // Attempts first + 2 and first + 3 each came a backoff (2 s) after the one before.
      // wall-clock: a lower bound on time, which a loaded machine can only lengthen.
      #expect(ContinuousClock.now - before >= .seconds(4), "retried without backing off")
      #expect(messages.all.contains { $0.contains("unavailable") }, "the operator was not told")

      _ = try admin.execute("DROP TRIGGER refuse ON unidirectional_log_lines")
      try await log.waitUntilDurable(store.send(.move(2)))
      #expect(try Base.storedSequences("full", server) == Array(0...2))
    }
  }

  /// After a failover, the connection may land on a server that is now a standby (read-only):
  /// the log must wait for a primary (unavailable), not stop for good.
  @Test func aReadOnlyServerAfterAFailoverDoesNotStopTheLog() async throws {
    try await ThrowawayPostgres.with { server in
      let database = try Base.database(server)
      let committer = ActionLogCommitter(concurrentFlushes: 1)
      let (store, log) = try Base.open("failover", in: database, committer: committer)
      try await log.waitUntilDurable(store.send(.move(1)))
      let admin = try PostgresConnection(server.connectionString)
      // What a standby answers to a write: SQLSTATE 25006.
      _ = try admin.execute("ALTER DATABASE postgres SET default_transaction_read_only = on")
      try server.stopServer()
      try server.startServer()
      for move in 2...3 {
        let error = await #expect(throws: ActionLogError.self) {
          try await log.waitUntilDurable(store.send(.move(move)))
        }
        guard case .unavailable = error?.reason else {
          Issue.record("expected unavailable, got \(String(describing: error))")
          return
        }
      }
      #expect(log.failure == nil)
    }
  }

  /// A backend that stops answering (a stalled disk under its `fsync`, a paused VM): the kernel
  /// still acknowledges the packets, so libpq waits forever. The round must fail as unavailable
  /// after a bounded time, or every acknowledgement, the other logs and the server's shutdown
  /// (its drain) wait with it.
  @Test func aStalledBackendFailsTheRoundInsteadOfHangingIt() async throws {
    try await ThrowawayPostgres.with { server in
      let database = try Base.database(server)
      let committer = ActionLogCommitter(concurrentFlushes: 1)
      let (store, log) = try Base.open("stalled", in: database, committer: committer)
      try await log.waitUntilDurable(store.send(.move(1)))
      let backend = try database.withState { state in
        try state.connection?.execute("SELECT pg_backend_pid()").rows.first?[0]
          .flatMap(PostgresActionLogDatabase.integer)
      }
      guard let backend else {
        Issue.record("no backend")
        return
      }
      kill(pid_t(backend), SIGSTOP)
      let outcome = Outcome()
      log.whenDurable(store.send(.move(2))) { outcome.set($0) }
      let result = try await Self.wait(for: outcome, bound: .seconds(60))
      kill(pid_t(backend), SIGCONT)
      #expect(result != nil, "the round still waits on the stalled backend after 60 s")
      if result == nil { _ = try await Self.wait(for: outcome, bound: .seconds(60)) }
    }
  }

  /// A database whose default is `synchronous_commit = off` (a common tuning) answers COMMIT
  /// before the WAL is on disk: a crash of PostgreSQL then loses acknowledged moves. The log's
  /// sessions must commit synchronously whatever the default.
  @Test func theLogsSessionsCommitSynchronously() async throws {
    try await ThrowawayPostgres.with { server in
      let admin = try PostgresConnection(server.connectionString)
      _ = try admin.execute("ALTER DATABASE postgres SET synchronous_commit = off")
      let database = try Base.database(server)
      let setting = try database.withState { state in
        try state.connection?.execute("SHOW synchronous_commit").rows.first?[0]
          .map { String(decoding: $0, as: UTF8.self) }
      }
      #expect(setting != "off" && setting != "local", "synchronous_commit is \(setting ?? "?")")
    }
  }

  /// Log names travel as C strings: a NUL would end them, so two names that differ after it
  /// would be one log in the tables, which the process's "open already" check does not see.
  /// Such names are refused, as is any text parameter holding a NUL.
  @Test func namesWithANulAreRefused() async throws {
    try await ThrowawayPostgres.with { server in
      let database = try Base.database(server)
      let committer = ActionLogCommitter(concurrentFlushes: 1)
      #expect {
        try Base.open("game\u{0}one", in: database, committer: committer)
      } throws: { error in
        guard let error = error as? ActionLogError, case .fileError(let message) = error.reason
        else { return false }
        return message.contains("NUL")
      }
      let connection = try PostgresConnection(server.connectionString)
      #expect(throws: PostgresConnection.Failure.self) {
        try connection.execute("SELECT $1::text", [.text("a\u{0}b")])
      }
    }
  }
}
