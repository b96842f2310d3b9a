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

  /// Integer ids are filed under their own bits (no `Hasher`), every other id under its
  /// `hashValue`: equal ids must get equal hashes either way, and consecutive integer ids, the
  /// common case, must still spread over the table once the group mixes them.
  @Test func integerIDsAreFiledUnderTheirBitsAndOthersUnderTheirHash() {
    #expect(elementIDHash(42) == 42)
    #expect(elementIDHash(-1 as Int64) == -1)
    #expect(elementIDHash(UInt32.max) == Int(UInt32.max))
    #expect(elementIDHash(Int32(-1)) == elementIDHash(Int32(-1)))
    #expect(elementIDHash("row") == "row".hashValue)
    let buckets = 1_024
    let used = Set(
      (0..<buckets).map { IDHashKey(elementIDHash($0))._rawHashValue(seed: 0x5eed) & (buckets - 1) }
    )
    #expect(used.count > 550, "\(used.count) buckets used")
  }
}
