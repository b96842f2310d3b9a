import Foundation

@testable import PostgresActionLog

/// The lease history and, for each committed line of a partition's journal, who wrote it under
/// which lease: kept by triggers the tests install, so that "no append of a fenced holder
/// committed" is read from the database, not taken from the shards' word.
///
/// Each shard process connects with its own `application_name` (``connectionString(for:)``):
/// a grant (a new epoch of a lease row) records the claimer's, and a line inserted into
/// `tictactoe-pN` records the inserter's with the holder and epoch of partition N's lease row
/// as the inserting transaction sees it. A fenced round locks that row `FOR SHARE` before it
/// inserts, so no grant comes between that reading and its `COMMIT`; a line is then legitimate
/// only if the epoch it was written under was granted to the very process that wrote it.
struct LeaseLedger {
  let connectionString: String

  /// Creates the tables (the log's and the leases', as the shards would) and the triggers.
  init(connectionString: String) throws {
    self.connectionString = connectionString
    let connection = try PostgresConnection(connectionString)
    try PostgresActionLogDatabase.createTables(PostgresActionLogDatabase.schema, on: connection)
    let statements = [
      """
      CREATE TABLE ledger_grants (
        partition integer NOT NULL, epoch bigint NOT NULL, holder text, claimer text NOT NULL,
        at timestamptz NOT NULL DEFAULT clock_timestamp())
      """,
      """
      CREATE TABLE ledger_writes (
        log text NOT NULL, sequence bigint NOT NULL, partition integer NOT NULL,
        writer text NOT NULL, holder text, epoch bigint)
      """,
      """
      CREATE FUNCTION ledger_grant() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' OR NEW.epoch IS DISTINCT FROM OLD.epoch THEN
          INSERT INTO ledger_grants (partition, epoch, holder, claimer)
          VALUES (NEW.partition, NEW.epoch, NEW.holder, current_setting('application_name'));
        END IF;
        RETURN NULL;
      END $$
      """,
      """
      CREATE TRIGGER ledger_grant AFTER INSERT OR UPDATE ON unidirectional_partition_leases
      FOR EACH ROW EXECUTE FUNCTION ledger_grant()
      """,
      """
      CREATE FUNCTION ledger_write() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        p integer := substring(NEW.log FROM '^tictactoe-p([0-9]+)$')::integer;
      BEGIN
        IF p IS NOT NULL THEN
          INSERT INTO ledger_writes (log, sequence, partition, writer, holder, epoch)
          VALUES (NEW.log, NEW.sequence, p, current_setting('application_name'),
            (SELECT holder FROM unidirectional_partition_leases WHERE partition = p),
            (SELECT epoch FROM unidirectional_partition_leases WHERE partition = p));
        END IF;
        RETURN NULL;
      END $$
      """,
      """
      CREATE TRIGGER ledger_write AFTER INSERT ON unidirectional_log_lines
      FOR EACH ROW EXECUTE FUNCTION ledger_write()
      """,
    ]
    for statement in statements { _ = try connection.execute(statement) }
  }

  /// The connection string of one shard process: its own `application_name`, which names it
  /// in the ledger (a restarted shard is another process: give it another).
  func connectionString(for process: String) -> String {
    connectionString + " application_name=\(process)"
  }

  /// Committed lines of partition journals whose writer was not granted the lease epoch it
  /// wrote under (a fenced holder's append), described; at most 20.
  func fencedWrites() throws -> [String] {
    let connection = try PostgresConnection(connectionString)
    return try connection.execute(
      """
      SELECT w.log || ' sequence ' || w.sequence || ' written by ' || w.writer || ' under epoch '
        || coalesce(w.epoch::text, 'none') || ' of ' || coalesce(w.holder, 'nobody')
        || ', granted to ' || coalesce((SELECT string_agg(g.claimer, ', ') FROM ledger_grants g
          WHERE g.partition = w.partition AND g.epoch = w.epoch), 'nobody')
      FROM ledger_writes w
      WHERE NOT EXISTS (SELECT 1 FROM ledger_grants g WHERE g.partition = w.partition
        AND g.epoch = w.epoch AND g.claimer = w.writer)
      ORDER BY w.log, w.sequence LIMIT 20
      """
    ).rows.map { String(decoding: $0[0] ?? Data(), as: UTF8.self) }
  }

  /// How many lines the partitions' journals hold, and how many the ledger saw written: equal
  /// unless a line escaped the trigger.
  func lineCounts() throws -> (lines: Int, ledger: Int) {
    let connection = try PostgresConnection(connectionString)
    let row = try connection.execute(
      """
      SELECT (SELECT count(*) FROM unidirectional_log_lines
          WHERE log ~ '^tictactoe-p[0-9]+$')::text,
        (SELECT count(*) FROM ledger_writes)::text
      """
    ).rows.first
    return (
      row?[0].flatMap(PostgresActionLogDatabase.integer) ?? -1,
      row?[1].flatMap(PostgresActionLogDatabase.integer) ?? -1
    )
  }

  /// The names of the partition journals in the database.
  func journals() throws -> [String] {
    let connection = try PostgresConnection(connectionString)
    return try connection.execute(
      "SELECT DISTINCT log FROM unidirectional_log_lines WHERE log ~ '^tictactoe-p[0-9]+$' "
        + "ORDER BY log"
    ).rows.map { String(decoding: $0[0] ?? Data(), as: UTF8.self) }
  }
}
