import Foundation
import Unidirectional

extension PostgresActionLogDatabase {
  /// Stages the lines of `log` for the round's transaction, numbering them after the last line
  /// staged or committed (the header is sequence 0).
  func stage(_ lines: Data, log: String) {
    withState { state in
      guard var entry = state.logs[log] else { return }
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
  func flush(log: String) throws(ActionLogError) {
    waitForNextAttempt(log: log)
    let outcome = withState { state -> ActionLogError? in
      guard let entry = state.logs[log] else { return nil }
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

  /// Forgets a log whose sink is gone.
  func forget(log: String) {
    withState { state in state.logs[log] = nil }
  }

  /// Commits the staged lines of every log in one transaction, and records each log's outcome.
  /// A log whose key holds other bytes is refused alone, and the others committed without it.
  private func commitStaged(in state: inout State) {
    var names = state.logs.filter { !$0.value.staged.isEmpty }.map(\.key).sorted()
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
      case .committed:
        state.commits += 1
        markUp(&state)
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
    case committed
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
      for name in names {
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
      return .committed
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
