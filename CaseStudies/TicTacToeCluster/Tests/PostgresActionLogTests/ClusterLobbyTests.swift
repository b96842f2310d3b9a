import Foundation
import Synchronization
import Testing
import TicTacToeServerCore

@testable import PostgresActionLog

#if canImport(Glibc)
  import Glibc
#endif

/// The cluster's lobby (`unidirectional_lobby`): players who join on different shards meet in
/// one game; the waiting one is redirected to the game's shard with its seat token. A retried
/// move is answered with its original acknowledgement and journaled once; a shard refuses bad
/// input as the single server does.
@Suite(.serialized) struct ClusterLobbyTests {
  /// What an in-memory server sent.
  final class Answers: Sendable {
    let frames = Mutex<[ServerFrame]>([])
  }

  static func isType(_ type: String) -> ([String: Any]) -> Bool {
    { $0["type"] as? String == type }
  }

  /// The rows of the lobby table: holder and whether matched.
  static func lobbyRows(_ connectionString: String) throws -> [(holder: String, name: String)] {
    let connection = try PostgresConnection(connectionString)
    return try connection.execute(
      "SELECT holder, name FROM unidirectional_lobby WHERE game IS NULL ORDER BY ticket"
    ).rows.map { row in
      (
        row[0].map { String(decoding: $0, as: UTF8.self) } ?? "",
        row[1].map { String(decoding: $0, as: UTF8.self) } ?? ""
      )
    }
  }

  /// Waits until the lobby table's waiting rows satisfy `condition`; false after the bound.
  static func waitForLobby(
    _ connectionString: String, _ condition: ([(holder: String, name: String)]) -> Bool
  ) throws -> Bool {
    // wall-clock: a failure bound; a passing run goes on as soon as the table shows it.
    let deadline = ContinuousClock.now + .seconds(20)
    while true {
      if try condition(lobbyRows(connectionString)) { return true }
      // wall-clock: a failure bound; a passing run goes on as soon as the table shows it.
      if ContinuousClock.now >= deadline { return false }
      // wall-clock: the pause between two reads of the table.
      usleep(20_000)
    }
  }

  /// Two shards, all partitions held (four each of eight).
  static func twoShards(_ postgres: ThrowawayPostgres) throws -> (ClusterShard, ClusterShard) {
    let tables = ClusterTables(connectionString: postgres.connectionString)
    let a = try ClusterShard(
      name: "a", database: postgres.connectionString, partitions: 8, lease: 3)
    let b = try ClusterShard(
      name: "b", database: postgres.connectionString, partitions: 8, lease: 3)
    #expect(
      try tables.waitForLeases {
        $0.count == 8 && ClusterShardTests.count($0, "a") == 4
          && ClusterShardTests.count($0, "b") == 4
      })
    return (a, b)
  }

  @Test func playersOfTwoShardsMeetAndARetriedMoveIsAnsweredOnceAfterARedirect() async throws {
    try await ThrowawayPostgres.with { postgres in
      let tables = ClusterTables(connectionString: postgres.connectionString)
      let (a, b) = try Self.twoShards(postgres)
      // Ann waits on a: her row is in the table.
      let ann = try ClusterPlayer(port: a.port)
      ann.join(as: "Ann")
      try ann.read { $0["type"] as? String == "session" && $0["phase"] as? String == "queued" }
      #expect(try Self.waitForLobby(postgres.connectionString) { $0.map(\.name) == ["Ann"] })
      // Bob joins on b: he takes Ann's row; the game starts on b, Bob seated as O.
      let bob = try ClusterPlayer(port: b.port)
      bob.join(as: "Bob")
      try bob.awaitSeat()
      #expect(bob.side == "O")
      let partition = PartitionLeases.partition(ofGame: bob.game, partitionCount: 8)
      #expect(try tables.holders()[partition]?.holder == "b")
      // Ann is told as the single server would (playing, seat), then where the game is.
      let playing = try ann.read(until: Self.isType("session"))
      #expect(playing["phase"] as? String == "playing" && playing["opponent"] as? String == "Bob")
      let seat = try ann.read(until: Self.isType("seat"))
      ann.game = seat["game"] as? String ?? ""
      ann.token = seat["token"] as? String ?? ""
      ann.side = seat["you"] as? String ?? ""
      #expect(ann.game == bob.game && ann.side == "X")
      let redirect = try ann.read(until: Self.isType("redirect"))
      #expect(
        redirect["game"] as? String == bob.game && redirect["address"] as? String == b.address)
      try ClusterShardTests.rejoinAndSit(ann, at: b.port)
      #expect(try Self.waitForLobby(postgres.connectionString) { $0.isEmpty })

      // Ann moves, and b dies: a client that lost its connection does not know whether its
      // move was played. Once b's leases expire, a takes the game's partition and recovers the
      // game; Ann rejoins there and sends the move again. Its answer is the original one, and
      // it is not played twice.
      let acknowledgement = try ann.move(0, seq: 1)
      #expect(acknowledgement["type"] as? String == "state")
      _ = try bob.awaitMoves(1)
      b.kill()
      #expect(try tables.waitForLeases { $0[partition]?.holder == "a" })
      #expect(try ClusterShardTests.waitUntilServing(a, partition, tables))
      try ClusterShardTests.rejoinAndSit(ann, at: a.port)
      let again = try ann.move(0, seq: 1)
      #expect(NSDictionary(dictionary: again) == NSDictionary(dictionary: acknowledgement))
      try ClusterShardTests.rejoinAndSit(bob, at: a.port)
      let last = try ClusterShardTests.finish(ann, bob)
      #expect(last["status"] as? String == "won" && last["winner"] as? String == "X")
      // Each move once in the partition's journal, replayed without a refusal.
      try ClusterShardTests.checkFinishedGame(bob.game, tables, partitions: 8)
    }
  }

  @Test func playersJoiningOnTwoShardsAtOnceStillMeet() async throws {
    try await ThrowawayPostgres.with { postgres in
      let (a, b) = try Self.twoShards(postgres)
      for round in 0..<3 {
        // Sent together: each join may miss the other's row, and both wait; the younger row is
        // joined again and takes the older.
        let ann = try ClusterPlayer(port: a.port)
        let bob = try ClusterPlayer(port: b.port)
        ann.join(as: "Ann\(round)")
        bob.join(as: "Bob\(round)")
        var games: [String] = []
        for player in [ann, bob] {
          let seat = try player.read(until: Self.isType("seat"))
          games.append(seat["game"] as? String ?? "")
        }
        #expect(games[0] == games[1] && !games[0].isEmpty, "round \(round): \(games)")
      }
      #expect(try Self.waitForLobby(postgres.connectionString) { $0.isEmpty })
    }
  }

  @Test func aGameWhoseXCannotBeToldIsEndedAndOIsSentBackToTheLobby() async throws {
    try await ThrowawayPostgres.with { postgres in
      let tables = ClusterTables(connectionString: postgres.connectionString)
      let a = try ClusterShard(
        name: "a", database: postgres.connectionString, partitions: 8, lease: 3)
      // On b, a pairing with a player elsewhere fails once the game's start is durable, as when
      // the lobby's UPDATE or COMMIT fails then.
      let b = try ClusterShard(
        name: "b", database: postgres.connectionString, partitions: 8, lease: 3,
        environment: ["TICTACTOE_SHARD_TESTING_FAIL_LOBBY_AFTER_START": "1"])
      #expect(
        try tables.waitForLeases {
          $0.count == 8 && ClusterShardTests.count($0, "a") == 4
            && ClusterShardTests.count($0, "b") == 4
        })
      let ann = try ClusterPlayer(port: a.port)
      ann.join(as: "Ann")
      #expect(try Self.waitForLobby(postgres.connectionString) { $0.map(\.name) == ["Ann"] })
      // Bob takes Ann's row on b: the game starts (Bob seated as O), then the pairing fails.
      let bob = try ClusterPlayer(port: b.port)
      bob.join(as: "Bob")
      try bob.awaitSeat()
      #expect(bob.side == "O")
      // Bob is sent back to the lobby, as after a game's end.
      let back = try bob.read(until: Self.isType("session"))
      #expect(back["phase"] as? String == "lobby")
      // The game is ended in its journal (nobody won: it has no move), and Ann waits on.
      #expect(try tables.journal(ofGame: bob.game, partitions: 8).ended.contains(bob.game))
      #expect(try tables.journal(ofGame: bob.game, partitions: 8).moves.isEmpty)
      #expect(try Self.waitForLobby(postgres.connectionString) { $0.map(\.name) == ["Ann"] })
      #expect(b.log.contains("game \(bob.game) closed as abandoned"))
      #expect(b.log.contains("the pairing failed after the start"))
    }
  }

  @Test func aWaitingPlayerWhoseRowIsGoneWaitsAgainAndIsMatched() async throws {
    try await ThrowawayPostgres.with { postgres in
      let (a, b) = try Self.twoShards(postgres)
      let ann = try ClusterPlayer(port: a.port)
      ann.join(as: "Ann")
      #expect(try Self.waitForLobby(postgres.connectionString) { $0.map(\.name) == ["Ann"] })
      // Her row is lost (as with a crash of PostgreSQL): a's retry finds it gone, and she
      // waits in a new row.
      let connection = try PostgresConnection(postgres.connectionString)
      _ = try connection.execute("DELETE FROM unidirectional_lobby")
      #expect(try Self.waitForLobby(postgres.connectionString) { $0.map(\.name) == ["Ann"] })
      #expect(try ClusterShardTests.waitForLog(a, "(Ann) was gone"))
      // Bob, joining on b, meets her.
      let bob = try ClusterPlayer(port: b.port)
      bob.join(as: "Bob")
      try bob.awaitSeat()
      let seat = try ann.read(until: Self.isType("seat"))
      #expect(seat["game"] as? String == bob.game && seat["you"] as? String == "X")
    }
  }

  @Test func aDeadShardsWaitingPlayerIsNeverMatched() async throws {
    try await ThrowawayPostgres.with { postgres in
      let (a, b) = try Self.twoShards(postgres)
      let ann = try ClusterPlayer(port: a.port)
      ann.join(as: "Ann")
      #expect(try Self.waitForLobby(postgres.connectionString) { $0.map(\.name) == ["Ann"] })
      a.kill()
      // Once a's announcement expires, b removes its row; Bob then waits, and meets Cy.
      #expect(try Self.waitForLobby(postgres.connectionString) { $0.isEmpty })
      let bob = try ClusterPlayer(port: b.port)
      bob.join(as: "Bob")
      try bob.read { $0["type"] as? String == "session" && $0["phase"] as? String == "queued" }
      #expect(try Self.waitForLobby(postgres.connectionString) { $0.map(\.name) == ["Bob"] })
      let cy = try ClusterPlayer(port: b.port)
      cy.join(as: "Cy")
      try cy.awaitSeat()
      let playing = try bob.read(until: Self.isType("session"))
      #expect(playing["phase"] as? String == "playing" && playing["opponent"] as? String == "Cy")
      #expect(b.log.contains("lobby: 1 rows of shards no longer live removed"))
    }
  }

  @Test func aShardRefusesBadInputAsTheSingleServerDoes() async throws {
    try await ThrowawayPostgres.with { postgres in
      let shard = try ClusterShard(
        name: "a", database: postgres.connectionString, partitions: 4, lease: 3)
      let tables = ClusterTables(connectionString: postgres.connectionString)
      #expect(try tables.waitForLeases { $0.count == 4 })
      #expect(try ClusterShardTests.waitForLog(shard, "partition 3: serving"))
      let lines = [
        "not json", #"{"type":"fly"}"#, #"{"type":"move","game":"g1","cell":-1,"seq":1}"#,
        #"{"type":"move","game":"g1","cell":4}"#, #"{"type":"hello","name":""}"#,
        #"{"type":"join"}"#, #"{"type":"hello","name":"Ann"}"#, #"{"type":"hello","name":"Ann"}"#,
        #"{"type":"leave"}"#, #"{"type":"move","game":"g9","cell":4,"seq":1}"#,
        #"{"type":"move","game":"g9","cell":4,"seq":01}"#, #"{"type":"join"}"#,
        #"{"type":"join"}"#,
      ]
      // The single server's answers, in memory.
      let server = GameServer()
      let answers = Answers()
      let session = server.connect(
        ClientLink(deliver: { frame in answers.frames.withLock { $0.append(frame) } }, close: {}))
      let client = try FrameClient(port: shard.port)
      _ = try client.next()  // session connected
      for line in lines {
        answers.frames.withLock { $0 = [] }
        server.receive(Array(line.utf8), from: session)
        guard let expected = answers.frames.withLock({ $0.last }) else { continue }
        client.send(line)
        let got = try client.next()
        let want = try JSONSerialization.jsonObject(with: Data(expected.bytes)) as? [String: Any]
        #expect(NSDictionary(dictionary: got) == NSDictionary(dictionary: want ?? [:]), "\(line)")
      }
    }
  }
}
