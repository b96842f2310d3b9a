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
///
/// The slots are allocated by the first insertion, so that a table is made of constants: a
/// `static let` table is then laid out by the compiler, and reading it needs no `swift_once`
/// (on Linux, a call on every read of a lazily initialized global).
@usableFromInline
struct PermanentTable<Entry: PermanentTableEntry>: ~Copyable, Sendable {
  /// The address of the slots (atomics, allocated once and never freed), or 0 before the first
  /// insertion.
  @usableFromInline let slotsAddress = Atomic<UInt>(0)
  @inlinable static var probes: Int { 8 }
  /// Every table has `1 << capacityLog2` slots (8 KiB, allocated by the first insertion): a
  /// constant, so that a look-up inlined in the caller computes no mask or shift. Tables hold
  /// answers per type or per key path literal, of which a program has hundreds at most.
  @inlinable static var capacityLog2: Int { 10 }

  /// Creates an empty table, which lives as long as the process.
  init() {}

  @inlinable var capacity: Int { 1 &<< Self.capacityLog2 }

  @inlinable
  func start(_ key: PermanentTableKey) -> Int {
    // Fibonacci hashing of the two words: no `Hasher`, whose cost this avoids. (The shift keeps
    // a pair of equal words apart from another.)
    let bits = key.first ^ (key.second &<< 1)
    return Int(truncatingIfNeeded: (bits &* 0x9E37_79B9_7F4A_7C15) &>> (64 &- Self.capacityLog2))
  }

  /// What `read` returns of the entry with `key`, if one was inserted.
  ///
  /// The entry is lent to `read` without a retain: entries are never freed.
  @inlinable
  func find<Result>(_ key: PermanentTableKey, _ read: (Entry) -> Result) -> Result? {
    guard
      let slots = UnsafeMutablePointer<Atomic<UInt>>(
        bitPattern: slotsAddress.load(ordering: .acquiring))
    else { return nil }
    let start = start(key)
    // Wrapping arithmetic: the slot is masked anyway, and an overflow check is a branch per probe.
    for probe in 0..<Self.probes {
      let bits = slots[(start &+ probe) & (capacity &- 1)].load(ordering: .acquiring)
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
    let slots = slotsForWriting()
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

  /// The slots, allocated (and published with release ordering) by the first writer.
  private func slotsForWriting() -> UnsafeMutablePointer<Atomic<UInt>> {
    if let slots = UnsafeMutablePointer<Atomic<UInt>>(
      bitPattern: slotsAddress.load(ordering: .relaxed))
    {
      return slots
    }
    // Writers take turns, so no other writer allocates meanwhile; never freed.
    let slots = UnsafeMutablePointer<Atomic<UInt>>.allocate(capacity: capacity)
    for index in 0..<capacity { (slots + index).initialize(to: Atomic(0)) }
    slotsAddress.store(UInt(bitPattern: slots), ordering: .releasing)
    return slots
  }
}
