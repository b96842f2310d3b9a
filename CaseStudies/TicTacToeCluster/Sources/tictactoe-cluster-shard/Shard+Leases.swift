import Foundation
import PostgresActionLog
import TicTacToeServerCore

// The lease thread: every third of the lease time it announces the shard, renews its leases,
// and shares the partitions with the other live shards (claiming free ones up to its share,
// giving back those above it); in between, every 25 ms, it drops a partition whose journal
// stopped (fenced, mostly) or whose lease ran out on this shard's clock.

extension Shard {
  /// Starts the lease thread; its first round runs at once.
  func startLeases() {
    let thread = Thread { [self] in
      runLeases()
      ended.signal()
    }
    thread.name = "leases"
    thread.start()
  }

  /// Ends the lease thread's loop, and waits for it.
  func stopLeases() {
    stopping.store(true, ordering: .releasing)
    wake.signal()
    ended.wait()
  }

  private func runLeases() {
    var nextRound = ContinuousClock.now
    var failing = false
    var nextMatches = ContinuousClock.now
    while !stopping.load(ordering: .acquiring) {
      checkPartitions()
      // While players wait here, every tick; otherwise once a second, in case a count was
      // missed.
      if !waiting.withLock(\.isEmpty) || ContinuousClock.now >= nextMatches {
        nextMatches = ContinuousClock.now + .seconds(1)
        try? deliverMatches()
        rejoinWaitingPlayers()
      }
      if ContinuousClock.now >= nextRound {
        nextRound = ContinuousClock.now + options.leaseTime / 3
        do throws(PartitionLeases.Failure) {
          try round()
          if failing { process.log("the lease table answers again") }
          failing = false
        } catch {
          if !failing {
            process.log(
              "warning: the lease table cannot be read or written (\(error)); the partitions "
                + "held are served until their leases run out unless a renewal succeeds. "
                + "Check the database")
          }
          failing = true
        }
      }
      _ = wake.wait(timeout: .now() + .milliseconds(25))
    }
  }

  /// Drops each partition whose journal stopped, or whose lease ran out on this shard's clock
  /// without a renewal.
  private func checkPartitions() {
    for partition in served.withLock({ Array($0.values) }) {
      let lease = partition.lease.withLock { $0 }
      if let failure = partition.journal.log.failure {
        if case .fenced = failure.reason {
          drop(
            partition, because: "its journal was fenced (\(failure))",
            advice: "Nothing to do: the lease's new holder serves these games. If it happens "
              + "often, this shard pauses longer than its lease (--lease): look at its machine",
            release: false)
        } else {
          broken.withLock { _ = $0.insert(partition.number) }
          drop(
            partition, because: "its journal failed (\(failure))",
            advice: "This shard leaves the partition alone until restarted; the lease is given "
              + "back. Look at the journal '\(partition.logName)' in unidirectional_log_lines",
            release: true)
        }
      } else if ContinuousClock.now >= lease.validUntil {
        drop(
          partition,
          because: "its lease ran out without a renewal (epoch \(lease.epoch))",
          advice: "Another shard may take it; this one claims it again if it is free. If it "
            + "happens often, the database answers too slowly for --lease",
          release: false)
      }
    }
  }

  /// One round: announce, renew, share.
  private func round() throws(PartitionLeases.Failure) {
    try leases.announce(address: address.withLock { $0 })
    for partition in served.withLock({ Array($0.values) }) {
      let lease = partition.lease.withLock { $0 }
      guard ContinuousClock.now < lease.validUntil else { continue }  // checkPartitions drops it
      if let renewed = try leases.renew(lease) {
        partition.lease.withLock { $0 = renewed }
      } else {
        drop(
          partition, because: "its lease (epoch \(lease.epoch)) was granted to another holder",
          advice: "Nothing to do: the new holder serves these games. If it happens often, "
            + "lengthen --lease or look at this machine's pauses", release: false)
      }
    }
    // Rows of dead shards: never taken (joins take live shards' rows only); removed here,
    // after the renewals, and skipping rows a join holds (a lease thread never waits on one).
    let purged = try leases.purgeLobby()
    if purged > 0 { process.log("lobby: \(purged) rows of shards no longer live removed") }
    let survey = try leases.survey()
    let live = survey.liveHolders.union([options.name]).count
    let count = options.partitions
    let share = (count + live - 1) / live
    let held = served.withLock { $0.keys.sorted() }
    if held.count > share {
      for number in held.suffix(held.count - share) {
        guard let partition = served.withLock({ $0[number] }) else { continue }
        drop(
          partition,
          because: "handed over: \(live) live shards share \(count) partitions, \(share) each "
            + "at most", advice: "Nothing to do: another shard takes it.", release: true)
      }
      return
    }
    guard held.count < share else { return }
    let refused = broken.withLock { $0 }
    // Each shard starts looking at its own place, so that shards starting together seldom
    // claim the same partitions.
    let start = PartitionLeases.partition(ofGame: options.name, partitionCount: count)
    var wanted = share - held.count
    for offset in 0..<count where wanted > 0 {
      let number = (start + offset) % count
      guard !held.contains(number), !refused.contains(number) else { continue }
      // Free, or held under this shard's name by a previous run (or before a drop): a new
      // grant fences whatever that holder still has in flight.
      if let owner = survey.owners[number], owner.holder != options.name { continue }
      if case .granted(let lease) = try leases.claim(number) {
        serve(lease)
        wanted -= 1
      }
    }
  }
}
