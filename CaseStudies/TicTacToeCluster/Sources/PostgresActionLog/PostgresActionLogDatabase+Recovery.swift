import Foundation
import Unidirectional

extension PostgresActionLogDatabase {
  /// Recovers the log `name` from the database (its latest snapshot, then the lines after it),
  /// or starts it if the database holds nothing for it, and continues it here.
  ///
  /// Give the store `recovery.state` and the log's interceptor, with this database's snapshot
  /// writer (``snapshotWriter(forLog:)``):
  ///
  /// ```swift
  /// let recovery = try database.recover(
  ///   log: "journal", program: "game-server", initialState: Journal.State(),
  ///   reducer: Journal(), committer: committer)
  /// let store = Store(
  ///   initialState: recovery.state, reducer: Journal(),
  ///   interceptors: [
  ///     recovery.log.interceptor(
  ///       snapshottingEvery: 1000, with: database.snapshotWriter(forLog: "journal"))
  ///   ])
  /// ```
  ///
  /// - Parameters:
  ///   - name: The log's key in the tables; one process opens a log once.
  ///   - program: The program's name, which must be the one in the log's header.
  ///   - schemaVersion: The newest version of the actions' encoding this program decodes.
  ///   - redactsSecrets: Whether the log writes ``Secret`` payloads redacted.
  ///   - initialState: The state the store starts from when there is no snapshot.
  ///   - reducer: The store's reducer; it must be deterministic.
  ///   - committer: The thread that commits the log (one for the process; with
  ///     `concurrentFlushes: 1`, since one transaction covers every log of a round anyway).
  ///   - lease: The lease the log is written under (from ``PartitionLeases/claim(_:)``), or
  ///     `nil` for a log that is not fenced. Claim before recovering: the log then holds every
  ///     line the partition's previous holder committed. Each round writes the log's lines only
  ///     if the lease's row still names this holder and epoch; once it does not, the log fails
  ///     with ``ActionLogError/Reason/fenced(_:)`` (its waiters, then its
  ///     ``DurableActionLog/failure``) and writes nothing more: drop what it serves, and let the
  ///     new holder recover it.
  /// - Returns: The recovered state and the log, continued after its last line.
  /// - Throws: ``ActionLogError``: `unavailable` if the database cannot be reached; what
  ///   ``DurableActionLog/recover(header:snapshot:entries:continuingIn:name:program:schemaVersion:redactsSecrets:initialState:reducer:committer:)``
  ///   throws for a log that does not verify; `sequenceGap` if a line is missing; `fileError`
  ///   if this process has the log open already.
  public func recover<R: Reducer>(
    log name: String, program: String, schemaVersion: Int = 1, redactsSecrets: Bool = true,
    initialState: R.State, reducer: R, committer: ActionLogCommitter,
    fencedBy lease: PartitionLeases.Lease? = nil
  ) throws(ActionLogError) -> ActionLogRecovery<R.State, R.Action>
  where R.Action: Codable & Sendable, R.State: Codable & Sendable {
    guard !name.isEmpty, !name.utf8.contains(0) else {
      throw ActionLogError(
        path: name, line: nil, reason: .fileError("a log's name is not empty and holds no NUL"))
    }
    let (rows, generation) = try withState {
      state throws(ActionLogError) -> (StoredLog, Int) in
      guard state.logs[name] == nil else {
        throw ActionLogError(
          path: name, line: nil, reason: .fileError("this process has the log open already"))
      }
      let connection = try self.connection(in: &state)
      do throws(PostgresConnection.Failure) {
        let rows = try StoredLog.read(name, on: connection)
        let generation = state.nextGeneration
        state.nextGeneration += 1
        state.logs[name] = LogState(
          committedThrough: rows.lastSequence, fence: lease, generation: generation)
        return (rows, generation)
      } catch {
        if error.isTransient {
          markDown(&state, because: error.message, dropping: error.isConnectionLost)
        }
        throw Self.error(error, log: name)
      }
    }
    do {
      return try DurableActionLog<R.Action>.recover(
        header: rows.header, snapshot: rows.snapshot, entries: rows.entries,
        continuingIn: PostgresActionLogSink(database: self, name: name, generation: generation),
        name: name,
        program: program, schemaVersion: schemaVersion, redactsSecrets: redactsSecrets,
        initialState: initialState, reducer: reducer, committer: committer)
    } catch {
      forget(log: name, generation: generation)
      throw error
    }
  }

  /// Closes the log `name` for good in this process: it writes nothing more (lines staged and
  /// not yet committed are dropped, never acknowledged: their waiters, and every later flush,
  /// fail with ``ActionLogError/Reason/fenced(_:)``), and the name may be opened again with
  /// ``recover(log:program:schemaVersion:redactsSecrets:initialState:reducer:committer:fencedBy:)``.
  ///
  /// A shard closes the logs of a partition it stops serving (its lease lost, or given up), so
  /// that a later lease on it recovers them afresh from what the database holds. A round under
  /// way finishes first (this waits for the database's lock).
  ///
  /// - Parameters:
  ///   - name: The log's key in the tables.
  ///   - why: Why, for the error its writers get.
  public func close(log name: String, because why: String) {
    withState { state in
      guard let entry = state.logs.removeValue(forKey: name) else { return }
      state.closed[name] = (entry.generation, Self.closedError(name, why))
    }
  }

  static func closedError(_ name: String, _ why: String) -> ActionLogError {
    ActionLogError(
      path: name, line: nil,
      reason: .fenced("the log was closed in this process (\(why)); it writes nothing more"))
  }

  /// Where the log `name` keeps its snapshots: give it to
  /// `DurableActionLog.interceptor(snapshottingEvery:with:)`. A snapshot replaces the stored
  /// one only if it is newer; one that fails (the database away) is skipped, and recovery
  /// replays a longer tail from the previous one. It is not fenced, and needs not be: a
  /// snapshot is written only after the lines it covers committed, so even a fenced holder's
  /// covers lines the log holds.
  public func snapshotWriter(
    forLog name: String
  ) -> @Sendable (_ sequence: Int, _ snapshot: Data) throws(ActionLogError) -> Void {
    { [self] (sequence: Int, snapshot: Data) throws(ActionLogError) in
      try withState { state throws(ActionLogError) in
        let connection = try self.connection(in: &state)
        do throws(PostgresConnection.Failure) {
          _ = try connection.execute(
            """
            INSERT INTO unidirectional_log_snapshots (log, sequence, snapshot)
            VALUES ($1, $2, $3)
            ON CONFLICT (log) DO UPDATE SET sequence = EXCLUDED.sequence,
              snapshot = EXCLUDED.snapshot
            WHERE unidirectional_log_snapshots.sequence < EXCLUDED.sequence
            """,
            [.text(name), .text(String(sequence)), .binary(snapshot)])
        } catch {
          if error.isTransient {
            markDown(&state, because: error.message, dropping: error.isConnectionLost)
          }
          throw Self.error(error, log: name)
        }
      }
    }
  }
}

/// What the database holds for one log: its header, latest snapshot and the lines after it.
struct StoredLog {
  var header: Data?
  var snapshot: Data?
  /// The lines after the snapshot's sequence, each with its newline.
  var entries = Data()
  /// The last sequence stored (-1 if not even the header).
  var lastSequence = -1

  static func read(
    _ name: String, on connection: PostgresConnection
  ) throws(PostgresConnection.Failure) -> StoredLog {
    var stored = StoredLog()
    // One snapshot of the database for the three reads.
    _ = try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
    defer { _ = try? connection.execute("COMMIT") }
    let header = try connection.execute(
      "SELECT line FROM unidirectional_log_lines WHERE log = $1 AND sequence = 0", [.text(name)],
      binaryResults: true)
    stored.header = header.rows.first?[0] ?? nil
    if stored.header != nil { stored.lastSequence = 0 }
    let snapshot = try connection.execute(
      "SELECT sequence::text, snapshot FROM unidirectional_log_snapshots WHERE log = $1",
      [.text(name)], binaryResults: true)
    var after = 0
    if let row = snapshot.rows.first,
      let sequence = row[0].flatMap(PostgresActionLogDatabase.integer)
    {
      stored.snapshot = row[1]
      after = sequence
    }
    let lines = try connection.execute(
      "SELECT sequence::text, line FROM unidirectional_log_lines "
        + "WHERE log = $1 AND sequence > $2 ORDER BY unidirectional_log_lines.sequence",
      [.text(name), .text(String(after))], binaryResults: true)
    for row in lines.rows {
      guard let sequence = row[0].flatMap(PostgresActionLogDatabase.integer), let line = row[1]
      else { continue }
      stored.entries.append(line)
      stored.entries.append(0x0A)
      stored.lastSequence = sequence
    }
    if stored.lastSequence < after, stored.snapshot != nil {
      // A snapshot is written only after the lines it covers committed.
      stored.lastSequence = after
    }
    return stored
  }
}
