import Foundation

// Who holds a partition, read without claiming it, and where each holder serves: what a shard
// needs to redirect a client, and to share the partitions with the other live shards.

extension PartitionLeases {
  /// The holder of an unexpired lease, as the table says now.
  public struct Owner: Sendable, Hashable {
    /// The holder's name.
    public let holder: String
    /// The epoch of its grant.
    public let epoch: Int64
    /// Where it serves (`HOST:PORT`), if it announced itself (``announce(address:)``) and the
    /// announcement has not expired.
    public let address: String?
  }

  /// The partitions of a cluster as the tables say now, on the database's clock.
  public struct Survey: Sendable, Hashable {
    /// The holder of each partition whose lease is unexpired; a partition not here is free
    /// (never claimed, released, or expired) and may be claimed.
    public let owners: [Int: Owner]
    /// The holders whose announcement is unexpired, this one included if it announced itself.
    public let liveHolders: Set<String>
  }

  /// The statement that creates the table of announcements (idempotent).
  static let shardSchema = """
    CREATE TABLE IF NOT EXISTS unidirectional_shards (
      holder text PRIMARY KEY,
      address text NOT NULL,
      expires_at timestamptz NOT NULL)
    """

  /// Says where this holder serves, for the lease time from now on the database's clock:
  /// clients of the partitions it holds are redirected to `address`, and the other holders
  /// count it among the live ones when they share the partitions. Announce again as often as
  /// you renew.
  ///
  /// - Parameter address: `HOST:PORT`, as clients reach this holder.
  /// - Throws: ``Failure`` if the database cannot be reached or refuses.
  public func announce(address: String) throws(Failure) {
    try withConnection { connection throws(PostgresConnection.Failure) in
      _ = try connection.execute(
        """
        INSERT INTO unidirectional_shards (holder, address, expires_at)
        VALUES ($1, $2, clock_timestamp() + $3::bigint * interval '1 microsecond')
        ON CONFLICT (holder) DO UPDATE SET address = EXCLUDED.address,
          expires_at = EXCLUDED.expires_at
        """,
        [.text(holder), .text(address), .text(String(Self.microseconds(leaseTime)))])
    }
  }

  /// Withdraws this holder's announcement (at a clean stop): the others stop counting it at
  /// once.
  ///
  /// - Throws: ``Failure`` if the database cannot be reached or refuses.
  public func withdraw() throws(Failure) {
    try withConnection { connection throws(PostgresConnection.Failure) in
      _ = try connection.execute(
        "DELETE FROM unidirectional_shards WHERE holder = $1", [.text(holder)])
    }
  }

  /// Who holds `partition` now, without claiming it: `nil` if nobody holds an unexpired lease
  /// on it (try again shortly: a live holder claims it within its renewal period).
  ///
  /// A read, so possibly stale as soon as it returns: a redirect to the owner read here may
  /// meet a holder that lost the partition since, which answers the same way (a redirect
  /// again, or no owner yet). It never decides who writes: the epoch does.
  ///
  /// - Throws: ``Failure`` if the database cannot be reached or refuses.
  public func owner(of partition: Int) throws(Failure) -> Owner? {
    try survey(partitions: [partition]).owners[partition]
  }

  /// The owners of `partitions` (every partition in the table if `nil` or empty) and the live holders,
  /// read in one statement each on the database's clock.
  ///
  /// - Throws: ``Failure`` if the database cannot be reached or refuses.
  public func survey(partitions: [Int]? = nil) throws(Failure) -> Survey {
    try withConnection { connection throws(PostgresConnection.Failure) -> Survey in
      let filter =
        partitions.map { "{" + $0.map(String.init).joined(separator: ",") + "}" } ?? "{}"
      let leases = try connection.execute(
        """
        SELECT l.partition::text, l.holder, l.epoch::text, s.address
        FROM unidirectional_partition_leases l
        LEFT JOIN unidirectional_shards s
          ON s.holder = l.holder AND s.expires_at > clock_timestamp()
        WHERE l.holder IS NOT NULL AND l.expires_at > clock_timestamp()
          AND (cardinality($1::integer[]) = 0 OR l.partition = ANY($1::integer[]))
        """, [.text(filter)])
      var owners: [Int: Owner] = [:]
      for row in leases.rows {
        guard let partition = row[0].flatMap(Self.integer), let holder = row[1],
          let epoch = row[2].flatMap(Self.integer)
        else { continue }
        owners[Int(partition)] = Owner(
          holder: String(decoding: holder, as: UTF8.self), epoch: epoch,
          address: row[3].map { String(decoding: $0, as: UTF8.self) })
      }
      let shards = try connection.execute(
        "SELECT holder FROM unidirectional_shards WHERE expires_at > clock_timestamp()")
      let live = Set(
        shards.rows.compactMap { row in row[0].map { String(decoding: $0, as: UTF8.self) } })
      return Survey(owners: owners, liveHolders: live)
    }
  }
}
