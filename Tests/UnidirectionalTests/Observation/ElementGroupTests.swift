import Testing

@testable import Unidirectional

@Suite struct ElementGroupTests {
  /// The group's table indexes probes by the id's hash without running `Hasher` again. Ids whose
  /// `hashValue` is not `Hasher`'s (a type that implements `hashValue` itself, an `NSObject`)
  /// can give hashes that differ only in their high bits: they must still spread over the
  /// table's buckets, or every insertion and look-up walks one long run.
  @Test func hashesThatDifferOnlyInTheirHighBitsSpreadOverTheBuckets() {
    let buckets = 1_024
    for seed in [0, 0x5eed, -1] {
      let used = Set(
        (0..<buckets).map { IDHashKey($0 &<< 20)._rawHashValue(seed: seed) & (buckets - 1) })
      // Random placement of 1,024 keys in 1,024 buckets fills about 647 of them.
      #expect(used.count > 550, "seed \(seed): \(used.count) buckets used")
    }
  }

  /// Equal keys hash equally, whatever the table's seed.
  @Test func equalKeysHashEqually() {
    for hash in [0, 1, -1, Int.max, Int.min, 42 &<< 40] {
      #expect(IDHashKey(hash) == IDHashKey(hash))
      #expect(IDHashKey(hash)._rawHashValue(seed: 7) == IDHashKey(hash)._rawHashValue(seed: 7))
    }
  }
}
