import Foundation
import Unidirectional

/// A PostgreSQL database that keeps durable action logs: the place a server's stores journal
/// their actions when its durable state lives in the database its team already runs.
///
/// Make one per process and open each store's log through it with
/// ``recover(log:program:schemaVersion:redactsSecrets:initialState:reducer:committer:fencedBy:)``,
/// which recovers what the database holds for that log (or starts it) and gives back the state,
/// the log and an interceptor for the store:
///
/// ```swift
/// let database = try PostgresActionLogDatabase(
///   connectionString: "host=127.0.0.1 port=5432 dbname=games connect_timeout=5")
/// let committer = ActionLogCommitter(concurrentFlushes: 1)
/// let opened = try database.recover(
///   log: "journal", program: "game-server", snapshotEvery: 1000,
///   initialState: Journal.State(), reducer: Journal(), committer: committer)
/// let store = Store(
///   initialState: opened.recovery.state, reducer: Journal(),
///   interceptors: [opened.interceptor])
/// try await opened.recovery.log.waitUntilDurable(store.send(.started(…)))
/// ```
///
/// ## Tables
///
/// The database creates its tables if they are missing (so the role needs `CREATE` on the
/// schema the first time):
///
/// | Table | Key | Holds |
/// | --- | --- | --- |
/// | `unidirectional_log_lines` | `(log, sequence)` | each line as written: sequence 0 the log's header, then one checksummed entry (format version 2) per action |
/// | `unidirectional_log_snapshots` | `log` | the latest snapshot of each log and the sequence it reflects |
/// | `unidirectional_partition_leases` | `partition` | the leases of ``PartitionLeases``, which fenced logs check |
///
/// ## Guarantees
///
/// - **Group commit.** Each round of the ``ActionLogCommitter`` writes the lines of every log
///   opened here in one transaction; an action is acknowledged only after that transaction's
///   `COMMIT` succeeded (its command tag is checked: an aborted transaction answers
///   `ROLLBACK`).
/// - **Parameterized.** Every value travels as a parameter of `PQexecParams`; no SQL is built
///   from a value.
/// - **Idempotent.** Lines are inserted with `ON CONFLICT DO NOTHING` on `(log, sequence)`, and a
///   line already there must hold the same bytes: a round retried after a lost reply never
///   writes twice, and a second writer of the same log stops this one's log instead of mixing
///   histories.
/// - **Verified recovery.** Recovery reads the header, the latest snapshot and the lines after
///   it, and verifies every line's checksum: a line that does not verify is damage, refused by
///   name, never skipped.
/// - **Fenced.** A log recovered with a lease (`fencedBy`) is written only while that lease's
///   row names the same holder and epoch: each round's transaction locks the row
///   (`SELECT … FOR SHARE`) and checks it before inserting the log's lines. A log whose lease
///   was granted to another since gets nothing written; its waiters, and the log's
///   ``DurableActionLog/failure`` from then on, are ``ActionLogError/Reason/fenced(_:)``, and
///   the other logs of the round commit as usual.
///
/// ## When the database goes away
///
/// A lost connection, or a server that refuses for a reason that passes (shutting down,
/// starting up, out of connections, a full disk, a serialization failure, a read-only standby
/// during a failover), fails only the round under way: its waiters receive
/// ``ActionLogError/Reason/unavailable(_:)``, nothing of it is acknowledged, and the log keeps
/// its lines and writes them in a later round. The next attempt waits for a backoff (from
/// `backoff.lowerBound`, doubling, up to `backoff.upperBound`), on the committer's thread, and
/// the database says so once through `log` when it becomes unavailable and once when a round
/// commits again. A connection lost while the process was idle (a database restarted
/// meanwhile) is learnt of at the next round, which is then tried once more, at once, on a new
/// connection. A server that stops answering fails the round after `answerTimeout`, and its
/// connection is abandoned. Any other error (a missing privilege, another writer's bytes under
/// the same key) stops the logs of that round, as a failing disk stops a file log.
///
/// Commits wait for the WAL to be flushed: a session whose database defaults to
/// `synchronous_commit = off` (or `local`) raises it to `on`.
public final class PostgresActionLogDatabase: @unchecked Sendable {
  // Safe: `state` (the connection and every log's bookkeeping) is read and written only with
  // `lock` held; everything else is immutable.

  /// What a log opened here is to the database: its lines written in the current round, and
  /// how far it is committed.
  struct LogState {
    /// The last sequence the database holds for this log (-1: not even the header).
    var committedThrough: Int
    /// Lines written since the last commit, each with its sequence.
    var staged: [(sequence: Int, line: Data)] = []
    /// The outcome of a commit that included this log's staged lines, for its own flush to
    /// return (another log's flush may have committed them).
    var outcome: ActionLogError?? = nil
    /// The lease this log writes under: each round writes its lines only if the lease's row
    /// still names the same holder and epoch.
    var fence: PartitionLeases.Lease? = nil
    /// Set once a round found the fence broken: the log writes nothing more, ever (epochs never
    /// go back).
    var fenced: ActionLogError? = nil
    /// Which opening of the log this is: a log closed with ``close(log:)`` may be opened again
    /// under the same name, and its first sink must then reach neither the new one's lines nor
    /// its bookkeeping.
    var generation = 0
  }

  struct State {
    var connection: PostgresConnection?
    var logs: [String: LogState] = [:]
    /// No connection attempt before this instant (backoff after a failure).
    var nextAttempt = ContinuousClock.now
    var backoff: Duration
    var isDown = false
    var commits = 0
    /// The generation of the next log opened.
    var nextGeneration = 1
    /// The last log closed under each name (``close(log:because:)``), with the error its sink's
    /// flushes fail with from then on.
    var closed: [String: (generation: Int, error: ActionLogError)] = [:]
    /// Whether rounds check the fences of fenced logs: `false` only in the test that proves the
    /// check is what keeps a fenced holder's lines out.
    var checksFences = true
    /// Called, without the lock, by a flush that is about to commit a round, with the names of
    /// the logs whose lines are staged: tests hold a round in flight with it.
    var beforeRound: (@Sendable (_ staged: [String]) -> Void)? = nil
    /// Called, with the lock held, inside a round's transaction once the fences are checked
    /// (their rows locked), with the names of the round's logs: tests hold a transaction open
    /// with it.
    var afterFenceCheck: (@Sendable (_ logs: [String]) -> Void)? = nil
  }

  private let lock = NSLock()
  private var state: State
  private let connectionString: String
  private let backoff: ClosedRange<Duration>
  private let answerTimeout: Duration
  private let idleInTransactionTimeout: Duration?
  private let log: @Sendable (String) -> Void

  /// Connects to the database and creates its tables if they are missing.
  ///
  /// - Parameters:
  ///   - connectionString: A libpq connection string, such as
  ///     `host=127.0.0.1 port=5432 user=app dbname=app connect_timeout=5`, a `postgresql://`
  ///     URI, or empty for libpq's environment (`PGHOST`, …). Without `connect_timeout`, a
  ///     connection attempt gives up after 10 s. With several hosts, add
  ///     `target_session_attrs=read-write`, so that a failover finds the new primary.
  ///   - backoff: The first and the longest wait between attempts while the database is away.
  ///   - answerTimeout: How long a statement (a round's `COMMIT`, say) waits for the server's
  ///     answer before the connection is abandoned and the round fails as unavailable: a
  ///     stalled server would hold every acknowledgement otherwise.
  ///   - idleInTransactionTimeout: If set, the server ends a session of this database that
  ///     sits inside a round's transaction that long waiting for this process (paused by
  ///     `SIGSTOP`, a stalled machine): the round fails as unavailable, and the locks it holds
  ///     (the `FOR SHARE` locks of fenced logs' lease rows) are released, so that a paused
  ///     holder cannot keep another from claiming the lease. Give fenced logs their lease
  ///     time, or less.
  ///   - log: Receives one line when the database becomes unavailable and one when it is
  ///     back; standard error by default.
  /// - Throws: ``ActionLogError`` with ``ActionLogError/Reason/unavailable(_:)`` if the
  ///   database cannot be reached, or ``ActionLogError/Reason/fileError(_:)`` with the server's
  ///   message if the tables cannot be created.
  public init(
    connectionString: String,
    backoff: ClosedRange<Duration> = .milliseconds(100)...(.seconds(2)),
    answerTimeout: Duration = .seconds(10),
    idleInTransactionTimeout: Duration? = nil,
    log: @escaping @Sendable (String) -> Void = { message in
      FileHandle.standardError.write(Data((message + "\n").utf8))
    }
  ) throws(ActionLogError) {
    self.connectionString = connectionString
    self.backoff = backoff
    self.answerTimeout = answerTimeout
    self.idleInTransactionTimeout = idleInTransactionTimeout
    self.log = log
    self.state = State(backoff: backoff.lowerBound)
    do {
      let connection = try Self.connect(
        connectionString, answerTimeout: answerTimeout,
        idleInTransactionTimeout: idleInTransactionTimeout)
      try Self.createTables(Self.schema, on: connection)
      state.connection = connection
    } catch {
      throw Self.error(error, log: "database")
    }
  }

  /// Runs `statements` (`CREATE TABLE IF NOT EXISTS …`) in one transaction that first takes a
  /// transaction-level advisory lock: `IF NOT EXISTS` is not safe against a concurrent
  /// creation (two processes starting together on a new database, the second failing on
  /// `pg_type_typname_nsp_index`), so creators take turns, and the second finds the tables.
  static func createTables(
    _ statements: [String], on connection: PostgresConnection
  ) throws(PostgresConnection.Failure) {
    _ = try connection.execute("BEGIN")
    do throws(PostgresConnection.Failure) {
      // Any fixed key serves; this one spells "unidir" in ASCII.
      _ = try connection.execute("SELECT pg_advisory_xact_lock(129117075040626)")
      for statement in statements { _ = try connection.execute(statement) }
      _ = try connection.execute("COMMIT")
    } catch {
      if !error.isConnectionLost { _ = try? connection.execute("ROLLBACK") }
      throw error
    }
  }

  /// The statements that create the tables (idempotent).
  static let schema = [
    """
    CREATE TABLE IF NOT EXISTS unidirectional_log_lines (
      log text NOT NULL,
      sequence bigint NOT NULL CHECK (sequence >= 0),
      line bytea NOT NULL,
      PRIMARY KEY (log, sequence))
    """,
    """
    CREATE TABLE IF NOT EXISTS unidirectional_log_snapshots (
      log text PRIMARY KEY,
      sequence bigint NOT NULL,
      snapshot bytea NOT NULL)
    """,
    PartitionLeases.schema,
  ]

  /// How many transactions committed log lines since the database was made.
  public var commitCount: Int {
    withState { $0.commits }
  }

  /// Whether the connection is down (between a failure and the next successful reconnection).
  public var isUnavailable: Bool {
    withState { $0.isDown }
  }

  /// Runs `body` with the lock held: the one way to the connection and the logs' bookkeeping.
  func withState<T, Failure: Error>(
    _ body: (inout State) throws(Failure) -> T
  ) throws(Failure) -> T {
    lock.lock()
    defer { lock.unlock() }
    return try body(&state)
  }

  // MARK: The connection

  /// A new connection, whose commits wait for the WAL to be flushed whatever the database's
  /// default (`synchronous_commit` raised to `on` from `off` or `local`, left as it is
  /// otherwise): an acknowledged line must survive a crash of PostgreSQL.
  ///
  /// With `idleInTransactionTimeout`, the server ends the session if it sits inside a
  /// transaction that long waiting for this process (paused, say): its locks go with it.
  static func connect(
    _ connectionString: String, answerTimeout: Duration,
    idleInTransactionTimeout: Duration? = nil
  ) throws(PostgresConnection.Failure) -> PostgresConnection {
    let connection = try PostgresConnection(connectionString, answerTimeout: answerTimeout)
    let setting = try connection.execute("SHOW synchronous_commit").rows.first?[0]
    if let setting, ["off", "local"].contains(String(decoding: setting, as: UTF8.self)) {
      _ = try connection.execute("SET synchronous_commit TO on")
    }
    if let idleInTransactionTimeout {
      let milliseconds = max(1, PartitionLeases.microseconds(idleInTransactionTimeout) / 1000)
      _ = try connection.execute(
        "SET idle_in_transaction_session_timeout TO \(milliseconds)")
    }
    return connection
  }

  /// The connection, reconnecting if there is none and the backoff allows; `unavailable`
  /// before the next attempt is due (`waitForNextAttempt` waits for it, without the lock).
  ///
  /// Called with the lock held.
  func connection(in state: inout State) throws(ActionLogError) -> PostgresConnection {
    if let connection = state.connection, connection.isConnected { return connection }
    state.connection = nil
    guard ContinuousClock.now >= state.nextAttempt else {
      throw ActionLogError(
        path: "database", line: nil, reason: .unavailable("reconnecting after a backoff"))
    }
    do {
      let connection = try Self.connect(
        connectionString, answerTimeout: answerTimeout,
        idleInTransactionTimeout: idleInTransactionTimeout)
      state.connection = connection
      return connection
    } catch {
      markDown(&state, because: error.message, dropping: true)
      throw ActionLogError(
        path: "database", line: nil, reason: .unavailable(Self.firstLine(error.message)))
    }
  }

  /// The database answered a round again after being unavailable: says so, and resets the
  /// backoff.
  func markUp(_ state: inout State) {
    state.backoff = backoff.lowerBound
    guard state.isDown else { return }
    state.isDown = false
    log("PostgresActionLog: connected again; writing the lines kept meanwhile")
  }

  /// Schedules the next attempt after the current backoff, dropping the connection if it is
  /// gone (a live one is kept: the database refused for a reason that passes, such as a full
  /// disk or a standby's read-only answer).
  func markDown(_ state: inout State, because message: String, dropping: Bool) {
    if dropping { state.connection = nil }
    state.nextAttempt = ContinuousClock.now + state.backoff
    let next = state.backoff
    state.backoff = min(state.backoff * 2, backoff.upperBound)
    if !state.isDown {
      state.isDown = true
      log(
        "PostgresActionLog: the database is unavailable (\(Self.firstLine(message))); "
          + "acknowledging nothing until it is back, retrying every \(next) to "
          + "\(backoff.upperBound)")
    }
  }

  static func firstLine(_ message: String) -> String {
    String(message.split(separator: "\n").first ?? Substring(message))
  }

  /// The log error for a failure of the database: `unavailable` if it may pass.
  static func error(_ failure: PostgresConnection.Failure, log: String) -> ActionLogError {
    let message = firstLine(failure.message)
    return ActionLogError(
      path: log, line: nil,
      reason: failure.isTransient ? .unavailable(message) : .fileError("PostgreSQL: " + message))
  }
}
