import Foundation
import Testing

@testable import PostgresActionLog

/// Leases on partitions, against a throwaway PostgreSQL: who is granted, when, with which epoch,
/// and expiry on the database's clock.
@Suite(.serialized) struct PartitionLeasesTests {
  /// The partition's row as a separate connection reads it: holder and epoch.
  static func row(
    _ partition: Int, _ server: ThrowawayPostgres
  ) throws -> (holder: String?, epoch: Int64)? {
    let connection = try PostgresConnection(server.connectionString)
    let rows = try connection.execute(
      "SELECT holder, epoch::text FROM unidirectional_partition_leases WHERE partition = $1",
      [.text(String(partition))]
    ).rows
    guard let row = rows.first, let epoch = row[1].flatMap(PartitionLeases.integer) else {
      return nil
    }
    return (row[0].map { String(decoding: $0, as: UTF8.self) }, epoch)
  }

  /// Returns once `partition`'s lease has expired on the database's clock: the database itself
  /// sleeps until the row's `expires_at` (plus a few milliseconds, so that `clock_timestamp()`
  /// is past it whatever the rounding).
  static func waitUntilExpired(_ partition: Int, _ server: ThrowawayPostgres) throws {
    let connection = try PostgresConnection(server.connectionString)
    // wall-clock: the database's clock, which the lease's expiry is measured on: the subject
    // of the test. Leases here last 1 s.
    _ = try connection.execute(
      "SELECT pg_sleep_until(expires_at + interval '5 milliseconds') "
        + "FROM unidirectional_partition_leases WHERE partition = $1",
      [.text(String(partition))])
  }

  static func lease(_ claim: PartitionLeases.Claim) -> PartitionLeases.Lease? {
    guard case .granted(let lease) = claim else { return nil }
    return lease
  }

  @Test func claimRenewReleaseAndExpiryOnTheDatabasesClock() async throws {
    try await ThrowawayPostgres.with { server in
      let a = try PartitionLeases(
        connectionString: server.connectionString, holder: "shard-a", leaseTime: .seconds(1))
      let b = try PartitionLeases(
        connectionString: server.connectionString, holder: "shard-b", leaseTime: .seconds(1))

      // A free partition is granted, with the first epoch.
      let first = try #require(Self.lease(a.claim(3)))
      #expect(first.partition == 3 && first.holder == "shard-a" && first.epoch == 1)
      #expect(try Self.row(3, server)?.holder == "shard-a")

      // Another holder cannot claim an unexpired lease: it learns who holds it, and for how long.
      guard case .held(let holder, let epoch, let expiresIn) = try b.claim(3) else {
        Issue.record("shard-b was granted a lease shard-a holds")
        return
      }
      #expect(holder == "shard-a" && epoch == 1)
      #expect(expiresIn > .zero && expiresIn <= .seconds(1))
      #expect(try Self.row(3, server)?.epoch == 1)

      // Renewal keeps the epoch and moves the local deadline on.
      let renewed = try #require(try a.renew(first))
      #expect(renewed.epoch == 1 && renewed.validUntil > first.validUntil)

      // Once the lease expired on the database's clock, another holder claims it: epoch 2.
      try Self.waitUntilExpired(3, server)
      let second = try #require(Self.lease(b.claim(3)))
      #expect(second.holder == "shard-b" && second.epoch == 2)
      // The previous holder can neither renew nor release it any more.
      #expect(try a.renew(first) == nil)
      #expect(try a.release(first) == false)
      #expect(try Self.row(3, server)?.holder == "shard-b")

      // Released, it is free at once (no waiting for its expiry), and the next grant is epoch 3.
      #expect(try b.release(second))
      #expect(try Self.row(3, server).map { $0.holder == nil && $0.epoch == 2 } == true)
      let third = try #require(Self.lease(a.claim(3)))
      #expect(third.epoch == 3)

      // A claim of one's own lease is a new grant too: it fences one's own earlier appends.
      let fourth = try #require(Self.lease(a.claim(3)))
      #expect(fourth.epoch == 4)
      #expect(try a.renew(third) == nil)
      guard case .held(by: "shard-a", epoch: 4, _) = try b.claim(3) else {
        Issue.record("shard-b was granted a lease shard-a holds")
        return
      }

      // Expired but claimed by nobody since: the epoch proves no other grant, so it renews.
      try Self.waitUntilExpired(3, server)
      let kept = try #require(try a.renew(fourth))
      #expect(kept.epoch == 4)
      guard case .held(by: "shard-a", epoch: 4, _) = try b.claim(3) else {
        Issue.record("shard-b was granted a lease shard-a renewed")
        return
      }

      // Partitions are independent.
      let other = try #require(Self.lease(b.claim(4)))
      #expect(other.epoch == 1 && other.holder == "shard-b")
      #expect(try Self.row(3, server)?.epoch == 4)
    }
  }

  @Test func aGamesPartitionIsFNV1aOfItsBytesModuloTheCount() {
    // The published FNV-1a 32-bit values: "" 0x811c9dc5, "a" 0xe40c292c, "foobar" 0xbf9cf968.
    #expect(PartitionLeases.partition(ofGame: "", partitionCount: 1000) == 0x811c_9dc5 % 1000)
    #expect(PartitionLeases.partition(ofGame: "a", partitionCount: 1000) == 0xe40c_292c % 1000)
    #expect(
      PartitionLeases.partition(ofGame: "foobar", partitionCount: 1000) == 0xbf9c_f968 % 1000)
    #expect(PartitionLeases.partition(ofGame: "a", partitionCount: 16) == 12)
    #expect(PartitionLeases.partition(ofGame: "anything", partitionCount: 1) == 0)
    // Game ids spread over the partitions.
    var counts = Array(repeating: 0, count: 8)
    for game in 0..<8000 {
      counts[PartitionLeases.partition(ofGame: "game-\(game)", partitionCount: 8)] += 1
    }
    #expect(counts.allSatisfy { (800...1200).contains($0) }, "\(counts)")
  }
}
