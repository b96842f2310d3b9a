import Foundation

// The cluster's lobby, shared by its shards: a table of players waiting for an opponent. A
// shard's player who joins takes the oldest waiting player of a live shard, if any, with
// `SELECT … FOR UPDATE SKIP LOCKED` (shards joining at once take different rows, and none waits
// for another's transaction), in the transaction that removes the row or marks it matched;
// otherwise it waits in a row of its own. The waiting player's shard reads the match (the game,
// where it is served, the player's seat token) and sends its player there.

extension PartitionLeases {
  /// A player waiting in the lobby.
  public struct WaitingPlayer: Sendable, Hashable {
    /// The row's number: rows are taken oldest first.
    public let ticket: Int64
    /// The shard it waits on (its holder name).
    public let holder: String
    /// The partition whose game server holds its session, on that shard.
    public let partition: Int
    /// Its session in that game server.
    public let session: Int
    /// Its name.
    public let name: String
  }

  /// What the joining shard did with the waiting player it took.
  public enum Pairing: Sendable, Hashable {
    /// Started a game the waiting player joins on another connection: its shard sends it
    /// `game`'s id, its seat (`side`, `token`) and `address`, where the game is served.
    case elsewhere(game: String, side: String, token: String, address: String, opponent: String)
    /// Started a game in which the waiting player was seated directly (same shard and game
    /// server): the row is deleted.
    case seated
    /// The waiting player is gone (it left its shard's queue meanwhile): the row is deleted and
    /// the next one tried.
    case gone
  }

  /// What ``join(partition:session:name:waitingAs:pair:)`` did.
  public enum JoinOutcome: Sendable, Hashable {
    /// Paired with this waiting player.
    case paired(WaitingPlayer)
    /// Nobody was waiting (or, for a player already waiting, nobody older was free): the player
    /// waits in row `ticket`.
    case waiting(ticket: Int64)
    /// A player already waiting (`waitingAs`) whose row is gone, neither matched nor held by
    /// another join (removed as a dead holder's, or lost with a crash of PostgreSQL): nothing
    /// was done; the caller joins it again as new, once it has read the matches made for it.
    case rowGone(ticket: Int64)
  }

  /// A match made for a player who waited on this shard (see ``takeMatches()``).
  public struct Match: Sendable, Hashable {
    /// The waiting player's row (its ticket): a shard delivers a match only to the player it
    /// knows waits in that row (a session number alone may be another player's, in a game
    /// server that took its partition back since).
    public let ticket: Int64
    /// The partition of the game server that holds its session.
    public let partition: Int
    /// Its session there.
    public let session: Int
    /// The game's id.
    public let game: String
    /// Its side, `X` or `O`.
    public let side: String
    /// Its seat token.
    public let token: String
    /// Where the game is served, `HOST:PORT`.
    public let address: String
    /// Its opponent's name.
    public let opponent: String
  }

  /// How long a pairing may wait, in ``join(partition:session:name:waitingAs:pair:)``'s
  /// transaction, for a game's start to be durable. The transaction sets its session's idle
  /// timeout to more than this (the lobby connection's is half a lease otherwise), so that
  /// PostgreSQL never ends the session, and frees the row, while a start is awaited.
  public static let lobbyStartWait = Duration.seconds(10)

  /// The statement that creates the lobby table (idempotent).
  static let lobbySchema = """
    CREATE TABLE IF NOT EXISTS unidirectional_lobby (
      ticket bigserial PRIMARY KEY,
      holder text NOT NULL,
      partition integer NOT NULL,
      session bigint NOT NULL,
      name text NOT NULL,
      since timestamptz NOT NULL DEFAULT clock_timestamp(),
      game text, side text, token text, address text, opponent text)
    """

  /// Creates the lobby table if it is missing, and removes this holder's rows of an earlier run
  /// (their sessions are gone). From then on this object's connection commits without waiting
  /// for the WAL's flush (`synchronous_commit` off, see ``join(partition:session:name:waitingAs:pair:)``):
  /// use this object for the lobby only, never for leases.
  ///
  /// - Throws: ``Failure`` if the database cannot be reached or refuses.
  public func openLobby() throws(Failure) {
    try withConnection { connection throws(PostgresConnection.Failure) in
      isLobby = true
      _ = try connection.execute("SET synchronous_commit TO off")
      // Under the creators' advisory lock: shards starting together on a new database would
      // otherwise race `CREATE TABLE IF NOT EXISTS` (a CI run of run-cluster.sh lost two).
      try PostgresActionLogDatabase.createTables([Self.lobbySchema], on: connection)
      _ = try connection.execute(
        "DELETE FROM unidirectional_lobby WHERE holder = $1", [.text(holder)])
    }
  }

  /// Pairs a player of this holder who joins: in one transaction, takes the oldest row of a
  /// player waiting on a live holder (an unexpired announcement in `unidirectional_shards`),
  /// skipping rows other transactions hold, and calls `pair` with it, which starts the game and
  /// says how; the row is then marked matched (``Pairing/elsewhere``) or deleted, and the
  /// transaction commits. With nobody waiting, inserts the player's own row.
  ///
  /// `pair` runs inside the transaction, with the row locked: it may wait for the game's start
  /// to be durable. If it throws, the transaction rolls back: the waiting player waits on.
  ///
  /// The transaction commits with `synchronous_commit` off: it does not wait for the WAL's
  /// flush (a join costs a few round trips, not a disk write). A crash of PostgreSQL may then
  /// lose the last lobby changes acknowledged: a waiting row (its player waits on, unmatched,
  /// until it leaves and joins again) or a match (its player is never told: its game waits in
  /// vain, as when the waiting player's shard dies). Never a game's start or a move: those are
  /// the journal's, committed synchronously.
  ///
  /// Two players who join on two shards at once may both find nobody (neither sees the other's
  /// row before it commits) and both wait. So a player who waits is joined again now and then
  /// (`waitingAs` its ticket): its own row locked first (skipped if another shard is pairing
  /// it), it takes only an older row, and its own row is deleted with the pairing. Only the
  /// younger of two waiting players looks for the other, so the two never pair each other twice.
  ///
  /// - Parameters:
  ///   - partition: The partition of the game server that holds the joining session.
  ///   - session: The session.
  ///   - name: Its name.
  ///   - own: The player's ticket if it waits already (a retry), `nil` for a new join.
  ///   - pair: Starts the game with the waiting player given.
  /// - Returns: Whom it was paired with, or its own ticket.
  /// - Throws: ``Failure`` if the database cannot be reached or refuses, or `pair` failed
  ///   (then with `pair`'s message).
  public func join(
    partition: Int, session: Int, name: String, waitingAs own: Int64? = nil,
    pair: (WaitingPlayer) throws(Failure) -> Pairing
  ) throws(Failure) -> JoinOutcome {
    var paired: Failure?
    let outcome = try withConnection {
      connection throws(PostgresConnection.Failure) -> JoinOutcome? in
      if own == nil {
        // One statement for the common cases: the oldest live row, deleted if it is of the
        // same game server (the caller seats both), or the joiner's own row if there is none.
        let rows = try connection.execute(
          """
          WITH taken AS (
            SELECT l.ticket, l.holder, l.partition, l.session, l.name
            FROM unidirectional_lobby l
            JOIN unidirectional_shards s
              ON s.holder = l.holder AND s.expires_at > clock_timestamp()
            WHERE l.game IS NULL
            ORDER BY l.ticket
            LIMIT 1
            FOR UPDATE OF l SKIP LOCKED),
          deleted AS (
            DELETE FROM unidirectional_lobby
            WHERE ticket = (SELECT ticket FROM taken WHERE holder = $1 AND partition = $2::integer)
            RETURNING ticket),
          added AS (
            INSERT INTO unidirectional_lobby (holder, partition, session, name)
            SELECT $1, $2::integer, $3::bigint, $4 WHERE NOT EXISTS (SELECT 1 FROM taken)
            RETURNING ticket)
          SELECT 'taken', t.ticket::text, t.holder, t.partition::text, t.session::text, t.name,
            (SELECT count(*) FROM deleted)::text
          FROM taken t
          UNION ALL
          SELECT 'added', ticket::text, NULL, NULL, NULL, NULL, NULL FROM added
          """,
          [.text(holder), .text(String(partition)), .text(String(session)), .text(name)])
        guard let row = rows.rows.first, let kind = row[0],
          let ticket = row[1].flatMap(Self.integer)
        else {
          throw PostgresConnection.Failure(
            message: "the lobby's statement returned nothing", isConnectionLost: false)
        }
        if String(decoding: kind, as: UTF8.self) == "added" { return .waiting(ticket: ticket) }
        if row[6].flatMap(Self.integer) == 1, let waitingSession = row[4].flatMap(Self.integer) {
          let waiting = WaitingPlayer(
            ticket: ticket, holder: holder, partition: partition, session: Int(waitingSession),
            name: row[5].map { String(decoding: $0, as: UTF8.self) } ?? "")
          do throws(Failure) {
            switch try pair(waiting) {
            case .seated: return .paired(waiting)
            case .gone, .elsewhere: break  // Looked for again below.
            }
          } catch {
            // The joiner is gone: the waiting player's row goes back as it was.
            _ = try connection.execute(
              """
              INSERT INTO unidirectional_lobby (ticket, holder, partition, session, name)
              VALUES ($1::bigint, $2, $3::integer, $4::bigint, $5)
              """,
              [
                .text(String(ticket)), .text(holder), .text(String(partition)),
                .text(String(waitingSession)), .text(waiting.name),
              ])
            paired = error
            return nil
          }
        }
        // Another game server's row (or one whose player was gone): in a transaction, below.
      }
      while true {
        _ = try connection.execute("BEGIN")
        do throws(PostgresConnection.Failure) {
          // `pair` may wait for a start with the row locked: longer than the session's idle
          // timeout would let it (see `lobbyStartWait`).
          _ = try connection.execute(
            "SET LOCAL idle_in_transaction_session_timeout = '\(Self.lobbyStartWait.components.seconds + 5)s'"
          )
          if let own {
            // Its own row first: skipped if another shard is pairing it now, or gone.
            let mine = try connection.execute(
              """
              SELECT ticket FROM unidirectional_lobby WHERE ticket = $1::bigint AND game IS NULL
              FOR UPDATE SKIP LOCKED
              """, [.text(String(own))])
            if mine.rows.isEmpty {
              // Held by another join, or matched: it waits on. Gone: it must join again.
              let there = try connection.execute(
                "SELECT 1 FROM unidirectional_lobby WHERE ticket = $1::bigint",
                [.text(String(own))])
              _ = try connection.execute("ROLLBACK")
              return there.rows.isEmpty ? .rowGone(ticket: own) : .waiting(ticket: own)
            }
          }
          let rows = try connection.execute(
            """
            SELECT l.ticket::text, l.holder, l.partition::text, l.session::text, l.name
            FROM unidirectional_lobby l
            JOIN unidirectional_shards s
              ON s.holder = l.holder AND s.expires_at > clock_timestamp()
            WHERE l.game IS NULL AND ($1::bigint = 0 OR l.ticket < $1::bigint)
            ORDER BY l.ticket
            LIMIT 1
            FOR UPDATE OF l SKIP LOCKED
            """, [.text(String(own ?? 0))])
          guard let row = rows.rows.first, let ticket = row[0].flatMap(Self.integer),
            let waitingHolder = row[1], let waitingPartition = row[2].flatMap(Self.integer),
            let waitingSession = row[3].flatMap(Self.integer), let waitingName = row[4]
          else {
            if let own {
              _ = try connection.execute("ROLLBACK")
              return .waiting(ticket: own)
            }
            let inserted = try connection.execute(
              """
              INSERT INTO unidirectional_lobby (holder, partition, session, name)
              VALUES ($1, $2::integer, $3::bigint, $4) RETURNING ticket::text
              """,
              [.text(holder), .text(String(partition)), .text(String(session)), .text(name)])
            _ = try connection.execute("COMMIT")
            guard let ticket = inserted.rows.first?[0].flatMap(Self.integer) else {
              throw PostgresConnection.Failure(
                message: "the lobby's INSERT returned no ticket", isConnectionLost: false)
            }
            return .waiting(ticket: ticket)
          }
          let waiting = WaitingPlayer(
            ticket: ticket, holder: String(decoding: waitingHolder, as: UTF8.self),
            partition: Int(waitingPartition), session: Int(waitingSession),
            name: String(decoding: waitingName, as: UTF8.self))
          let pairing: Pairing
          do throws(Failure) {
            pairing = try pair(waiting)
          } catch {
            paired = error
            _ = try connection.execute("ROLLBACK")
            return nil
          }
          switch pairing {
          case .elsewhere(let game, let side, let token, let address, let opponent):
            _ = try connection.execute(
              """
              UPDATE unidirectional_lobby SET game = $2, side = $3, token = $4, address = $5,
                opponent = $6
              WHERE ticket = $1::bigint
              """,
              [
                .text(String(ticket)), .text(game), .text(side), .text(token), .text(address),
                .text(opponent),
              ])
          case .seated, .gone:
            _ = try connection.execute(
              "DELETE FROM unidirectional_lobby WHERE ticket = $1::bigint", [.text(String(ticket))])
          }
          if let own, pairing != .gone {
            _ = try connection.execute(
              "DELETE FROM unidirectional_lobby WHERE ticket = $1::bigint", [.text(String(own))])
          }
          _ = try connection.execute("COMMIT")
          if pairing != .gone { return .paired(waiting) }
        } catch {
          if !error.isConnectionLost { _ = try? connection.execute("ROLLBACK") }
          throw error
        }
      }
    }
    if let paired { throw paired }
    guard let outcome else {
      throw Failure(message: "the pairing failed", isTransient: true)
    }
    return outcome
  }

  /// Removes the matches made for this holder's waiting players, and returns them: each player's
  /// game, seat and address, for its shard to send it there. One statement, so a match is read
  /// once.
  ///
  /// - Throws: ``Failure`` if the database cannot be reached or refuses.
  public func takeMatches() throws(Failure) -> [Match] {
    try withConnection { connection throws(PostgresConnection.Failure) -> [Match] in
      let rows = try connection.execute(
        """
        DELETE FROM unidirectional_lobby WHERE holder = $1 AND game IS NOT NULL
        RETURNING partition::text, session::text, game, side, token, address, opponent,
          ticket::text
        """, [.text(holder)])
      return rows.rows.compactMap { row -> Match? in
        guard let partition = row[0].flatMap(Self.integer),
          let session = row[1].flatMap(Self.integer), let ticket = row[7].flatMap(Self.integer)
        else { return nil }
        func text(_ index: Int) -> String {
          row[index].map { String(decoding: $0, as: UTF8.self) } ?? ""
        }
        return Match(
          ticket: ticket, partition: Int(partition), session: Int(session), game: text(2),
          side: text(3),
          token: text(4), address: text(5), opponent: text(6))
      }
    }
  }

  /// Removes the row of a player of this holder who left the queue; returns the game of the
  /// match made for it meanwhile, if any (that game then waits for a player who will not come),
  /// `nil` otherwise.
  ///
  /// - Parameters:
  ///   - partition: The partition of the game server that holds its session.
  ///   - session: The session.
  /// - Throws: ``Failure`` if the database cannot be reached or refuses.
  public func leaveLobby(partition: Int, session: Int) throws(Failure) -> String? {
    try withConnection { connection throws(PostgresConnection.Failure) -> String? in
      let rows = try connection.execute(
        """
        DELETE FROM unidirectional_lobby
        WHERE holder = $1 AND partition = $2::integer AND session = $3::bigint
        RETURNING game
        """, [.text(holder), .text(String(partition)), .text(String(session))])
      return rows.rows.first?[0].map { String(decoding: $0, as: UTF8.self) }
    }
  }

  /// Removes the rows of holders whose announcement expired (dead shards): their players'
  /// connections are gone. Rows of a dead holder are never taken anyway (``join(partition:session:name:waitingAs:pair:)``
  /// takes only live holders' rows); this keeps the table small. Rows another transaction
  /// holds (a join pairing it) are skipped, never waited for: they go at a later call. Returns
  /// how many.
  ///
  /// - Throws: ``Failure`` if the database cannot be reached or refuses.
  @discardableResult
  public func purgeLobby() throws(Failure) -> Int {
    try withConnection { connection throws(PostgresConnection.Failure) -> Int in
      let rows = try connection.execute(
        """
        DELETE FROM unidirectional_lobby
        WHERE ticket IN (
          SELECT l.ticket FROM unidirectional_lobby l
          WHERE NOT EXISTS (
            SELECT 1 FROM unidirectional_shards s
            WHERE s.holder = l.holder AND s.expires_at > clock_timestamp())
          FOR UPDATE SKIP LOCKED)
        RETURNING ticket
        """)
      return rows.rows.count
    }
  }
}
