import Foundation
import Testing
import Unidirectional

@testable import PostgresActionLog

/// Logs written under a partition's lease: once another holder is granted the partition,
/// nothing of the previous holder commits, and the other logs of its rounds are not held up.
@Suite(.serialized) struct FencedAppendTests {
  typealias Base = PostgresActionLogDatabaseTests
  typealias Leases = PartitionLeasesTests

  /// Opens `name` in `database`, written under `lease` if one is given.
  static func open(
    _ name: String, in database: PostgresActionLogDatabase, committer: ActionLogCommitter,
    fencedBy lease: PartitionLeases.Lease?
  ) throws -> (Store<Base.State, Base.Action>, DurableActionLog<Base.Action>) {
    let recovery = try database.recover(
      log: name, program: "tests", initialState: Base.State(), reducer: Base.feature,
      committer: committer, fencedBy: lease)
    let store = Store(
      initialState: recovery.state, reducer: Base.feature,
      interceptors: [recovery.log.interceptor()])
    return (store, recovery.log)
  }

  /// Sends `action` and starts waiting for it to be durable: the task's value is the failure
  /// its waiter received, `nil` once it is acknowledged.
  static func send(
    _ action: Base.Action, to store: Store<Base.State, Base.Action>,
    _ log: DurableActionLog<Base.Action>
  ) -> Task<ActionLogError?, Never> {
    let sent = store.send(action)
    return Task {
      do throws(ActionLogError) {
        try await log.waitUntilDurable(sent)
        return nil
      } catch {
        return error
      }
    }
  }

  static func isFenced(_ error: ActionLogError?) -> Bool {
    guard let error, case .fenced = error.reason else { return false }
    return true
  }

  /// The test issue 36 asks for: shard A holds partition 7 and has a round in flight (held
  /// before its transaction begins); A's lease expires, shard B claims the partition (the next
  /// epoch), recovers its two games and appends to one; then A's round goes on.
  ///
  /// The oracle: no line of a fenced holder is committed, that is, the lines stored for the
  /// partition's games are exactly those committed before B's claim and those B wrote. Run with
  /// the fencing check, it holds and A's waiter is told it was fenced; run without it (the
  /// test-only switch), the same oracle must see A's line committed, which proves it catches
  /// the break, and B's next append then finds another writer's bytes in its log.
  @Test(arguments: [true, false])
  func aFencedHoldersRoundCommitsNothing(checkingFences: Bool) async throws {
    try await ThrowawayPostgres.with { server in
      let partition = 7
      let leasesA = try PartitionLeases(
        connectionString: server.connectionString, holder: "shard-a", leaseTime: .seconds(1))
      let leasesB = try PartitionLeases(
        connectionString: server.connectionString, holder: "shard-b", leaseTime: .seconds(60))
      let databaseA = try Base.database(server)
      let databaseB = try Base.database(server)
      let committerA = ActionLogCommitter(name: "shard-a", concurrentFlushes: 1)
      let committerB = ActionLogCommitter(name: "shard-b", concurrentFlushes: 1)

      // Shard A serves games g1 and g2 of the partition.
      let leaseA = try #require(Leases.lease(leasesA.claim(partition)))
      let (a1, logA1) = try Self.open("g1", in: databaseA, committer: committerA, fencedBy: leaseA)
      let (a2, logA2) = try Self.open("g2", in: databaseA, committer: committerA, fencedBy: leaseA)
      for move in 1...2 {
        try await logA1.waitUntilDurable(a1.send(.move(move)))
        try await logA2.waitUntilDurable(a2.send(.move(move)))
      }
      let commitsOfA = databaseA.commitCount

      // A's next round is held in flight, before its transaction begins.
      let gate = RoundGate()
      databaseA.withState { state in
        state.beforeRound = gate.hook
        state.checksFences = checkingFences
      }
      let inFlight = Self.send(.move(100), to: a2, logA2)
      #expect(await gate.waitForARound())

      // A's lease expires on the database's clock; B claims the partition and serves it.
      try Leases.waitUntilExpired(partition, server)
      let leaseB = try #require(Leases.lease(leasesB.claim(partition)))
      #expect(leaseB.epoch == leaseA.epoch + 1)
      let (b1, logB1) = try Self.open("g1", in: databaseB, committer: committerB, fencedBy: leaseB)
      let (b2, logB2) = try Self.open("g2", in: databaseB, committer: committerB, fencedBy: leaseB)
      #expect(b1.state.moves == [1, 2] && b2.state.moves == [1, 2])
      try await logB1.waitUntilDurable(b1.send(.move(200)))
      // What the partition may hold from now on: what was committed before B's claim, and B's.
      let allowed = ["g1": [0, 1, 2, 3], "g2": [0, 1, 2]]

      // A's round goes on.
      gate.open()
      let failure = await inFlight.value
      let stored = [
        "g1": try Base.storedSequences("g1", server), "g2": try Base.storedSequences("g2", server),
      ]
      let fencedLinesCommitted = stored != allowed
      #expect(fencedLinesCommitted == !checkingFences, "stored: \(stored)")

      if checkingFences {
        // A's waiter learns it was fenced, by whom; its log stays failed, and A's other game of
        // the partition is fenced at its next round, with nothing written either.
        #expect(Self.isFenced(failure), "\(String(describing: failure))")
        #expect(failure?.description.contains("epoch \(leaseB.epoch), held by shard-b") == true)
        #expect(Self.isFenced(logA2.failure))
        #expect(databaseA.commitCount == commitsOfA)
        #expect(Self.isFenced(await Self.send(.move(101), to: a1, logA1).value))
        #expect(Self.isFenced(logA1.failure))
        #expect(Self.isFenced(await Self.send(.move(102), to: a2, logA2).value))
        #expect(try Base.storedSequences("g1", server) == allowed["g1"])
        #expect(try Base.storedSequences("g2", server) == allowed["g2"])
        #expect(databaseA.commitCount == commitsOfA)
        // B serves the partition on.
        try await logB2.waitUntilDurable(b2.send(.move(201)))
        #expect(try Base.storedSequences("g2", server) == [0, 1, 2, 3])
      } else {
        // Without the check, A's move was acknowledged after B took the partition: split
        // brain. B's next append to that game collides with A's line.
        #expect(failure == nil)
        let collision = await Self.send(.move(201), to: b2, logB2).value
        guard case .fileError(let message) = collision?.reason else {
          Issue.record(
            "expected B's append to collide with A's line, got \(String(describing: collision))")
          return
        }
        #expect(message.contains("another process writes the same log"))
      }
    }
  }

  /// A claim waits for the rounds under way under the current epoch: shard A's round holds its
  /// transaction open after the fence check (the lease's row locked `FOR SHARE`) while A's
  /// lease expires and shard B claims. B's `FOR UPDATE` waits until A's round ends; A's line,
  /// committed before the grant, is acknowledged, and B recovers it.
  @Test func aClaimWaitsForTheRoundsUnderwayUnderTheCurrentEpoch() async throws {
    try await ThrowawayPostgres.with { server in
      let partition = 5
      let leasesA = try PartitionLeases(
        connectionString: server.connectionString, holder: "shard-a", leaseTime: .seconds(1))
      let leasesB = try PartitionLeases(
        connectionString: server.connectionString, holder: "shard-b", leaseTime: .seconds(60))
      let databaseA = try Base.database(server)
      let committerA = ActionLogCommitter(name: "shard-a", concurrentFlushes: 1)
      let leaseA = try #require(Leases.lease(leasesA.claim(partition)))
      let (a, logA) = try Self.open("g", in: databaseA, committer: committerA, fencedBy: leaseA)
      try await logA.waitUntilDurable(a.send(.move(1)))

      let gate = RoundGate()
      databaseA.withState { $0.afterFenceCheck = gate.hook }
      let inFlight = Self.send(.move(2), to: a, logA)
      #expect(await gate.waitForARound())
      try Leases.waitUntilExpired(partition, server)

      let claim = Self.onAThread { try leasesB.claim(partition) }
      // The claim's backend waits for the round's lock on the lease's row.
      let admin = try PostgresConnection(server.connectionString)
      var waiting = 0
      // wall-clock: a failure bound; a passing run sees the wait within milliseconds.
      let deadline = ContinuousClock.now + .seconds(60)
      while waiting == 0, ContinuousClock.now < deadline {
        waiting =
          try admin.execute(
            "SELECT count(*)::text FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
          ).rows.first?[0].flatMap(PostgresActionLogDatabase.integer) ?? 0
        // wall-clock: the pace of the poll, not a decision.
        if waiting == 0 { try await Task.sleep(for: .milliseconds(5)) }
      }
      #expect(waiting == 1)

      gate.open()
      #expect(await inFlight.value == nil)
      let leaseB = try #require(Leases.lease(try await claim.value))
      #expect(leaseB.epoch == leaseA.epoch + 1)
      #expect(try Base.storedSequences("g", server) == [0, 1, 2])
      let recovery = try Base.database(server).recover(
        log: "g", program: "tests", initialState: Base.State(), reducer: Base.feature,
        committer: ActionLogCommitter(name: "shard-b", concurrentFlushes: 1), fencedBy: leaseB)
      #expect(recovery.state.moves == [1, 2])
      // A's next round is fenced.
      #expect(Self.isFenced(await Self.send(.move(3), to: a, logA).value))
    }
  }

  /// A log closed (a shard dropping its partition) while a round holding its lines waited
  /// before its transaction: the round's waiter is told the log was closed, never that its
  /// line is durable, and nothing is written. (The flush took the missing log for one with
  /// nothing staged and acknowledged the line.)
  @Test func aLogClosedWhileItsRoundWaitsAcknowledgesNothing() async throws {
    try await ThrowawayPostgres.with { server in
      let database = try Base.database(server)
      let committer = ActionLogCommitter(concurrentFlushes: 1)
      let (store, log) = try Self.open("c", in: database, committer: committer, fencedBy: nil)
      try await log.waitUntilDurable(store.send(.move(1)))
      let gate = RoundGate()
      database.withState { $0.beforeRound = gate.hook }
      let held = Self.send(.move(2), to: store, log)
      #expect(await gate.waitForARound())
      database.close(log: "c", because: "the partition is dropped")
      gate.open()
      let failure = await held.value
      #expect(Self.isFenced(failure), "\(String(describing: failure))")
      #expect(try Base.storedSequences("c", server) == [0, 1])
    }
  }

  /// Runs `body` on a thread of Dispatch's (it blocks on the database), not on one of the
  /// concurrency pool.
  static func onAThread<T: Sendable>(
    _ body: @escaping @Sendable () throws -> T
  ) -> Task<T, any Error> {
    Task {
      try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
      }
    }
  }

  /// One round holds lines of a fenced log and of a log with no lease: the unfenced one
  /// commits, in that round's transaction, and only the fenced one's waiters fail.
  @Test func aRoundMixingAFencedLogCommitsTheOthersAndFailsOnlyItsWaiters() async throws {
    try await ThrowawayPostgres.with { server in
      let leases = try PartitionLeases(
        connectionString: server.connectionString, holder: "shard-a", leaseTime: .seconds(60))
      let others = try PartitionLeases(
        connectionString: server.connectionString, holder: "shard-b", leaseTime: .seconds(60))
      let database = try Base.database(server)
      let committer = ActionLogCommitter(concurrentFlushes: 1)
      let lease = try #require(Leases.lease(leases.claim(2)))
      let (fenced, fencedLog) = try Self.open(
        "f", in: database, committer: committer, fencedBy: lease)
      let (free, freeLog) = try Self.open("u", in: database, committer: committer, fencedBy: nil)
      let (pacer, pacerLog) = try Self.open("p", in: database, committer: committer, fencedBy: nil)
      // While the lease holds, the fenced log commits like the others.
      try await fencedLog.waitUntilDurable(fenced.send(.move(1)))
      try await freeLog.waitUntilDurable(free.send(.move(1)))
      try await pacerLog.waitUntilDurable(pacer.send(.move(1)))
      #expect(try Base.storedSequences("f", server) == [0, 1])

      // The partition is given up and granted to another.
      #expect(try leases.release(lease))
      #expect(Leases.lease(try others.claim(2))?.epoch == lease.epoch + 1)

      // A round of the pacer is held while f and u append: their lines wait for the next round,
      // together.
      let gate = RoundGate()
      database.withState { $0.beforeRound = gate.hook }
      let paced = Self.send(.move(2), to: pacer, pacerLog)
      #expect(await gate.waitForARound())
      let fencedMove = Self.send(.move(2), to: fenced, fencedLog)
      let freeMove = Self.send(.move(2), to: free, freeLog)
      // Both are appended (a store reduces at `send`) before the held round goes on.
      #expect(fencedLog.recordedCount == 2 && freeLog.recordedCount == 2)
      let commits = database.commitCount
      gate.open()

      #expect(await paced.value == nil)
      let fencedFailure = await fencedMove.value
      #expect(Self.isFenced(fencedFailure), "\(String(describing: fencedFailure))")
      #expect(fencedFailure?.description.contains("epoch 2, held by shard-b") == true)
      #expect(await freeMove.value == nil)
      #expect(gate.rounds.dropFirst().first == ["f", "u"])
      // The pacer's round and the mixed one: one transaction each.
      #expect(database.commitCount == commits + 2)
      #expect(try Base.storedSequences("f", server) == [0, 1])
      #expect(try Base.storedSequences("u", server) == [0, 1, 2])
      #expect(Self.isFenced(fencedLog.failure))
      #expect(freeLog.failure == nil)
      // The unfenced log goes on; the fenced one stays failed.
      try await freeLog.waitUntilDurable(free.send(.move(3)))
      #expect(Self.isFenced(await Self.send(.move(3), to: fenced, fencedLog).value))
      #expect(try Base.storedSequences("u", server) == [0, 1, 2, 3])
      #expect(try Base.storedSequences("f", server) == [0, 1])
    }
  }
}
