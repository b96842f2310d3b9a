import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `tictactoe-pg-server` with its journal in a real PostgreSQL, under failures: killed with
/// `SIGKILL` at random points, and its database stopped mid-run. Clients are tables of two
/// players on threads of their own (see `Table`).
@Suite(.serialized) struct PostgresGameServerTests {
  /// Starts `count` tables on threads of their own; returns a group that empties when all end.
  static func startTables(_ count: Int, seed: UInt64, run: TableRun) -> DispatchGroup {
    let ended = DispatchGroup()
    for index in 0..<count {
      let table = Table(name: "t\(index)", seed: seed &* 1000 &+ UInt64(index), run: run)
      ended.enter()
      let thread = Thread {
        table.play()
        ended.leave()
      }
      thread.stackSize = 1 << 20
      thread.start()
    }
    return ended
  }

  /// Waits for the tables' threads without holding a thread of the concurrency pool.
  static func ended(_ group: DispatchGroup) async -> Bool {
    await withCheckedContinuation { continuation in
      DispatchQueue.global().async {
        // wall-clock: a failure bound; the tables end as soon as their games are over.
        continuation.resume(returning: group.wait(timeout: .now() + 300) == .success)
      }
    }
  }

  /// Checks what the database holds against what the server acknowledged: every acknowledged
  /// move exactly once, no move twice, and every game replaying without a refused move.
  static func checkJournal(
    _ database: String, against run: TableRun, after event: String
  ) throws {
    let stored = try StoredJournal.read(database)
    for move in run.acknowledged where stored.moves[move] != 1 {
      Issue.record(
        "\(event): acknowledged \(move) is in the journal \(stored.moves[move] ?? 0) times")
    }
    for (move, count) in stored.moves where count > 1 {
      Issue.record("\(event): \(move) is in the journal \(count) times")
    }
    for refusal in stored.refusedOnReplay { Issue.record("\(event): \(refusal)") }
  }

  @Test(arguments: [UInt64(35)])
  func killedTenTimesAtRandomPointsLosesNoAcknowledgedMove(seed: UInt64) async throws {
    try await ThrowawayPostgres.with { postgres in
      print("PostgresGameServerTests: seed \(seed), 100 tables of 2 players, 10 kills")
      var random = seed
      func next() -> UInt64 {
        random &+= 0x9E37_79B9_7F4A_7C15
        var z = random
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
      }
      var server = try PostgresGameServer(database: postgres.connectionString)
      let run = TableRun(port: server.port)
      let tables = Self.startTables(100, seed: seed, run: run)
      for kill in 1...10 {
        // A seeded point: after 20 to 219 more acknowledged moves, with moves in flight.
        let target = run.acknowledgedCount + 20 + Int(next() % 200)
        let reached = await run.wait { $0.acknowledged >= target }
        #expect(
          reached,
          "kill \(kill): the tables stopped at \(run.acknowledgedCount) of \(target) moves")
        server.kill()
        try Self.checkJournal(postgres.connectionString, against: run, after: "kill \(kill)")
        server = try PostgresGameServer(database: postgres.connectionString)
        run.restarted(on: server.port)
      }
      // The players rejoin once more, and every table plays its game to the end.
      run.finish()
      #expect(await Self.ended(tables), "the tables did not finish their games")
      let (status, log) = server.stop()
      #expect(status == 0, "the server's log:\n\(log)")
      try Self.checkJournal(postgres.connectionString, against: run, after: "the end")
      #expect(run.problems == [])
      #expect(run.gamesFinished >= 100)
      print(
        "PostgresGameServerTests: \(run.acknowledgedCount) acknowledged moves, "
          + "\(run.gamesFinished) games finished")
    }
  }

  @Test func whileItsDatabaseIsStoppedTheServerAcknowledgesNothingAndResumesAfter() async throws {
    try await ThrowawayPostgres.with { postgres in
      let server = try PostgresGameServer(database: postgres.connectionString)
      let run = TableRun(port: server.port)
      let tables = Self.startTables(10, seed: 7, run: run)
      #expect(await run.wait { $0.acknowledged >= 30 })

      run.setDatabase(.stopping)
      try postgres.stopServer()
      run.setDatabase(.stopped)
      let before = run.acknowledgedCount
      // Clients are told: an `unavailable` error (then `bye`) where an acknowledgement waited.
      #expect(await run.wait { $0.unavailableFrames >= 1 }, "no client was told")
      run.setDatabase(.starting)
      try postgres.startServer()
      run.setDatabase(.up)

      // Players rejoin and play on.
      #expect(await run.wait { $0.acknowledged >= before + 30 }, "the server did not resume")
      run.finish()
      #expect(await Self.ended(tables), "the tables did not finish their games")
      let (status, log) = server.stop()
      #expect(status == 0, "the server's log:\n\(log)")
      #expect(log.contains("the database is unavailable"))
      #expect(log.contains("connected again"))
      try Self.checkJournal(postgres.connectionString, against: run, after: "the outage")
      #expect(run.problems == [])
    }
  }
}
