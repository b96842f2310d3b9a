import Foundation

/// Leases on the partitions of a cluster's games, kept in PostgreSQL: which process serves a
/// partition, and the fencing token (the epoch) that its durable logs write with.
///
/// Games are split into partitions by ``partition(ofGame:partitionCount:)``. A process serves a
/// partition only while it holds that partition's lease. Nobody grants leases on a process's
/// behalf: a process claims a partition itself, with ``claim(_:)``, in one transaction that
/// locks the partition's row (`SELECT … FOR UPDATE`). The claim is granted if the row is free,
/// expired, or already the claimer's; each grant increments the row's epoch and returns it.
/// The holder keeps its lease with ``renew(_:)`` (well before `leaseTime` passes, every third of
/// it say) and gives it up with ``release(_:)``.
///
/// Expiry is measured on the database's clock only (`clock_timestamp()`), never on a
/// process's: a process whose clock runs ahead or behind loses availability (it claims late, or
/// believes its lease lost early), never safety. Safety rests on the epoch, not on time: bind
/// each log of the partition to its lease (the `fencedBy` argument of
/// ``PostgresActionLogDatabase/recover(log:program:schemaVersion:redactsSecrets:initialState:reducer:committer:fencedBy:)``),
/// and every round's transaction locks the lease's row (`FOR SHARE`) and writes the log's lines
/// only if the row still names the same holder and epoch. A claimer's `FOR UPDATE` waits for
/// those rounds, then increments the epoch: once it is granted, nothing of the previous holder
/// commits.
///
/// ## Table
///
/// `unidirectional_partition_leases`, created if missing:
///
/// | Column | Holds |
/// | --- | --- |
/// | `partition integer` (key) | the partition |
/// | `holder text` | the holding process's name, `NULL` when released |
/// | `epoch bigint` | the fencing token: incremented by every grant, never decreased |
/// | `expires_at timestamptz` | the end of the lease on the database's clock, `NULL` when released |
///
/// `unidirectional_shards`, created if missing, says where each holder serves (see
/// ``announce(address:)`` and ``owner(of:)``):
///
/// | Column | Holds |
/// | --- | --- |
/// | `holder text` (key) | the holder's name, as in the lease table |
/// | `address text` | where clients reach it, `HOST:PORT` |
/// | `expires_at timestamptz` | the end of its announcement on the database's clock |
public final class PartitionLeases: @unchecked Sendable {
  // Safe: `connection` and `isLobby` are read and written only with `lock` held; everything
  // else is immutable.

  /// A lease granted to this process.
  public struct Lease: Sendable, Hashable, CustomStringConvertible {
    /// The partition leased.
    public let partition: Int
    /// The holder's name, as given to ``PartitionLeases/init(connectionString:holder:leaseTime:answerTimeout:)``.
    public let holder: String
    /// The fencing token of this grant: greater than every earlier grant's of the partition.
    public let epoch: Int64
    /// An instant on this process's clock before which the lease has surely not expired on the
    /// database's: when the claim or renewal was sent, plus the lease time. Stop serving the
    /// partition's games by then unless a renewal succeeded (the database's clock decides;
    /// this only errs early, as long as the two clocks run at about the same rate).
    public let validUntil: ContinuousClock.Instant

    init(
      partition: Int, holder: String, epoch: Int64, validUntil: ContinuousClock.Instant
    ) {
      self.partition = partition
      self.holder = holder
      self.epoch = epoch
      self.validUntil = validUntil
    }

    /// `partition 3 (epoch 7, shard-a)`.
    public var description: String {
      "partition \(partition) (epoch \(epoch), \(holder))"
    }
  }

  /// The answer to a claim.
  public enum Claim: Sendable, Hashable {
    /// The lease is this process's, with a new epoch.
    case granted(Lease)
    /// Another process holds an unexpired lease: its name and epoch, and how long its lease
    /// runs on, on the database's clock.
    case held(by: String, epoch: Int64, expiresIn: Duration)
  }

  /// Why a lease operation failed.
  public struct Failure: Error, Sendable, CustomStringConvertible {
    /// The server's or libpq's message.
    public let message: String
    /// Whether trying again later may succeed (the database away, a passing refusal).
    public let isTransient: Bool

    /// Creates a failure: what the pairing given to
    /// ``PartitionLeases/join(partition:session:name:waitingAs:pair:)`` throws to roll its
    /// transaction back.
    ///
    /// - Parameters:
    ///   - message: What failed.
    ///   - isTransient: Whether trying again later may succeed.
    public init(message: String, isTransient: Bool) {
      self.message = message
      self.isTransient = isTransient
    }

    /// The message, and whether it may pass.
    public var description: String {
      "partition leases: \(message)" + (isTransient ? " (may pass: try again later)" : "")
    }
  }

  /// The holder's name in the table.
  public let holder: String
  /// How long a grant or a renewal lasts, on the database's clock.
  public let leaseTime: Duration

  private let lock = NSLock()
  private var connection: PostgresConnection?
  /// Set by ``openLobby()``: each connection of this object commits without waiting for the
  /// WAL's flush (`synchronous_commit` off).
  var isLobby = false
  private let connectionString: String
  private let answerTimeout: Duration

  /// Connects to the database, and creates the lease table if it is missing.
  ///
  /// - Parameters:
  ///   - connectionString: A libpq connection string, as for ``PostgresActionLogDatabase``.
  ///   - holder: This process's name in the table. Not empty, no NUL. A name that includes
  ///     something of this run (a process id, a start time) makes the table easier to read;
  ///     safety does not depend on it, since even a claim of one's own lease is a new grant.
  ///   - leaseTime: How long a grant or a renewal lasts, on the database's clock: the time a
  ///     partition stays unserved after its holder dies.
  ///   - answerTimeout: How long a statement waits for the server's answer.
  /// - Throws: ``Failure`` if the database cannot be reached or the table cannot be created.
  public init(
    connectionString: String, holder: String, leaseTime: Duration,
    answerTimeout: Duration = .seconds(10)
  ) throws(Failure) {
    precondition(
      !holder.isEmpty && !holder.utf8.contains(0), "PartitionLeases: a holder's name is not empty")
    precondition(leaseTime > .zero, "PartitionLeases: the lease time is positive")
    self.holder = holder
    self.leaseTime = leaseTime
    self.connectionString = connectionString
    self.answerTimeout = answerTimeout
    try withConnection { connection throws(PostgresConnection.Failure) in
      try PostgresActionLogDatabase.createTables([Self.schema, Self.shardSchema], on: connection)
    }
  }

  /// The statement that creates the lease table (idempotent).
  static let schema = """
    CREATE TABLE IF NOT EXISTS unidirectional_partition_leases (
      partition integer PRIMARY KEY CHECK (partition >= 0),
      holder text,
      epoch bigint NOT NULL DEFAULT 0,
      expires_at timestamptz)
    """

  /// The partition of the game `id`: the 32-bit FNV-1a hash of its UTF-8 bytes (offset basis
  /// 2166136261, prime 16777619), modulo `partitionCount`.
  ///
  /// Stable across processes, runs and platforms (it depends on the bytes only, unlike
  /// `Hasher`, which is seeded per process): every shard computes the same partition for a
  /// game. Changing `partitionCount` moves most games; keep it fixed for a cluster's life (many
  /// partitions, a few per shard, let shards come and go without it).
  public static func partition(ofGame id: String, partitionCount: Int) -> Int {
    precondition(partitionCount > 0, "PartitionLeases: the partition count is positive")
    var hash: UInt32 = 2_166_136_261
    for byte in id.utf8 {
      hash ^= UInt32(byte)
      hash = hash &* 16_777_619
    }
    return Int(hash % UInt32(partitionCount))
  }

  /// Claims `partition`: granted, with the next epoch, if the partition is free, its lease
  /// expired on the database's clock, or it is already this holder's (a new grant too, which
  /// fences this holder's own earlier appends: keep a lease with ``renew(_:)``).
  ///
  /// One transaction: the row is created if missing, locked with `SELECT … FOR UPDATE` (which
  /// waits for the rounds writing under the current epoch to end), and updated if the claim
  /// is granted. Recover the partition's logs only after the claim returned: they then hold
  /// every line the previous holder committed.
  ///
  /// - Returns: The lease, or who holds the partition.
  /// - Throws: ``Failure`` if the database cannot be reached or refuses.
  public func claim(_ partition: Int) throws(Failure) -> Claim {
    precondition(partition >= 0, "PartitionLeases: a partition is not negative")
    let sent = ContinuousClock.now
    return try withConnection { connection throws(PostgresConnection.Failure) -> Claim in
      _ = try connection.execute("BEGIN")
      do throws(PostgresConnection.Failure) {
        // A row locked by a paused holder's round waits for its session's end: the claim
        // gives up sooner and is tried again at a later round, so that the claimer's lease
        // thread keeps renewing its own leases meanwhile.
        let waitMilliseconds = max(1, Self.microseconds(leaseTime) / 4000)
        _ = try connection.execute("SET LOCAL lock_timeout TO \(waitMilliseconds)")
        let key = PostgresConnection.Parameter.text(String(partition))
        _ = try connection.execute(
          "INSERT INTO unidirectional_partition_leases (partition) VALUES ($1) "
            + "ON CONFLICT (partition) DO NOTHING", [key])
        _ = try connection.execute(
          "SELECT epoch FROM unidirectional_partition_leases WHERE partition = $1 FOR UPDATE",
          [key])
        // The row is ours until COMMIT: expiry is read on the database's clock now, after any
        // wait for the lock.
        let granted = try connection.execute(
          """
          UPDATE unidirectional_partition_leases
          SET holder = $2, epoch = epoch + 1,
            expires_at = clock_timestamp() + $3::bigint * interval '1 microsecond'
          WHERE partition = $1
            AND (holder IS NULL OR holder = $2 OR expires_at IS NULL
              OR expires_at <= clock_timestamp())
          RETURNING epoch::text
          """,
          [key, .text(holder), .text(String(Self.microseconds(leaseTime)))])
        let claim: Claim
        if let epoch = granted.rows.first?[0].flatMap(Self.integer) {
          claim = .granted(
            Lease(
              partition: partition, holder: holder, epoch: epoch, validUntil: sent + leaseTime))
        } else {
          let held = try connection.execute(
            """
            SELECT holder, epoch::text,
              (extract(epoch FROM expires_at - clock_timestamp()) * 1000000)::bigint::text
            FROM unidirectional_partition_leases WHERE partition = $1
            """, [key])
          let row = held.rows.first ?? []
          claim = .held(
            by: row.first.flatMap { $0 }.map { String(decoding: $0, as: UTF8.self) } ?? "",
            epoch: row.count > 1 ? row[1].flatMap(Self.integer) ?? 0 : 0,
            expiresIn: .microseconds(row.count > 2 ? row[2].flatMap(Self.integer) ?? 0 : 0))
        }
        let commit = try connection.execute("COMMIT")
        guard commit.commandStatus == "COMMIT" else {
          throw PostgresConnection.Failure(
            message: "the claim's transaction was rolled back (\(commit.commandStatus))",
            isConnectionLost: false, sqlState: "40000")
        }
        return claim
      } catch {
        if !error.isConnectionLost { _ = try? connection.execute("ROLLBACK") }
        throw error
      }
    }
  }

  /// Extends `lease` by the lease time from now on the database's clock, if the partition's row
  /// still names its holder and epoch (so no other grant happened since, even if the lease
  /// expired meanwhile).
  ///
  /// - Returns: The renewed lease (a later ``Lease/validUntil``), or `nil` if the lease is
  ///   lost: stop serving the partition's games; its logs are fenced already.
  /// - Throws: ``Failure`` if the database cannot be reached or refuses: the lease may still be
  ///   held; stop serving at ``Lease/validUntil`` unless a later renewal succeeds.
  public func renew(_ lease: Lease) throws(Failure) -> Lease? {
    let sent = ContinuousClock.now
    return try withConnection { connection throws(PostgresConnection.Failure) -> Lease? in
      let renewed = try connection.execute(
        """
        UPDATE unidirectional_partition_leases
        SET expires_at = clock_timestamp() + $4::bigint * interval '1 microsecond'
        WHERE partition = $1 AND holder = $2 AND epoch = $3
        """,
        [
          .text(String(lease.partition)), .text(lease.holder), .text(String(lease.epoch)),
          .text(String(Self.microseconds(leaseTime))),
        ])
      guard renewed.affectedRows == 1 else { return nil }
      return Lease(
        partition: lease.partition, holder: lease.holder, epoch: lease.epoch,
        validUntil: sent + leaseTime)
    }
  }

  /// Gives `lease` up at once, if its holder and epoch still hold it, so that another process
  /// may claim the partition without waiting for it to expire. The epoch stays: the next grant
  /// increments it, and the logs bound to this lease are fenced from now on.
  ///
  /// - Returns: Whether the lease was still held (and is now released).
  /// - Throws: ``Failure`` if the database cannot be reached or refuses.
  @discardableResult
  public func release(_ lease: Lease) throws(Failure) -> Bool {
    try withConnection { connection throws(PostgresConnection.Failure) -> Bool in
      let released = try connection.execute(
        """
        UPDATE unidirectional_partition_leases SET holder = NULL, expires_at = NULL
        WHERE partition = $1 AND holder = $2 AND epoch = $3
        """,
        [.text(String(lease.partition)), .text(lease.holder), .text(String(lease.epoch))])
      return released.affectedRows == 1
    }
  }

  /// Runs `body` on the connection, with the lock held, connecting first if there is none; a
  /// connection found lost is dropped, for the next call to connect again.
  func withConnection<T>(
    _ body: (PostgresConnection) throws(PostgresConnection.Failure) -> T
  ) throws(Failure) -> T {
    lock.lock()
    defer { lock.unlock() }
    do throws(PostgresConnection.Failure) {
      if connection?.isConnected != true {
        connection = nil
        // A claim or renewal never sits in its transaction: a paused process's session is
        // ended after half a lease, so that the row it locked is free for the next claimer.
        let fresh = try PostgresActionLogDatabase.connect(
          connectionString, answerTimeout: answerTimeout, idleInTransactionTimeout: leaseTime / 2)
        if isLobby { _ = try fresh.execute("SET synchronous_commit TO off") }
        connection = fresh
      }
      guard let connection else {
        throw PostgresConnection.Failure(message: "no connection", isConnectionLost: true)
      }
      return try body(connection)
    } catch {
      if error.isConnectionLost { connection = nil }
      throw Failure(
        message: PostgresActionLogDatabase.firstLine(error.message),
        isTransient: error.isTransient)
    }
  }

  static func microseconds(_ duration: Duration) -> Int64 {
    duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000
  }

  static func integer(_ text: Data) -> Int64? {
    Int64(String(decoding: text, as: UTF8.self))
  }
}
