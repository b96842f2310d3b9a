import Synchronization

/// The key of a ``PermanentTable`` entry: two words, typically metadata or object addresses.
@usableFromInline
struct PermanentTableKey: Hashable, Sendable {
  @usableFromInline let first: UInt
  @usableFromInline let second: UInt

  @inlinable
  init(first: UInt, second: UInt) {
    self.first = first
    self.second = second
  }
}

/// An entry of a ``PermanentTable``: an object that is never freed once inserted.
@usableFromInline
protocol PermanentTableEntry: AnyObject, Sendable {
  var key: PermanentTableKey { get }
}

/// An open-addressed table of entries that readers probe without a lock, for answers computed
/// once per type (or per immortal object) and asked for on every action.
///
/// A slot is written once, from zero to an entry that is never freed, with release ordering, so
/// a reader that sees it with acquire ordering sees the whole entry. Writers must take turns
/// (hold a lock of their own). When the slots near a key are full, the key is not inserted: the
/// caller keeps its own locked dictionary for those.
@usableFromInline
struct PermanentTable<Entry: PermanentTableEntry>: @unchecked Sendable {
  // Safe to share: the slots are atomics, allocated once and never freed; entries are
  // immutable objects that are never released.
  @usableFromInline let slots: UnsafeMutablePointer<Atomic<UInt>>
  @usableFromInline let capacity: Int
  @inlinable static var probes: Int { 8 }

  /// Creates an empty table, which lives as long as the process.
  ///
  /// - Parameter capacityLog2: The table has `1 << capacityLog2` slots.
  init(capacityLog2: Int) {
    capacity = 1 << capacityLog2
    slots = .allocate(capacity: capacity)
    for index in 0..<capacity { (slots + index).initialize(to: Atomic(0)) }
  }

  @inlinable
  func start(_ key: PermanentTableKey) -> Int {
    // Fibonacci hashing of the two words: no `Hasher`, whose cost this avoids.
    let bits = key.first &* 31 &+ key.second
    return Int(
      truncatingIfNeeded: (bits &* 0x9E37_79B9_7F4A_7C15) >> (64 - capacity.trailingZeroBitCount))
  }

  /// What `read` returns of the entry with `key`, if one was inserted.
  ///
  /// The entry is lent to `read` without a retain: entries are never freed.
  @inlinable
  func find<Result>(_ key: PermanentTableKey, _ read: (Entry) -> Result) -> Result? {
    let start = start(key)
    for probe in 0..<Self.probes {
      let bits = slots[(start + probe) & (capacity - 1)].load(ordering: .acquiring)
      guard let pointer = UnsafeRawPointer(bitPattern: bits) else { return nil }
      let entry = Unmanaged<Entry>.fromOpaque(pointer)
      if entry._withUnsafeGuaranteedRef({ $0.key == key }) {
        return entry._withUnsafeGuaranteedRef(read)
      }
    }
    return nil
  }

  /// Inserts `entry` for good, unless the slots near its key are full.
  ///
  /// - Precondition: The caller holds the lock its writers share, and no entry has its key.
  func insert(_ entry: Entry) {
    let start = start(entry.key)
    for probe in 0..<Self.probes {
      let slot = (start + probe) & (capacity - 1)
      guard slots[slot].load(ordering: .relaxed) == 0 else { continue }
      // Never released: readers may hold it without a reference.
      let bits = UInt(bitPattern: Unmanaged.passRetained(entry).toOpaque())
      slots[slot].store(bits, ordering: .releasing)
      return
    }
  }
}
