import Foundation
import Unidirectional

extension PostgresActionLogDatabase {
  /// Stages the lines of `log` for the round's transaction, numbering them after the last line
  /// staged or committed (the header is sequence 0).
  func stage(_ lines: Data, log: String, generation: Int) {
    withState { state in
      // A fenced or closed log writes nothing more.
      guard var entry = state.logs[log], entry.generation == generation, entry.fenced == nil
      else { return }
      var next = entry.committedThrough + 1 + entry.staged.count
      for line in lines.split(separator: 0x0A) {
        entry.staged.append((next, Data(line)))
        next += 1
      }
      state.logs[log] = entry
    }
  }

  /// Makes `log`'s staged lines durable: returns the outcome of the commit that included them,
  /// committing every log's staged lines now if none did yet.
  func flush(log: String, generation: Int) throws(ActionLogError) {
    let closed = withState { state -> ActionLogError? in
      guard state.logs[log]?.generation != generation else { return nil }
      if let closed = state.closed[log], closed.generation == generation { return closed.error }
      return Self.closedError(log, "its sink outlived it")
    }
    if let closed { throw closed }
    let hook = withState { state -> (() -> Void)? in
      guard let hook = state.beforeRound, let entry = state.logs[log], entry.outcome == nil,
        !entry.staged.isEmpty
      else { return nil }
      let staged = state.logs.filter { !$0.value.staged.isEmpty }.map(\.key).sorted()
      return { hook(staged) }
    }
    hook?()
    waitForNextAttempt(log: log)
    let outcome = withState { state -> ActionLogError? in
      // Closed (or closed and opened again) while this flush waited without the lock: its
      // lines were dropped with the log, so nothing of them is acknowledged.
      guard let entry = state.logs[log], entry.generation == generation else {
        if let closed = state.closed[log], closed.generation == generation { return closed.error }
        return Self.closedError(log, "it was closed while its round waited")
      }
      if let fenced = entry.fenced {
        // Fenced in this round (by another log's flush) or an earlier one: for good.
        state.logs[log]?.staged = []
        state.logs[log]?.outcome = nil
        return fenced
      }
      if entry.outcome == nil {
        guard !entry.staged.isEmpty else { return nil }
        commitStaged(in: &state)
      }
      defer { state.logs[log]?.outcome = nil }
      return state.logs[log]?.outcome ?? nil
    }
    if let outcome { throw outcome }
  }

  /// If this flush is the one to commit `log`'s lines and the database is down, waits until
  /// the next connection attempt is due: on the committer's thread (the round waits, as it would
  /// for a slow disk), without the lock, so that `commitCount` and `isUnavailable` answer.
  private func waitForNextAttempt(log: String) {
    let wait = withState { state -> Duration in
      guard state.isDown, let entry = state.logs[log], entry.outcome == nil,
        !entry.staged.isEmpty
      else { return .zero }
      return state.nextAttempt - ContinuousClock.now
    }
    guard wait > .zero else { return }
    Thread.sleep(
      forTimeInterval: Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18)
  }

  /// Forgets a log whose sink is gone (unless the name was opened again since).
  func forget(log: String, generation: Int) {
    withState { state in
      if state.logs[log]?.generation == generation { state.logs[log] = nil }
      if state.closed[log]?.generation == generation { state.closed[log] = nil }
    }
  }

  /// Commits the staged lines of every log in one transaction, and records each log's outcome.
  /// A log whose key holds other bytes is refused alone, and the others committed without it.
  private func commitStaged(in state: inout State) {
    var names = state.logs.filter { !$0.value.staged.isEmpty && $0.value.fenced == nil }
      .map(\.key).sorted()
    // A connection made before this round may have died meanwhile (a database restarted while
    // the server was idle): its loss is learnt only now, so the round is tried once more on a
    // new connection before it fails.
    var mayRetryOnANewConnection = state.connection != nil
    while !names.isEmpty {
      let outcome = commitOnce(names, in: &state)
      if case .failed(_, let lostConnection) = outcome, lostConnection, mayRetryOnANewConnection {
        mayRetryOnANewConnection = false
        state.connection = nil
        state.nextAttempt = ContinuousClock.now
        continue
      }
      switch outcome {
      case .committed(let fenced):
        markUp(&state)
        for (name, error) in fenced {
          // Nothing of it was written, nor ever will be.
          state.logs[name]?.staged = []
          state.logs[name]?.fenced = error
          state.logs[name]?.outcome = .some(error)
        }
        names.removeAll { fenced[$0] != nil }
        if !names.isEmpty { state.commits += 1 }
        for name in names {
          guard let last = state.logs[name]?.staged.last?.sequence else { continue }
          state.logs[name]?.committedThrough = last
          state.logs[name]?.staged = []
          state.logs[name]?.outcome = .some(nil)
        }
        return
      case .conflict(let name, let error):
        state.logs[name]?.staged = []
        state.logs[name]?.outcome = .some(error)
        names.removeAll { $0 == name }
      case .failed(let error, _):
        for name in names {
          // Nothing of the round is kept: the logs hand their lines again (unavailable), or
          // have stopped.
          state.logs[name]?.staged = []
          state.logs[name]?.outcome = .some(error)
        }
        return
      }
    }
  }

  private enum CommitOutcome {
    /// Committed, with the lines of every log but those in `fenced`, whose lease was granted
    /// to another.
    case committed(fenced: [String: ActionLogError])
    case conflict(String, ActionLogError)
    /// The round failed; `lostConnection` if the connection is gone.
    case failed(ActionLogError, lostConnection: Bool)
  }

  private func commitOnce(_ names: [String], in state: inout State) -> CommitOutcome {
    let connection: PostgresConnection
    do throws(ActionLogError) {
      connection = try self.connection(in: &state)
    } catch {
      return .failed(error, lostConnection: false)
    }
    do throws(PostgresConnection.Failure) {
      _ = try connection.execute("BEGIN")
      let fenced = state.checksFences ? try brokenFences(names, in: state, on: connection) : [:]
      state.afterFenceCheck?(names)
      for name in names where fenced[name] == nil {
        let staged = state.logs[name]?.staged ?? []
        if let conflict = try insert(staged, log: name, on: connection) {
          _ = try? connection.execute("ROLLBACK")
          return .conflict(name, conflict)
        }
      }
      let commit = try connection.execute("COMMIT")
      guard commit.commandStatus == "COMMIT" else {
        return .failed(
          ActionLogError(
            path: names.joined(separator: ", "), line: nil,
            reason: .unavailable("the transaction was rolled back (\(commit.commandStatus))")),
          lostConnection: false)
      }
      return .committed(fenced: fenced)
    } catch {
      if !error.isConnectionLost { _ = try? connection.execute("ROLLBACK") }
      // Whatever passes (a lost connection, a full disk, a standby) is retried after the
      // backoff, never at once: the log hands the lines again as soon as the round fails.
      if error.isTransient {
        markDown(&state, because: error.message, dropping: error.isConnectionLost)
      }
      return .failed(
        Self.error(error, log: names.joined(separator: ", ")),
        lostConnection: error.isConnectionLost)
    }
  }

  /// The fenced logs among `names` whose lease's row no longer names their holder and epoch,
  /// each with the error its waiters receive.
  ///
  /// The rows stay locked (`FOR SHARE`) until the round's transaction ends: a claimer's
  /// `SELECT … FOR UPDATE` waits for it, so no grant comes between this check and the
  /// round's `COMMIT`. Rounds do not block each other (shared locks), and each claim locks one
  /// row, so no lock order can deadlock.
  private func brokenFences(
    _ names: [String], in state: State, on connection: PostgresConnection
  ) throws(PostgresConnection.Failure) -> [String: ActionLogError] {
    let fences = names.compactMap { name in state.logs[name]?.fence.map { (name, $0) } }
    guard !fences.isEmpty else { return [:] }
    let partitions = Set(fences.map(\.1.partition)).sorted()
    let rows = try connection.execute(
      "SELECT partition::text, epoch::text, holder FROM unidirectional_partition_leases "
        + "WHERE partition = ANY($1::integer[]) "
        + "ORDER BY unidirectional_partition_leases.partition FOR SHARE",
      [.text("{" + partitions.map(String.init).joined(separator: ",") + "}")])
    var leases: [Int: (epoch: Int, holder: String?)] = [:]
    for row in rows.rows {
      guard let partition = row[0].flatMap(Self.integer), let epoch = row[1].flatMap(Self.integer)
      else { continue }
      leases[partition] = (epoch, row[2].map { String(decoding: $0, as: UTF8.self) })
    }
    var broken: [String: ActionLogError] = [:]
    for (name, fence) in fences {
      let current = leases[fence.partition]
      if let current, current.epoch == fence.epoch, current.holder == fence.holder { continue }
      let now =
        current.map { "is at epoch \($0.epoch), held by \($0.holder ?? "nobody (released)")" }
        ?? "has no row in unidirectional_partition_leases"
      broken[name] = ActionLogError(
        path: name, line: nil,
        reason: .fenced(
          "partition \(fence.partition)'s lease \(now); this log writes under epoch "
            + "\(fence.epoch) as \(fence.holder)"))
    }
    return broken
  }

  /// Inserts `staged`, skipping rows already there; returns an error if one of those holds
  /// other bytes (another writer of the same log).
  private func insert(
    _ staged: [(sequence: Int, line: Data)], log: String, on connection: PostgresConnection
  ) throws(PostgresConnection.Failure) -> ActionLogError? {
    // Chunks keep each statement far below PostgreSQL's 65,535 parameters.
    for start in stride(from: 0, to: staged.count, by: 500) {
      let chunk = staged[start..<min(start + 500, staged.count)]
      var parameters: [PostgresConnection.Parameter] = [.text(log)]
      var rows: [String] = []
      for (sequence, line) in chunk {
        // Placeholders only: the values travel as parameters.
        rows.append("($1, $\(parameters.count + 1), $\(parameters.count + 2))")
        parameters.append(.text(String(sequence)))
        parameters.append(.binary(line))
      }
      let inserted = try connection.execute(
        "INSERT INTO unidirectional_log_lines (log, sequence, line) VALUES "
          + rows.joined(separator: ", ") + " ON CONFLICT DO NOTHING RETURNING sequence",
        parameters)
      guard inserted.rows.count < chunk.count else { continue }
      let returned = Set(inserted.rows.compactMap { row in row[0].flatMap(Self.integer) })
      let skipped = chunk.filter { !returned.contains($0.sequence) }
      let held = try connection.execute(
        "SELECT sequence::text, line FROM unidirectional_log_lines "
          + "WHERE log = $1 AND sequence = ANY($2::bigint[])",
        [
          .text(log),
          .text("{" + skipped.map { String($0.sequence) }.joined(separator: ",") + "}"),
        ],
        binaryResults: true)
      var bytes: [Int: Data] = [:]
      for row in held.rows {
        guard let sequence = row[0].flatMap(Self.integer) else { continue }
        bytes[sequence] = row[1]
      }
      for (sequence, line) in skipped where bytes[sequence] != line {
        return ActionLogError(
          path: log, line: sequence + 1,
          reason: .fileError(
            "PostgreSQL holds other bytes for sequence \(sequence) of this log: another "
              + "process writes the same log; this one stops rather than mix two histories"))
      }
    }
    return nil
  }

  /// An integer column's value in text form (`bigint` cast to `text`, or a text result).
  static func integer(_ text: Data) -> Int? {
    Int(String(decoding: text, as: UTF8.self))
  }
}
