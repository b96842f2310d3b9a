import Foundation
import Testing

@testable import PostgresActionLog

/// The lobby table of `PartitionLeases+Lobby`, against a throwaway PostgreSQL, one statement
/// at a time: who takes whom, what a waiting player's retry takes, what is left of a dead
/// holder's rows.
@Suite(.serialized) struct LobbyTableTests {
  /// The waiting rows, oldest first: holder, session and name.
  static func rows(_ server: ThrowawayPostgres) throws -> [String] {
    let connection = try PostgresConnection(server.connectionString)
    return try connection.execute(
      "SELECT holder || ':' || session || ':' || name || ':' || coalesce(game, '-') "
        + "FROM unidirectional_lobby ORDER BY ticket"
    ).rows.map { String(decoding: $0[0] ?? Data(), as: UTF8.self) }
  }

  /// A holder that announced itself (live) and opened the lobby.
  static func holder(_ name: String, _ server: ThrowawayPostgres) throws -> PartitionLeases {
    let leases = try PartitionLeases(
      connectionString: server.connectionString, holder: name, leaseTime: .seconds(30))
    try leases.announce(address: "127.0.0.1:\(name.count)")
    try leases.openLobby()
    return leases
  }

  static func ticket(_ outcome: PartitionLeases.JoinOutcome) -> Int64? {
    guard case .waiting(let ticket) = outcome else { return nil }
    return ticket
  }

  @Test func twoWaitingPlayersArePairedByTheYoungerOnesRetryAndTheMatchIsReadOnce()
    async throws
  {
    try await ThrowawayPostgres.with { server in
      let a = try Self.holder("a", server)
      let b = try Self.holder("b", server)
      let ann = try #require(
        Self.ticket(
          try a.join(partition: 0, session: 1, name: "Ann") { _ throws(PartitionLeases.Failure) in
            Issue.record("nobody waits: nothing to pair")
            return .gone
          }))
      // Bob's join on b missed Ann's row (two joins at once): he waits too.
      let connection = try PostgresConnection(server.connectionString)
      let bob = try #require(
        try connection.execute(
          "INSERT INTO unidirectional_lobby (holder, partition, session, name) "
            + "VALUES ('b', 3, 2, 'Bob') RETURNING ticket::text"
        ).rows.first?[0].flatMap(PartitionLeases.integer))
      #expect(try Self.rows(server) == ["a:1:Ann:-", "b:2:Bob:-"])
      // Ann's retry looks at older rows only: none.
      let again = try a.join(partition: 0, session: 1, name: "Ann", waitingAs: ann) {
        _ throws(PartitionLeases.Failure) in
        Issue.record("the older row must not take the younger")
        return .gone
      }
      #expect(Self.ticket(again) == ann)
      // Bob's retry takes Ann's row: the game starts on b, and Bob's own row goes.
      var taken: PartitionLeases.WaitingPlayer?
      let paired = try b.join(partition: 3, session: 2, name: "Bob", waitingAs: bob) {
        other throws(PartitionLeases.Failure) in
        taken = other
        return .elsewhere(
          game: "g1-p3-0", side: "X", token: "t0k", address: "127.0.0.1:1", opponent: "Bob")
      }
      #expect(taken?.ticket == ann && taken?.holder == "a" && taken?.session == 1)
      if case .paired(let other) = paired {
        #expect(other.name == "Ann")
      } else {
        Issue.record("not paired: \(paired)")
      }
      #expect(try Self.rows(server) == ["a:1:Ann:g1-p3-0"])
      // a reads the match once; b has none.
      #expect(try b.takeMatches().isEmpty)
      let matches = try a.takeMatches()
      #expect(
        matches.map {
          "\($0.partition) \($0.session) \($0.game) \($0.side) \($0.token) \($0.address) \($0.opponent)"
        }
          == ["0 1 g1-p3-0 X t0k 127.0.0.1:1 Bob"])
      // With its row's ticket: the shard delivers it only to the player it knows waits there.
      #expect(matches.map(\.ticket) == [ann])
      #expect(try a.takeMatches().isEmpty)
      #expect(try Self.rows(server).isEmpty)
    }
  }

  @Test func aJoinOfTheSameGameServerTakesItsRowInOneStatementAndPutsItBackIfTheJoinerLeft()
    async throws
  {
    try await ThrowawayPostgres.with { server in
      let a = try Self.holder("a", server)
      _ = try a.join(partition: 5, session: 10, name: "Ann") { _ throws(PartitionLeases.Failure) in
        .gone
      }
      // The joiner left meanwhile: the pairing fails, and Ann's row is as it was.
      #expect(throws: PartitionLeases.Failure.self) {
        try a.join(partition: 5, session: 11, name: "Bob") { _ throws(PartitionLeases.Failure) in
          throw PartitionLeases.Failure(message: "the joining player left", isTransient: false)
        }
      }
      #expect(try Self.rows(server) == ["a:10:Ann:-"])
      let outcome = try a.join(partition: 5, session: 12, name: "Cy") {
        other throws(PartitionLeases.Failure) in
        #expect(other.session == 10)
        return .seated
      }
      if case .paired = outcome {} else { Issue.record("not paired: \(outcome)") }
      #expect(try Self.rows(server).isEmpty)
      // A player who leaves takes its row with it.
      _ = try a.join(partition: 5, session: 13, name: "Di") { _ throws(PartitionLeases.Failure) in
        .gone
      }
      #expect(try a.leaveLobby(partition: 5, session: 13) == nil)  // No match was made for it.
      #expect(try Self.rows(server).isEmpty)
    }
  }

  @Test func aRetryWhoseRowIsGoneSaysSoAndOneWhoseRowIsHeldWaitsOn() async throws {
    try await ThrowawayPostgres.with { server in
      let a = try Self.holder("a", server)
      let ann = try #require(
        Self.ticket(
          try a.join(partition: 0, session: 1, name: "Ann") { _ throws(PartitionLeases.Failure) in
            Issue.record("nobody waits: nothing to pair")
            return .gone
          }))
      let connection = try PostgresConnection(server.connectionString)
      // Held by another join: it waits on.
      _ = try connection.execute("BEGIN")
      _ = try connection.execute(
        "SELECT ticket FROM unidirectional_lobby WHERE ticket = $1::bigint FOR UPDATE",
        [.text(String(ann))])
      let held = try a.join(partition: 0, session: 1, name: "Ann", waitingAs: ann) {
        _ throws(PartitionLeases.Failure) in
        Issue.record("its own row is held: nothing to pair")
        return .gone
      }
      #expect(held == .waiting(ticket: ann))
      _ = try connection.execute("ROLLBACK")
      // Gone (a purge, a crash of PostgreSQL): said so, and nothing is inserted.
      _ = try connection.execute("DELETE FROM unidirectional_lobby")
      let gone = try a.join(partition: 0, session: 1, name: "Ann", waitingAs: ann) {
        _ throws(PartitionLeases.Failure) in
        Issue.record("its own row is gone: nothing to pair")
        return .gone
      }
      #expect(gone == .rowGone(ticket: ann))
      #expect(try Self.rows(server).isEmpty)
    }
  }

  @Test func aDeadHoldersRowIsNeverTakenAndIsPurged() async throws {
    try await ThrowawayPostgres.with { server in
      let b = try Self.holder("b", server)
      // c never announced itself (or its announcement expired): its row is a dead shard's.
      let connection = try PostgresConnection(server.connectionString)
      _ = try connection.execute(
        "INSERT INTO unidirectional_lobby (holder, partition, session, name) "
          + "VALUES ('c', 0, 1, 'Ghost')")
      let outcome = try b.join(partition: 0, session: 1, name: "Bob") {
        _ throws(PartitionLeases.Failure) in
        Issue.record("a dead holder's row was taken")
        return .gone
      }
      #expect(Self.ticket(outcome) != nil)
      // A row another transaction holds (a join pairing it) is skipped, not waited for: the
      // lease thread that purges must never stall on it.
      _ = try connection.execute("BEGIN")
      _ = try connection.execute(
        "SELECT ticket FROM unidirectional_lobby WHERE holder = 'c' FOR UPDATE")
      #expect(try b.purgeLobby() == 0)
      _ = try connection.execute("ROLLBACK")
      #expect(try b.purgeLobby() == 1)
      #expect(try Self.rows(server) == ["b:1:Bob:-"])
    }
  }
}
