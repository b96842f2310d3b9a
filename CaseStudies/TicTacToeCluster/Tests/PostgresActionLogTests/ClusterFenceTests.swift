import Foundation
import Testing

@testable import PostgresActionLog

#if canImport(Glibc)
  import Glibc
#endif

/// The fence end to end, through shard processes: shard a's journal round, holding a player's
/// move, is held in flight (before its transaction begins) while a's lease runs out and shard b
/// takes the partition; then the round goes on.
///
/// `FencedAppendTests` proves the same of the library, with two databases in one process; this
/// one proves it of the shards as they run: their leases, renewals, takeover and routing. a's
/// lease thread is kept from renewing by a row lock on its announcement (its `announce`, the
/// first statement of each of its rounds, waits for it), so its lease expires on the database's
/// clock and b's share grows to both partitions; nothing else of a is paused.
@Suite(.serialized) struct ClusterFenceTests {
  @Test(arguments: [true, false])
  func aFencedShardsRoundHeldInFlightCommitsNothing(checkingFences: Bool) async throws {
    try await ThrowawayPostgres.with { postgres in
      let ledger = try LeaseLedger(connectionString: postgres.connectionString)
      let tables = ClusterTables(connectionString: postgres.connectionString)
      let fifo = NSTemporaryDirectory() + "hold-\(UUID().uuidString)"
      guard mkfifo(fifo, 0o600) == 0 else { throw CocoaError(.fileWriteUnknown) }
      defer { unlink(fifo) }
      var environment = ["TICTACTOE_SHARD_TESTING_HOLD": fifo]
      if !checkingFences { environment["TICTACTOE_SHARD_TESTING_UNFENCED"] = "1" }
      let a = try ClusterShard(
        name: "a", database: ledger.connectionString(for: "a.1"), partitions: 2, lease: 2,
        environment: environment)
      let b = try ClusterShard(
        name: "b", database: ledger.connectionString(for: "b.1"), partitions: 2, lease: 2)
      #expect(
        try tables.waitForLeases {
          $0.count == 2 && ClusterShardTests.count($0, "a") == 1
            && ClusterShardTests.count($0, "b") == 1
        })
      let (x, o) = try ClusterShardTests.seatedPair(at: a)
      let partition = PartitionLeases.partition(ofGame: x.game, partitionCount: 2)
      #expect(try tables.holders()[partition]?.holder == "a")
      #expect(try x.move(0, seq: 1)["type"] as? String == "state")
      _ = try o.awaitMoves(1)

      // O's move reaches a's journal, whose round is held before its transaction begins.
      #expect(FileManager.default.createFile(atPath: fifo + ".armed", contents: nil))
      o.client.send(#"{"type":"move","game":"\#(o.game)","cell":3,"seq":1}"#)
      let held = try ClusterShardTests.waitForLog(a, "testing: a journal round is held")
      // Without a reader (no round held), opening the FIFO below would wait forever.
      try #require(held, "no journal round of shard a was held")

      // a's renewals wait for the lock on its announcement; its lease runs out and b takes the
      // partition, recovering the game.
      let admin = try PostgresConnection(postgres.connectionString)
      _ = try admin.execute("BEGIN")
      _ = try admin.execute("SELECT 1 FROM unidirectional_shards WHERE holder = 'a' FOR UPDATE")
      #expect(try tables.waitForLeases { $0[partition]?.holder == "b" })
      #expect(try ClusterShardTests.waitUntilServing(b, partition, tables))

      // The held round goes on: a byte through the FIFO.
      let writer = open(fifo, O_WRONLY)
      #expect(writer >= 0)
      var byte: UInt8 = 1
      _ = write(writer, &byte, 1)
      close(writer)
      var answers: [String] = []
      do {
        while true {
          let frame = try o.client.next()
          let type = frame["type"] as? String ?? ""
          answers.append(type == "error" ? "error \(frame["code"] ?? "")" : type)
          if type == "bye" { break }
          if type == "state", (frame["last"] as? [String: Any])?["player"] as? String == "O" {
            break
          }
        }
      } catch {}
      _ = try admin.execute("ROLLBACK")

      // The oracle: a's move acknowledged, in the journal, or any line written under an epoch
      // not granted to its writer, is an append of a fenced shard committed.
      let stored = try tables.journal(ofGame: o.game, partitions: 2)
      let fencedWrites = try ledger.fencedWrites()
      let acknowledged = answers.contains("state")
      let journaled = stored.moves.keys.contains { $0.player == "O" }
      let fencedAppendCommitted = acknowledged || journaled || !fencedWrites.isEmpty
      #expect(
        fencedAppendCommitted == !checkingFences,
        "answers \(answers), ledger \(fencedWrites), journal \(stored.moves)")
      if checkingFences {
        #expect(answers.contains("error moved"), "\(answers)")
        #expect(try ClusterShardTests.waitForLog(a, "partition \(partition) dropped"))
        // b serves the game on: O, redirected by a, plays the move again, journaled once.
        let answer = try o.rejoin(at: a.port)
        #expect(
          answer["type"] as? String == "redirect" && answer["address"] as? String == b.address)
        try ClusterShardTests.rejoinAndSit(o, at: b.port)
        #expect(try o.move(3, seq: 1)["type"] as? String == "state")
        let after = try tables.journal(ofGame: o.game, partitions: 2)
        #expect(after.moves[.init(game: o.game, player: "O", cell: 3, seq: 1)] == 1)
        #expect(after.moves.count == 2 && after.refusedOnReplay.isEmpty)
        #expect(try ledger.fencedWrites().isEmpty)
      } else {
        // Split brain, as the ledger shows it: a's line under b's epoch.
        #expect(acknowledged && journaled, "answers \(answers), journal \(stored.moves)")
        #expect(fencedWrites.contains { $0.contains("written by a.1") }, "\(fencedWrites)")
      }
      for line in a.log.split(separator: "\n")
      where line.contains("testing:") || line.contains("dropped") || line.contains("fenced") {
        print("ClusterFenceTests (checking fences: \(checkingFences)): a: \(line)")
      }
    }
  }
}
