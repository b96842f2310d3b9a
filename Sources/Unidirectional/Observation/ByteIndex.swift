#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Finds, after an action, the stored probes whose bytes in the state changed.
///
/// Probes of stored properties know the bytes their value lives in. Those bytes are indexed by
/// 64-byte block, and a bit-for-bit snapshot of the observed blocks is kept. After an action, the
/// observed blocks are compared with the snapshot in one pass (`memcmp` of 1 KiB chunks, then of
/// the blocks of a chunk that differs), and only the probes in blocks that differ are looked at.
/// Unchanged bytes prove an unchanged value because every probe keeps its last value:
/// copy-on-write storage the bytes point to is shared with the probe, so the reducer could not
/// have mutated it in place.
///
/// Owned, like the graph, by the thread that owns the store.
struct ByteIndex {
  /// Bytes per block of the index (a cache line). A computed constant, not a `static let`, so it
  /// folds into the code instead of costing a lazy-initialization check per use.
  @inline(__always) static var blockSize: Int { 64 }

  /// Bytes compared by one `memcmp` before looking at single blocks.
  @inline(__always) static var chunkSize: Int { 1024 }

  /// The size of the state in bytes.
  let stateSize: Int

  /// For each block of the state, the probes whose bytes overlap it.
  private var probesByBlock: [[Probe]]

  /// Runs of consecutive observed blocks, `observedRuns[0..<observedRunCount]`, rebuilt when
  /// the set of observed blocks changes. In `snapshot`'s memory.
  private var observedRuns: UnsafeMutablePointer<Range<Int>>?
  private var observedRunCount = 0
  private var observedRunsAreStale = false

  /// The state's observed bytes as of the last pass, and the pass's scratch lists; `nil` while
  /// no probe is indexed.
  private var snapshot: ByteSnapshot? {
    didSet {
      snapshotBytes = snapshot?.bytes
      observedRuns = snapshot?.observedRuns
      changedBlocks = snapshot?.changedBlocks
      observedRunCount = 0
      observedRunsAreStale = true
    }
  }
  /// `snapshot`'s bytes, read on the per-action path without retaining the snapshot (as are
  /// `observedRuns` and `changedBlocks`: an array's storage would be retained and released on
  /// every pass).
  private var snapshotBytes: UnsafeMutableRawPointer?

  /// The number of probes indexed.
  private(set) var count = 0

  /// Counts passes, so that a probe in several changed blocks is looked at once per pass.
  private var pass: UInt64 = 0

  /// Scratch list of changed blocks, `changedBlocks[0..<changedCount]`, in `snapshot`'s memory
  /// (room for every block): overwritten on every pass.
  private var changedBlocks: UnsafeMutablePointer<Int>?
  private var changedCount = 0

  init(stateSize: Int) {
    self.stateSize = stateSize
    let blockCount = (stateSize + Self.blockSize - 1) / Self.blockSize
    self.probesByBlock = Array(repeating: [], count: blockCount)
  }

  var isEmpty: Bool { count == 0 }

  /// Passes each indexed probe whose bytes differ from the snapshot to `changed`, once, then
  /// brings the snapshot up to date.
  mutating func forEachProbeWhoseBytesChanged(
    in state: UnsafeRawPointer, _ changed: (Probe) -> Void
  ) {
    guard let snapshot = snapshotBytes else { return }
    pass &+= 1
    if observedRunsAreStale { rebuildObservedRuns() }
    changedCount = 0
    guard let observedRuns, let changedBlocks else { return }
    for index in 0..<observedRunCount {
      findChangedBlocks(
        in: byteRange(ofBlocks: observedRuns[index]), state: state, snapshot: snapshot,
        changedBlocks: changedBlocks)
    }
    let pass = self.pass
    for block in UnsafeBufferPointer(start: changedBlocks, count: changedCount) {
      probesByBlock[block].withUnsafeBufferPointer { probes in
        for index in probes.indices {
          // Lent without a reference: the index does not change during a pass (the graph is
          // busy), and holds its probes.
          Unmanaged.passUnretained(probes[index])._withUnsafeGuaranteedRef { probe in
            guard probe.refreshedAt != pass else { return }
            probe.refreshedAt = pass
            // The block changed, but maybe not this probe's bytes (the snapshot still holds the
            // old state here): then its value did not change either.
            if Self.bytesEqual(state, snapshot, at: probe.byteStart, count: probe.byteCount) {
              return
            }
            changed(probe)
          }
        }
      }
    }
    for block in UnsafeBufferPointer(start: changedBlocks, count: changedCount) {
      let range = byteRange(ofBlock: block)
      memcpy(snapshot + range.lowerBound, state + range.lowerBound, range.count)
    }
  }

  /// Indexes a stored probe whose value was just read from `state`.
  mutating func insert(_ probe: Probe, state: UnsafeRawPointer) {
    let snapshot =
      self.snapshot ?? ByteSnapshot(byteCount: stateSize, blockCount: probesByBlock.count)
    self.snapshot = snapshot
    count += 1
    for block in blocks(of: probe) {
      if probesByBlock[block].isEmpty {
        observedRunsAreStale = true
        // Newly observed bytes: bring the snapshot up to date for them.
        let range = byteRange(ofBlock: block)
        memcpy(snapshot.bytes + range.lowerBound, state + range.lowerBound, range.count)
      }
      probesByBlock[block].append(probe)
    }
  }

  mutating func remove(_ probe: Probe) {
    for block in blocks(of: probe) {
      probesByBlock[block].removeAll { $0 === probe }
      if probesByBlock[block].isEmpty { observedRunsAreStale = true }
    }
    count -= 1
    if count == 0 { snapshot = nil }
  }

  private func blocks(of probe: Probe) -> Range<Int> {
    let end = probe.byteStart + max(probe.byteCount, 1)
    return (probe.byteStart / Self.blockSize)..<((end - 1) / Self.blockSize + 1)
  }

  /// Appends to `changedBlocks` the blocks of `bytes` that differ from the snapshot.
  ///
  /// Each byte is compared once, a chunk at a time; only a chunk that differs is compared again,
  /// block by block.
  private mutating func findChangedBlocks(
    in bytes: Range<Int>, state: UnsafeRawPointer, snapshot: UnsafeMutableRawPointer,
    changedBlocks: UnsafeMutablePointer<Int>
  ) {
    let chunkSize = Self.chunkSize
    var chunkStart = bytes.lowerBound
    let end = bytes.upperBound
    while chunkStart < end {
      let count = Swift.min(chunkSize, end &- chunkStart)
      if memcmp(state + chunkStart, snapshot + chunkStart, count) != 0 {
        findChangedBlocks(
          inChunkAt: chunkStart, count: count, state: state, snapshot: snapshot,
          changedBlocks: changedBlocks)
      }
      chunkStart &+= chunkSize
    }
  }

  /// Appends the blocks of a range that differs from the snapshot (starting at a block, whole
  /// blocks except perhaps the state's last) that differ: by halves, so that one changed block
  /// in a chunk costs a few comparisons rather than one per block.
  private mutating func findChangedBlocks(
    inChunkAt start: Int, count: Int, state: UnsafeRawPointer, snapshot: UnsafeMutableRawPointer,
    changedBlocks: UnsafeMutablePointer<Int>
  ) {
    let blockSize = Self.blockSize
    guard count > blockSize else {
      noteChanged(block: start / blockSize, in: changedBlocks)
      return
    }
    // The first half, rounded up to whole blocks (less than `count`, which exceeds one block).
    let firstCount = (count / 2 &+ blockSize &- 1) / blockSize &* blockSize
    let rest = start &+ firstCount
    if Self.bytesDiffer(state, snapshot, at: start, count: firstCount) {
      findChangedBlocks(
        inChunkAt: start, count: firstCount, state: state, snapshot: snapshot,
        changedBlocks: changedBlocks)
      guard Self.bytesDiffer(state, snapshot, at: rest, count: count &- firstCount) else { return }
    }
    // The whole range differs: if the first half does not, the rest does.
    findChangedBlocks(
      inChunkAt: rest, count: count &- firstCount, state: state, snapshot: snapshot,
      changedBlocks: changedBlocks)
  }

  /// Whether `count` bytes at `offset` differ between the two buffers: one whole block is
  /// compared without a call.
  @inline(__always)
  private static func bytesDiffer(
    _ lhs: UnsafeRawPointer, _ rhs: UnsafeRawPointer, at offset: Int, count: Int
  ) -> Bool {
    if count == blockSize { return !blockEqual(lhs + offset, rhs + offset) }
    return memcmp(lhs + offset, rhs + offset, count) != 0
  }

  /// Appends `block` to `changedBlocks`, which has room for every block (each is noted once
  /// per pass).
  @inline(__always)
  private mutating func noteChanged(block: Int, in changedBlocks: UnsafeMutablePointer<Int>) {
    changedBlocks[changedCount] = block
    changedCount &+= 1
  }

  /// Whether two whole, 64-byte aligned blocks are equal: eight word compares folded together,
  /// no call to `memcmp`. (Blocks start at multiples of 64 from the state's address, which is at
  /// least 16-byte aligned, so the loads are aligned.)
  @inline(__always)
  private static func blockEqual(_ lhs: UnsafeRawPointer, _ rhs: UnsafeRawPointer) -> Bool {
    @inline(__always) func word(_ offset: Int) -> UInt64 {
      lhs.load(fromByteOffset: offset, as: UInt64.self)
        ^ rhs.load(fromByteOffset: offset, as: UInt64.self)
    }
    return (word(0) | word(8) | word(16) | word(24)) | (word(32) | word(40) | word(48) | word(56))
      == 0
  }

  /// Whether `bytes` are the same in both buffers: one load for word-sized values.
  @inline(__always)
  private static func bytesEqual(
    _ lhs: UnsafeRawPointer, _ rhs: UnsafeRawPointer, at offset: Int, count: Int
  ) -> Bool {
    if count == 8 {
      return lhs.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
        == rhs.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
    }
    return memcmp(lhs + offset, rhs + offset, count) == 0
  }

  private func byteRange(ofBlock block: Int) -> Range<Int> {
    byteRange(ofBlocks: block..<(block + 1))
  }

  private func byteRange(ofBlocks blocks: Range<Int>) -> Range<Int> {
    (blocks.lowerBound * Self.blockSize)..<min(blocks.upperBound * Self.blockSize, stateSize)
  }

  /// Rebuilds `observedRuns`, which has room for one run per block.
  private mutating func rebuildObservedRuns() {
    observedRunCount = 0
    observedRunsAreStale = false
    guard let observedRuns else { return }
    var start: Int?
    for block in probesByBlock.indices {
      if probesByBlock[block].isEmpty {
        if let first = start {
          observedRuns[observedRunCount] = first..<block
          observedRunCount += 1
        }
        start = nil
      } else if start == nil {
        start = block
      }
    }
    if let first = start {
      observedRuns[observedRunCount] = first..<probesByBlock.count
      observedRunCount += 1
    }
  }
}

/// Raw memory holding the bits of a state, never interpreted as values (so copying references
/// into it takes no retain), and a `ByteIndex`'s scratch lists, with room for every block.
final class ByteSnapshot: @unchecked Sendable {
  // Safe: owned by one `ByteIndex`, used only by the thread that owns the store.
  let bytes: UnsafeMutableRawPointer
  let observedRuns: UnsafeMutablePointer<Range<Int>>
  let changedBlocks: UnsafeMutablePointer<Int>

  init(byteCount: Int, blockCount: Int) {
    bytes = .allocate(byteCount: max(byteCount, 1), alignment: 16)
    bytes.initializeMemory(as: UInt8.self, repeating: 0, count: max(byteCount, 1))
    observedRuns = .allocate(capacity: max(blockCount, 1))
    observedRuns.initialize(repeating: 0..<0, count: max(blockCount, 1))
    changedBlocks = .allocate(capacity: max(blockCount, 1))
    changedBlocks.initialize(repeating: 0, count: max(blockCount, 1))
  }

  deinit {
    bytes.deallocate()
    observedRuns.deallocate()
    changedBlocks.deallocate()
  }
}
