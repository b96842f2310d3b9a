import Foundation
import Testing

@testable import PostgresActionLog

#if canImport(Glibc)
  import Glibc
#endif

/// Real `tictactoe-cluster-shard` processes against a throwaway PostgreSQL, with short leases:
/// they share the partitions, redirect players to a game's owner, take over a dead shard's
/// partitions, and a paused shard whose lease was taken commits nothing after it resumes.
@Suite(.serialized) struct ClusterShardTests {
  /// Two players seated in a new game on `shard`; X is the first to join.
  static func seatedPair(at shard: ClusterShard) throws -> (x: ClusterPlayer, o: ClusterPlayer) {
    let x = try ClusterPlayer(port: shard.port)
    x.join(as: "Ann")
    // X is the first to queue: O joins once X is queued.
    try x.read { $0["type"] as? String == "session" && $0["phase"] as? String == "queued" }
    let o = try ClusterPlayer(port: shard.port)
    o.join(as: "Bob")
    try x.awaitSeat()
    try o.awaitSeat()
    #expect(x.side == "X" && o.side == "O" && x.game == o.game && !x.game.isEmpty)
    return (x, o)
  }

  /// Rejoins at `port`, expecting to be seated again: `session` (playing), `seat`, `state`.
  static func rejoinAndSit(_ player: ClusterPlayer, at port: UInt16) throws {
    let answer = try player.rejoin(at: port)
    #expect(answer["type"] as? String == "session" && answer["phase"] as? String == "playing")
    try player.read { $0["type"] as? String == "state" }
  }

  /// X has played 0; O plays 3, X 1, O 4, X 2: X wins on the top row. Returns the last frame.
  static func finish(_ x: ClusterPlayer, _ o: ClusterPlayer) throws -> [String: Any] {
    #expect(try o.move(3, seq: 1)["type"] as? String == "state")
    _ = try x.awaitMoves(2)
    #expect(try x.move(1, seq: 2)["type"] as? String == "state")
    _ = try o.awaitMoves(3)
    #expect(try o.move(4, seq: 2)["type"] as? String == "state")
    _ = try x.awaitMoves(4)
    return try x.move(2, seq: 3)
  }

  /// The journal of the game's partition holds each of the game's five moves once, and
  /// replays without a refused move.
  static func checkFinishedGame(_ game: String, _ tables: ClusterTables, partitions: Int) throws {
    let stored = try tables.journal(ofGame: game, partitions: partitions)
    let expected: [StoredJournal.Move] = [
      .init(game: game, player: "X", cell: 0, seq: 1),
      .init(game: game, player: "O", cell: 3, seq: 1),
      .init(game: game, player: "X", cell: 1, seq: 2),
      .init(game: game, player: "O", cell: 4, seq: 2),
      .init(game: game, player: "X", cell: 2, seq: 3),
    ]
    for move in expected { #expect(stored.moves[move] == 1, "\(move)") }
    #expect(stored.moves.count == expected.count)
    #expect(stored.refusedOnReplay.isEmpty)
  }

  /// Waits until `shard` has logged `text`; false after the bound.
  static func waitForLog(_ shard: ClusterShard, _ text: String) throws -> Bool {
    // wall-clock: a failure bound; a passing run goes on as soon as the line is there.
    let deadline = ContinuousClock.now + .seconds(20)
    while !shard.log.contains(text) {
      // wall-clock: a failure bound; a passing run goes on as soon as the line is there.
      if ContinuousClock.now >= deadline { return false }
      // wall-clock: the pause between two reads of the log file.
      usleep(20_000)
    }
    return true
  }

  /// Waits until `shard` serves `partition` under the epoch the lease table shows: the table
  /// shows a claim as soon as it is granted, before the shard has recovered the partition's
  /// games (a rejoin meanwhile is answered `no-owner`, try again).
  static func waitUntilServing(
    _ shard: ClusterShard, _ partition: Int, _ tables: ClusterTables
  ) throws -> Bool {
    let epoch = try #require(try tables.holders()[partition]).epoch
    return try waitForLog(shard, "partition \(partition): serving under epoch \(epoch);")
  }

  static func count(_ holders: [Int: (holder: String, epoch: Int64)], _ name: String) -> Int {
    holders.values.filter { $0.holder == name }.count
  }

  @Test func twoShardsSplitThePartitionsAndARejoinOnTheWrongShardIsRedirectedToTheOwner()
    async throws
  {
    try await ThrowawayPostgres.with { postgres in
      let tables = ClusterTables(connectionString: postgres.connectionString)
      var a = try ClusterShard(
        name: "a", database: postgres.connectionString, partitions: 8, lease: 3)
      let b = try ClusterShard(
        name: "b", database: postgres.connectionString, partitions: 8, lease: 3)
      // Every partition held, four each.
      #expect(
        try tables.waitForLeases {
          $0.count == 8 && Self.count($0, "a") == 4 && Self.count($0, "b") == 4
        }
      )
      let (x, o) = try Self.seatedPair(at: a)
      let partition = PartitionLeases.partition(ofGame: x.game, partitionCount: 8)
      let before = try #require(try tables.holders()[partition])
      #expect(before.holder == "a")
      #expect(try x.move(0, seq: 1)["type"] as? String == "state")
      _ = try o.awaitMoves(1)

      // a dies and comes back under the same name (a new port): it claims its own partitions
      // again at once, each with a new epoch, and recovers the game.
      a.kill()
      a = try ClusterShard(name: "a", database: postgres.connectionString, partitions: 8, lease: 3)
      #expect(
        try tables.waitForLeases {
          $0[partition]?.holder == "a" && ($0[partition]?.epoch ?? 0) > before.epoch
            && Self.count($0, "a") == 4 && Self.count($0, "b") == 4
        })

      #expect(try Self.waitUntilServing(a, partition, tables))
      // X asks b, which does not hold the game's partition: redirected to a's new address.
      let answer = try x.rejoin(at: b.port)
      #expect(answer["type"] as? String == "redirect")
      #expect(answer["game"] as? String == x.game)
      #expect(answer["address"] as? String == a.address)
      try Self.rejoinAndSit(x, at: a.port)
      try Self.rejoinAndSit(o, at: a.port)
      let last = try Self.finish(x, o)
      #expect(last["status"] as? String == "won" && last["winner"] as? String == "X")
      try Self.checkFinishedGame(x.game, tables, partitions: 8)
    }
  }

  @Test func aKilledShardsPartitionsAreTakenOverAndARedirectedPlayerFinishesItsGame()
    async throws
  {
    try await ThrowawayPostgres.with { postgres in
      let tables = ClusterTables(connectionString: postgres.connectionString)
      let database = postgres.connectionString
      let a = try ClusterShard(name: "a", database: database, partitions: 6, lease: 2)
      let b = try ClusterShard(name: "b", database: database, partitions: 6, lease: 2)
      let c = try ClusterShard(name: "c", database: database, partitions: 6, lease: 2)
      #expect(
        try tables.waitForLeases { holders in
          holders.count == 6 && ["a", "b", "c"].allSatisfy { Self.count(holders, $0) == 2 }
        })
      let (x, o) = try Self.seatedPair(at: a)
      let partition = PartitionLeases.partition(ofGame: x.game, partitionCount: 6)
      #expect(try x.move(0, seq: 1)["type"] as? String == "state")
      _ = try o.awaitMoves(1)

      a.kill()
      // Once a's leases and announcement expire, b and c share its partitions, three each.
      #expect(
        try tables.waitForLeases { holders in
          holders.count == 6 && Self.count(holders, "b") == 3 && Self.count(holders, "c") == 3
        })
      let owner = try #require(try tables.holders()[partition]).holder == "b" ? b : c
      let other = owner === b ? c : b
      #expect(try Self.waitUntilServing(owner, partition, tables))
      let answer = try x.rejoin(at: other.port)
      #expect(
        answer["type"] as? String == "redirect" && answer["address"] as? String == owner.address)
      try Self.rejoinAndSit(x, at: owner.port)
      try Self.rejoinAndSit(o, at: owner.port)
      let last = try Self.finish(x, o)
      #expect(last["status"] as? String == "won" && last["winner"] as? String == "X")
      try Self.checkFinishedGame(x.game, tables, partitions: 6)
    }
  }

  @Test func aPausedShardWhoseLeaseWasTakenCommitsNothingAfterItResumes() async throws {
    try await ThrowawayPostgres.with { postgres in
      let tables = ClusterTables(connectionString: postgres.connectionString)
      let database = postgres.connectionString
      let a = try ClusterShard(name: "a", database: database, partitions: 4, lease: 2)
      let b = try ClusterShard(name: "b", database: database, partitions: 4, lease: 2)
      #expect(
        try tables.waitForLeases {
          $0.count == 4 && Self.count($0, "a") == 2 && Self.count($0, "b") == 2
        })
      let (x, o) = try Self.seatedPair(at: a)
      let partition = PartitionLeases.partition(ofGame: x.game, partitionCount: 4)
      #expect(try x.move(0, seq: 1)["type"] as? String == "state")
      _ = try o.awaitMoves(1)

      // a pauses past its lease; b takes every partition, the game's with it.
      a.signal(SIGSTOP)
      #expect(try tables.waitForLeases { $0.count == 4 && Self.count($0, "b") == 4 })
      // O's move (its turn) reaches a's socket while a is stopped, and a handles it on
      // resuming: whether its journal round meets the fence or the partition is dropped first,
      // nothing is acknowledged.
      o.client.send(#"{"type":"move","game":"\#(o.game)","cell":3,"seq":1}"#)
      a.signal(SIGCONT)
      var answers: [String] = []
      do {
        while true {
          let frame = try o.client.next()
          let type = frame["type"] as? String ?? ""
          answers.append(type == "error" ? "error \(frame["code"] ?? "")" : type)
          if type == "bye" { break }
        }
      } catch {}
      #expect(!answers.contains("state"), "\(answers)")
      #expect(answers.contains("error moved"), "\(answers)")
      // The drop is logged, with why.
      #expect(try Self.waitForLog(a, "partition \(partition) dropped"))
      // Which path it took (the fence, or the lease seen run out first), for the test's output.
      for line in a.log.split(separator: "\n") where line.contains("dropped") {
        print("ClusterShardTests: shard a: \(line)")
      }
      // The partitions settle, two each again; nothing of a's resumed move is in the journal.
      #expect(
        try tables.waitForLeases {
          $0.count == 4 && Self.count($0, "a") == 2 && Self.count($0, "b") == 2
        })
      let stored = try tables.journal(ofGame: o.game, partitions: 4)
      #expect(stored.moves.keys.filter { $0.player == "O" }.isEmpty)
      #expect(stored.moves.count == 1)

      // O rejoins at whichever shard holds the game now (through a redirect from the other),
      // and plays the move again: it is acknowledged and journaled once.
      let owner = try #require(try tables.holders()[partition]).holder == "a" ? a : b
      let other = owner === a ? b : a
      #expect(try Self.waitUntilServing(owner, partition, tables))
      let answer = try o.rejoin(at: other.port)
      #expect(
        answer["type"] as? String == "redirect" && answer["address"] as? String == owner.address)
      try Self.rejoinAndSit(o, at: owner.port)
      #expect(try o.move(3, seq: 1)["type"] as? String == "state")
      let after = try tables.journal(ofGame: o.game, partitions: 4)
      #expect(after.moves[.init(game: o.game, player: "O", cell: 3, seq: 1)] == 1)
      #expect(after.moves.count == 2)
      #expect(after.refusedOnReplay.isEmpty)
    }
  }
}
