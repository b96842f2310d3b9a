/// What the writes to an `IdentifiedArray` in a store's state record: the array's `writeVersion`,
/// its `previousWriteVersion`, and the hash of the only element's id the latest write touched
/// (`nil` if it may have touched several).
@usableFromInline
typealias ElementWrites = (version: UInt64, previous: UInt64, idHash: Int?)

/// The element probes of one `IdentifiedArray` at a stored offset of the state, refreshed only
/// when their element may have changed.
///
/// A read such as `store[\.rows, id: 7, \.title]` cannot be skipped by the bytes of the state:
/// the row lives in the array's heap storage. Checking every such probe after every action
/// would cost O(rows). The array instead records each write (`writeVersion`, and the id when one
/// element was touched), so after an action the group reads one version: unchanged means none
/// of its probes can have changed; one write past the group's version refreshes only the probes
/// of that element; anything else (several writes, a sort, a replaced array) refreshes them all.
///
/// Probes are filed by the hash of their element's id, read by a closure made where the id type
/// is known: the group needs no generic code per action. Two ids with one hash only mean that
/// both elements' probes are refreshed when either is written.
///
/// Owned, like the graph, by the thread that owns the store.
final class ElementGroup: @unchecked Sendable {
  // Safe: used only by the thread that owns the store (see `StoreGate`). Runtime exclusivity
  // checks are disabled on its fields for the same reason: a look-up paid two of them.

  /// The key path of the array: identifies the group.
  let array: AnyKeyPath
  /// Reads the array's write record from a state.
  let readWrites: (UnsafeRawPointer) -> ElementWrites
  /// The array's write record when the probes were last brought up to date.
  @exclusivity(unchecked) private var version: UInt64
  @exclusivity(unchecked) private var seenPrevious: UInt64
  @exclusivity(unchecked) private var seenIDHash: Int?
  /// The probes, by the hash of their element's id.
  @exclusivity(unchecked) private var probesByIDHash: [IDHashKey: [Probe]] = [:]
  /// A look-up of `probesByIDHash` kept until the probes change (`keptProbes`, for the id hash
  /// `keptIDHash`), made when two successive look-ups are for one element: successive actions
  /// often write one element (a row being edited), and a look-up hashes the key again. Kept
  /// only then, so that writes to a new element each time pay no more than one comparison.
  /// The probes are kept unretained, in memory of the group's own: `probesByIDHash` holds them,
  /// and any change to it drops the kept look-up. Lending them then takes no reference at all
  /// (lending an array stored in the group retained the array around the loop).
  @exclusivity(unchecked) private var keptProbes = UnsafeMutableBufferPointer<Unmanaged<Probe>>(
    start: nil, count: 0)
  @exclusivity(unchecked) private var keptIDHash: Int?
  @exclusivity(unchecked) private var lastIDHash: Int?

  init(
    array: AnyKeyPath, readWrites: @escaping (UnsafeRawPointer) -> ElementWrites,
    state: UnsafeRawPointer
  ) {
    self.array = array
    self.readWrites = readWrites
    (version, seenPrevious, seenIDHash) = readWrites(state)
  }

  deinit {
    keptProbes.deallocate()
  }

  /// Passes each probe the writes since the last call may have changed to `mayHaveChanged`,
  /// lent without a reference.
  ///
  /// - Precondition: The group's probes do not change meanwhile (the graph is busy, so changes
  ///   wait), which keeps every probe lent alive.
  func forEachProbeWritten(in state: UnsafeRawPointer, _ mayHaveChanged: (Probe) -> Void) {
    let writes = readWrites(state)
    guard writes.version != version else { return }
    // Only one element was written since the probes were brought up to date if the writes since
    // start at that version, or continue the run of writes to one element seen then (the array
    // counts consecutive writes to one element as one: see `IdentifiedArray.noteWrite`).
    let oneElement =
      writes.idHash != nil
      && (writes.previous == version
        || (writes.previous == seenPrevious && writes.idHash == seenIDHash))
    if oneElement, let idHash = writes.idHash {
      if keptIDHash == idHash {
        for probe in keptProbes { probe._withUnsafeGuaranteedRef(mayHaveChanged) }
      } else {
        Self.lend(probes(forIDHash: idHash), to: mayHaveChanged)
      }
    } else {
      for probes in probesByIDHash.values { Self.lend(probes, to: mayHaveChanged) }
    }
    (version, seenPrevious, seenIDHash) = writes
  }

  /// Passes each of `probes` to `body` without taking a reference to it: `probes` holds them.
  @inline(__always)
  private static func lend(_ probes: borrowing [Probe], to body: (Probe) -> Void) {
    probes.withUnsafeBufferPointer { probes in
      for index in probes.indices {
        Unmanaged.passUnretained(probes[index])._withUnsafeGuaranteedRef(body)
      }
    }
  }

  /// The probes of the elements whose id has hash `idHash`, looked up (see `keptProbes`).
  private func probes(forIDHash idHash: Int) -> [Probe] {
    let probes = probesByIDHash[IDHashKey(idHash)] ?? []
    if lastIDHash == idHash {
      dropKeptLookUp()
      keptProbes = .allocate(capacity: probes.count)
      _ = keptProbes.initialize(from: probes.lazy.map { Unmanaged.passUnretained($0) })
      keptIDHash = idHash
    }
    lastIDHash = idHash
    return probes
  }

  /// Drops the kept look-up: the probes changed.
  private func dropKeptLookUp() {
    keptProbes.deallocate()
    keptProbes = UnsafeMutableBufferPointer(start: nil, count: 0)
    keptIDHash = nil
  }

  func insert(_ probe: Probe, idHash: Int) {
    dropKeptLookUp()
    let key = IDHashKey(idHash)
    // Keepers last: a field probe of the same row store, refreshed before, keeps the row for its
    // keeper (see `ElementKeeping`). Out of order, both would keep it.
    let firstKeeper = probe.isKeeper ? nil : probesByIDHash[key]?.firstIndex { $0.isKeeper }
    if let firstKeeper {
      probesByIDHash[key]!.insert(probe, at: firstKeeper)
    } else {
      probesByIDHash[key, default: []].append(probe)
    }
    probe.group = self
  }

  /// Removes `probe`; returns whether the group is now empty.
  func remove(_ probe: Probe, idHash: Int) -> Bool {
    dropKeptLookUp()
    let key = IDHashKey(idHash)
    probesByIDHash[key]?.removeAll { $0 === probe }
    if probesByIDHash[key]?.isEmpty == true { probesByIDHash[key] = nil }
    probe.group = nil
    return probesByIDHash.isEmpty
  }
}

/// The hash of an element's id as a dictionary key, not run through `Hasher` again: a second
/// pass of `Hasher` cost as much as the first on every look-up.
///
/// It is still mixed, cheaply: `idHash` is an integer id's own bits (see `elementIDHash`), or
/// `hashValue`, which a type that implements it itself, or an `NSObject`, may give with low
/// bits all equal; unmixed, such keys would all fall in one run of the table.
struct IDHashKey: Hashable {
  let idHash: Int

  init(_ idHash: Int) {
    self.idHash = idHash
  }

  func hash(into hasher: inout Hasher) {
    hasher.combine(idHash)
  }

  /// `idHash` and the table's seed through a 64-bit finalizer (MurmurHash3's, a bijection):
  /// every bit of the input reaches the low bits the table indexes by.
  func _rawHashValue(seed: Int) -> Int {
    var bits = UInt64(UInt(bitPattern: idHash ^ seed))
    bits ^= bits >> 33
    bits &*= 0xff51_afd7_ed55_8ccd
    bits ^= bits >> 33
    bits &*= 0xc4ce_b9fe_1a85_ec53
    bits ^= bits >> 33
    return Int(Int64(bitPattern: bits))
  }
}

extension IdentifiedArray {
  /// Makes the reader of the write record of the array at `offset` in a state.
  @inlinable
  static func writesReader(atOffset offset: Int) -> (UnsafeRawPointer) -> ElementWrites {
    let hashes = IDHashCache<Element.ID>()
    // Used through an unretained reference: the closure holds `hashes`.
    let lent = Unmanaged.passUnretained(hashes)
    return { state in
      let array = (state + offset).assumingMemoryBound(to: IdentifiedArray.self)
      let idHash = array.pointee.lastWrittenID.map { id in
        // An integer id's hash is its bits: nothing to keep.
        if isFiledByBits(Element.ID.self) { return elementIDHash(id) }
        return withExtendedLifetime(hashes) { lent._withUnsafeGuaranteedRef { $0.hash(id) } }
      }
      return (array.pointee.writeVersion, array.pointee.previousWriteVersion, idHash)
    }
  }
}

/// Whether `elementIDHash` files an id of type `ID` under its own bits (no hashing to save by
/// remembering the last id's hash). Folds to a constant where `ID` is known.
@inlinable @inline(__always)
func isFiledByBits<ID: Hashable>(_: ID.Type) -> Bool {
  ID.self == Int.self || ID.self == UInt.self || ID.self == Int64.self || ID.self == UInt64.self
    || ID.self == Int32.self || ID.self == UInt32.self
}

/// The hash an element's id is filed under in an `ElementGroup`: the id's own bits for an id of
/// a 32- or 64-bit integer type (`isFiledByBits`), whose `==` compares bits (the group mixes
/// them: see `IDHashKey`); `hashValue` otherwise. `Hasher` costs about 45 instructions, paid after every
/// action that writes another element than the last.
@inlinable @inline(__always)
func elementIDHash<ID: Hashable>(_ id: ID) -> Int {
  // Each test folds to a constant where `ID` is known. Truncating: `Int` may be 32 bits wide.
  guard isFiledByBits(ID.self) else { return id.hashValue }
  if MemoryLayout<ID>.size == 8 {
    return Int(truncatingIfNeeded: unsafeBitCast(id, to: UInt64.self))
  }
  return Int(truncatingIfNeeded: unsafeBitCast(id, to: UInt32.self))
}

/// The hash of the id seen last, kept because successive actions often write one element (a
/// row being edited): comparing ids costs less than hashing one again.
@usableFromInline
final class IDHashCache<ID: Hashable>: @unchecked Sendable {
  // Safe: used only by the reader of an array's write record, which only the thread that owns
  // the store calls (see `ElementGroup`).
  @usableFromInline @exclusivity(unchecked) var id: ID?
  @usableFromInline @exclusivity(unchecked) var idHash = 0

  @inlinable
  init() {}

  /// `elementIDHash(id)`.
  @inlinable
  func hash(_ id: ID) -> Int {
    if let known = self.id, known == id { return idHash }
    idHash = elementIDHash(id)
    self.id = id
    return idHash
  }
}
