import Foundation
import Testing
import TicTacToeServerCore

@testable import PostgresActionLog

#if canImport(Glibc)
  import Glibc
#endif

/// The chaos test of issue 36: PostgreSQL and three `tictactoe-cluster-shard` processes on
/// loopback, 200 clients (100 tables of two) playing games, and a dozen failures: a shard
/// killed (`SIGKILL`) and restarted at once, killed and restarted once the others took its
/// partitions, or paused (`SIGSTOP`) until the others took its partitions and resumed
/// (`SIGCONT`). After each, and at the end: every acknowledged move is in the journals exactly
/// once, every game replays without a refused move, no line of a fenced holder is committed
/// (the ``LeaseLedger``), and at the end every game the clients were seated in has finished.
///
/// Seeded (the seed is printed; `CLUSTER_CHAOS_SEED=N` runs that seed's choices again: which
/// shard, which failure, the tables' moves). Every wait is for a fact (a count of
/// acknowledgements, the lease table, a shard's log line), bounded only as a failure bound.
@Suite(.serialized) struct ClusterChaosTests {
  static let partitions = 12
  static let shardNames = ["s1", "s2", "s3"]
  static let tables = 100
  static let events = 12
  static let lease = 2.0

  /// The failures, in the order drawn.
  enum Event: String, CaseIterable {
    case killAndRestart = "kill -9, restarted at once"
    case killAndTakeOver = "kill -9, restarted once the others took its partitions"
    case pauseAndResume = "SIGSTOP until the others took its partitions, then SIGCONT"
  }

  /// A splitmix64 generator, so that a seed replays the same choices.
  struct Random {
    var state: UInt64
    mutating func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
    mutating func below(_ count: Int) -> Int { Int(next() % UInt64(count)) }
  }

  /// The shards of the run: the process serving each name now, and how many it has run.
  final class Cluster {
    let ledger: LeaseLedger
    let tables: ClusterTables
    let run: ChaosRun
    var shards: [String: ClusterShard] = [:]
    var runs: [String: Int] = [:]

    init(ledger: LeaseLedger, run: ChaosRun) {
      self.ledger = ledger
      self.tables = ClusterTables(connectionString: ledger.connectionString)
      self.run = run
    }

    /// Starts (or restarts) shard `name` as a new process with its own ledger name.
    func start(_ name: String) throws {
      let number = runs[name, default: 0] + 1
      runs[name] = number
      let shard = try ClusterShard(
        name: name, database: ledger.connectionString(for: "\(name).\(number)"),
        partitions: ClusterChaosTests.partitions, lease: ClusterChaosTests.lease)
      shards[name] = shard
      run.up(name, port: shard.port)
    }

    /// Waits until every partition is leased, each shard holds its share, and each holder's
    /// process has logged serving it under the lease's epoch (its games recovered).
    func waitUntilSettled() throws -> Bool {
      let share = ClusterChaosTests.partitions / ClusterChaosTests.shardNames.count
      return try tables.waitForLeases(within: .seconds(90)) { holders in
        guard holders.count == ClusterChaosTests.partitions,
          ClusterChaosTests.shardNames.allSatisfy({ name in
            holders.values.filter { $0.holder == name }.count == share
          })
        else { return false }
        return holders.allSatisfy { partition, lease in
          shards[lease.holder]?.log.contains(
            "partition \(partition): serving under epoch \(lease.epoch);") == true
        }
      }
    }

    /// Waits until the shards other than `name` hold every partition (its leases expired and
    /// were taken).
    func waitUntilTakenOver(from name: String) throws -> Bool {
      try tables.waitForLeases(within: .seconds(90)) { holders in
        holders.count == ClusterChaosTests.partitions
          && holders.values.allSatisfy { $0.holder != name }
      }
    }
  }

  /// Checks what the database holds against what the clients were told: every acknowledged
  /// move in the journals once, no move twice, every game replaying without a refused move, no
  /// seated game forfeited (no seated client leaves), every game a rejoin found gone over in the
  /// journal, and no line written under an epoch not granted to its writer. Returns the
  /// journals' games, each with whether it finished.
  @discardableResult
  static func check(
    _ cluster: Cluster, after: String
  ) throws -> [String: Bool] {
    // Read before the journals: whatever was acknowledged by then was committed by then.
    let seen = cluster.run.snapshot
    var stored: [StoredJournal.Move: Int] = [:]
    var finished: [String: Bool] = [:]
    var refused: [String] = []
    var forfeits: [String] = []
    for log in try cluster.ledger.journals() {
      let journal = try StoredJournal.read(cluster.ledger.connectionString, log: log)
      stored.merge(journal.moves, uniquingKeysWith: +)
      refused += journal.refusedOnReplay
      for (game, actions) in journal.games {
        var state = GameRoom.State(id: game, xName: "x", oName: "o")
        for action in actions {
          if case .forfeit = action { forfeits.append(game) }
          _ = GameRoom().reduce(into: &state, action: action)
        }
        finished[game] = state.outcome != nil
      }
    }
    let missing = seen.acknowledged.filter { stored[$0] != 1 }
    let twice = stored.filter { $0.value > 1 }
    #expect(missing.isEmpty, "after \(after): acknowledged, not in the journals once: \(missing)")
    #expect(twice.isEmpty, "after \(after): journaled more than once: \(twice)")
    #expect(refused.isEmpty, "after \(after): \(refused)")
    // A game is forfeited when a player's connection closes while the shard serves it: no
    // seated player ever leaves. (A table that gives up a start before its seats arrive, a
    // failure bound, closes its players: that game may be forfeited, never having been seated.)
    let seatedForfeits = forfeits.filter { seen.seated.contains($0) }
    #expect(seatedForfeits.isEmpty, "after \(after): seated games forfeited: \(seatedForfeits)")
    let notOver = seen.endedUnseen.filter { finished[$0] != true }
    #expect(notOver.isEmpty, "after \(after): games gone from their shard, not over: \(notOver)")
    let fenced = try cluster.ledger.fencedWrites()
    #expect(fenced.isEmpty, "after \(after): lines of a fenced holder committed: \(fenced)")
    let counts = try cluster.ledger.lineCounts()
    #expect(counts.lines == counts.ledger, "after \(after): lines and ledger: \(counts)")
    #expect(cluster.run.problems.isEmpty, "after \(after): \(cluster.run.problems)")
    print(
      "ClusterChaosTests: after \(after): \(seen.acknowledged.count) moves acknowledged, "
        + "\(stored.count) journaled, \(seen.seated.count) games seated, "
        + "\(seen.finished.count) finished (\(seen.endedUnseen.count) seen over only at a rejoin); "
        + "\(cluster.run.rejoins) rejoins, \(forfeits.count - seatedForfeits.count) games never seated forfeited, "
        + "\(cluster.run.redirects) redirects; \(counts.lines) lines, each written under an "
        + "epoch granted to its writer")
    return finished
  }

  @Test func threeShardsAndTwoHundredClientsSurviveAtLeastTenKillsAndPauses() async throws {
    let seed =
      ProcessInfo.processInfo.environment["CLUSTER_CHAOS_SEED"].flatMap { UInt64($0) }
      ?? UInt64.random(in: 1...999_999)
    print("ClusterChaosTests: seed \(seed) (CLUSTER_CHAOS_SEED=\(seed) draws the same choices)")
    var random = Random(state: seed)
    // wall-clock: the run's duration, printed; never a decision.
    let started = ContinuousClock.now
    try await ThrowawayPostgres.with { postgres in
      let run = ChaosRun()
      let cluster = Cluster(
        ledger: try LeaseLedger(connectionString: postgres.connectionString), run: run)
      for name in Self.shardNames { try cluster.start(name) }
      #expect(try cluster.waitUntilSettled(), "the shards never shared the partitions")

      // Each kind of failure at least three times, in an order drawn from the seed.
      var events = Event.allCases.flatMap { Array(repeating: $0, count: 3) }
      while events.count < Self.events { events.append(Event.allCases[random.below(3)]) }
      for index in events.indices.reversed() { events.swapAt(index, random.below(index + 1)) }

      let threads = (0..<Self.tables).map { number in
        let table = ChaosTable(name: "t\(number)", seed: random.next(), run: run)
        let thread = Thread { table.play() }
        thread.stackSize = 1 << 20
        return thread
      }
      for thread in threads { thread.start() }
      // A failed wait ends the run at once (the tables stop where they are): what follows
      // would only wait out its bounds.
      var failed = false
      func require(_ condition: Bool, _ comment: Comment) {
        #expect(condition, comment)
        if !condition { failed = true }
      }
      require(await run.wait(forAcknowledged: 200, within: 120), "the tables never got going")

      for (number, event) in events.enumerated() where !failed {
        let name = Self.shardNames[random.below(Self.shardNames.count)]
        let description = "event \(number + 1) of \(events.count) (\(name): \(event.rawValue))"
        print("ClusterChaosTests: \(description), \(run.acknowledgedCount) moves acknowledged")
        let shard = try #require(cluster.shards[name])
        switch event {
        case .killAndRestart:
          run.markDown(name)
          shard.kill()
          try cluster.start(name)
        case .killAndTakeOver:
          run.markDown(name)
          shard.kill()
          require(try cluster.waitUntilTakenOver(from: name), "\(description): no takeover")
          try cluster.start(name)
        case .pauseAndResume:
          let held = try cluster.tables.holders().filter { $0.value.holder == name }
          run.markDown(name)
          shard.signal(SIGSTOP)
          require(try cluster.waitUntilTakenOver(from: name), "\(description): no takeover")
          shard.signal(SIGCONT)
          run.up(name, port: shard.port)
          // On resuming, it drops each partition it held (its lease ran out, or its journal
          // was fenced), and says so.
          for (partition, lease) in held {
            require(
              try ClusterShardTests.waitForLog(
                shard, "partition \(partition) dropped (epoch \(lease.epoch))"),
              "\(description): partition \(partition) not dropped")
          }
        }
        if failed { break }
        require(try cluster.waitUntilSettled(), "\(description): the shards never settled")
        // The clients go on: some more moves acknowledged after the failure.
        let target = run.acknowledgedCount + 100
        require(
          await run.wait(forAcknowledged: target, within: 120),
          "\(description): the clients made no progress")
        try Self.check(cluster, after: description)
        if !run.problems.isEmpty { failed = true }
      }
      if failed {
        // What the shards said about their partitions, for the diagnosis.
        for (name, shard) in cluster.shards.sorted(by: { $0.key < $1.key }) {
          for line in shard.log.split(separator: "\n")
          where line.contains("partition") || line.contains("error") {
            print("ClusterChaosTests: \(name): \(line)")
          }
        }
        run.abort()
        _ = await run.wait(forAcknowledged: nil, within: 60)
        return
      }

      // The tables play their games to their end, then stop.
      run.finish()
      #expect(await run.wait(forAcknowledged: nil, within: 180), "the tables never finished")
      let finished = try Self.check(cluster, after: "the end")
      let seen = run.snapshot
      let unfinished = seen.seated.filter { finished[$0] != true }
      #expect(unfinished.isEmpty, "seated games not finished in the journals: \(unfinished)")
      #expect(
        seen.seated == seen.finished.union(seen.endedUnseen), "games the clients did not see end")
      #expect(seen.seated.count >= Self.tables)

      // A clean stop commits everything and gives the leases back.
      for name in Self.shardNames {
        #expect(cluster.shards[name]?.stop() == 0, "\(name) did not stop cleanly")
      }
      try Self.check(cluster, after: "the shards stopped")
      #expect(try cluster.tables.holders().isEmpty)
    }
    // wall-clock: the run's duration, printed; never a decision.
    print("ClusterChaosTests: seed \(seed): done in \(ContinuousClock.now - started)")
  }
}
