#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Which observers depend on which key paths of a store's state, and which of them an action
/// made stale.
///
/// Not generic: it sees the state as raw bytes and leaves typed work to the probes, so the
/// per-action path needs no generic metadata.
///
/// ## Cost per action
///
/// Probes of stored properties know the bytes their value lives in. Those bytes are indexed by
/// 64-byte block, and a bit-for-bit snapshot of the observed blocks is kept. After an action,
/// the observed blocks are compared with the snapshot in one pass (`memcmp` of 512-byte chunks,
/// then of the blocks of a chunk that differs), and only the probes in blocks that differ are
/// refreshed. Unchanged bytes prove an unchanged
/// value because every probe retains its last value: copy-on-write storage the bytes point to
/// is shared with the probe, so the reducer could not have mutated it in place.
///
/// Probes of computed properties and subscripts (for example `\.cells[4]`) are refreshed after
/// every action. Either way there is one comparison per distinct key path, shared by all the
/// observers that read it, and nothing per observer that does not fire.
///
/// Guarded by the owning store's lock.
@usableFromInline
struct ObservationGraph {
  /// Bytes per block of the index (a cache line). A computed constant, not a `static let`,
  /// so it folds into the code instead of costing a lazy-initialization check per use.
  @inline(__always) static var blockSize: Int { 64 }

  /// Bytes compared by one `memcmp` before looking at single blocks.
  @inline(__always) static var chunkSize: Int { 1024 }

  /// The size of the state in bytes.
  private let stateSize: Int

  /// Every probe with at least one subscriber, keyed by key path.
  private var probes: [AnyKeyPath: Probe] = [:]

  /// Probes without a byte range: refreshed after every action.
  private var scannedProbes: [Probe] = []

  /// Root key paths that read one element of an `IdentifiedArray`, registered by child stores.
  private var elementPaths: [AnyKeyPath: ElementPath] = [:]
  /// Probes of single elements, grouped by array (see `ElementGroup`), by key and in a list.
  private var elementGroups: [AnyKeyPath: ElementGroup] = [:]
  private var elementGroupList: [ElementGroup] = []

  /// For each 64-byte block of the state, the probes whose bytes overlap it.
  private var probesByBlock: [[Probe]]

  /// Runs of consecutive observed blocks, rebuilt when the set of observed blocks changes.
  private var observedRuns: [Range<Int>] = []
  private var observedRunsAreStale = false

  /// The state's observed bytes as of the last refresh; `nil` while no probe is indexed.
  private var snapshot: ByteSnapshot?

  /// The number of probes indexed by byte range.
  private var indexedProbeCount = 0

  /// One-shot probes for key paths read outside our observers (see `RegistrarProbe`).
  private var registrarProbes: [AnyKeyPath: RegistrarProbe] = [:]
  private var liveRegistrarProbes: [RegistrarProbe] = []

  /// Every registered observer, by id.
  private var observers: [UInt64: ObserverRecord] = [:]
  private var nextObserverID: UInt64 = 0

  /// Counts refreshes, so a probe in several changed blocks is refreshed once per action.
  private var refreshStamp: UInt64 = 0

  /// Scratch list of changed blocks, kept to avoid an allocation per action.
  private var changedBlocks: [Int] = []

  @usableFromInline
  init(stateSize: Int) {
    self.stateSize = stateSize
    let blockCount = (stateSize + Self.blockSize - 1) / Self.blockSize
    self.probesByBlock = Array(repeating: [], count: blockCount)
  }

  /// Whether nothing is observed: no probe needs refreshing after an action.
  @usableFromInline
  var isEmpty: Bool {
    snapshot == nil && scannedProbes.isEmpty && elementGroupList.isEmpty
      && liveRegistrarProbes.isEmpty
  }

  /// What an action changed: the observers to run, in registration order, and the registrar
  /// notifications to post.
  @usableFromInline
  struct Changes {
    @usableFromInline var observers: [ObserverRecord] = []
    @usableFromInline var registrarNotifications: [RegistrarProbe] = []

    @inlinable
    init() {}
  }

  /// Counts of what the graph holds, for tests.
  var footprint: ObservationFootprint {
    ObservationFootprint(
      observers: observers.count, probes: probes.count, trackedReads: liveRegistrarProbes.count)
  }

  // MARK: Per action

  /// Refreshes the probes an action may have changed and returns what did change.
  @usableFromInline
  mutating func changes(in state: UnsafeRawPointer) -> Changes {
    var changes = Changes()
    var changedProbes = 0
    func collect(_ probe: Probe) {
      changedProbes += 1
      if changedProbes == 1 {
        // The common case shares the probe's ordered array: no copy, no sort.
        changes.observers = probe.subscribers
      } else {
        changes.observers.append(contentsOf: probe.subscribers)
      }
    }

    if let snapshot {
      refreshStamp &+= 1
      if observedRunsAreStale { rebuildObservedRuns() }
      changedBlocks.removeAll(keepingCapacity: true)
      for run in observedRuns {
        findChangedBlocks(in: byteRange(ofBlocks: run), state: state, snapshot: snapshot.bytes)
      }
      for block in changedBlocks {
        for probe in probesByBlock[block] where probe.refreshedAt != refreshStamp {
          probe.refreshedAt = refreshStamp
          // The block changed, but maybe not this probe's bytes (the snapshot is still the old
          // state here): then its value did not change either.
          if Self.bytesEqual(state, snapshot.bytes, at: probe.byteStart, count: probe.byteCount) {
            continue
          }
          if probe.refresh(state) { collect(probe) }
        }
      }
      for block in changedBlocks {
        let range = byteRange(ofBlock: block)
        memcpy(snapshot.bytes + range.lowerBound, state + range.lowerBound, range.count)
      }
    }
    for probe in scannedProbes where probe.refresh(state) {
      collect(probe)
    }
    for group in elementGroupList {
      group.refresh(state, changed: collect)
    }
    if changedProbes > 1 {
      changes.observers.sort { $0.id < $1.id }
      var previous: UInt64?
      changes.observers.removeAll { observer in
        defer { previous = observer.id }
        return observer.id == previous
      }
    }

    var index = 0
    while index < liveRegistrarProbes.count {
      let probe = liveRegistrarProbes[index]
      if probe.probe.refresh(state) {
        // One-shot, like Apple's observations: the next tracked read arms it again.
        changes.registrarNotifications.append(probe)
        removeRegistrarProbe(at: index)
      } else {
        index += 1
      }
    }
    return changes
  }

  /// Appends to `changedBlocks` the blocks of `run` whose bytes differ from the snapshot.
  ///
  /// Each byte is compared once, a chunk at a time; only a chunk that differs is compared
  /// again, block by block.
  private mutating func findChangedBlocks(
    in bytes: Range<Int>, state: UnsafeRawPointer, snapshot: UnsafeMutableRawPointer
  ) {
    let chunkSize = Self.chunkSize
    var chunkStart = bytes.lowerBound
    let end = bytes.upperBound
    while chunkStart < end {
      let count = Swift.min(chunkSize, end &- chunkStart)
      if memcmp(state + chunkStart, snapshot + chunkStart, count) != 0 {
        findChangedBlocks(inChunkAt: chunkStart, count: count, state: state, snapshot: snapshot)
      }
      chunkStart &+= chunkSize
    }
  }

  /// Appends the blocks of one chunk that differ from the snapshot.
  private mutating func findChangedBlocks(
    inChunkAt start: Int, count: Int, state: UnsafeRawPointer, snapshot: UnsafeMutableRawPointer
  ) {
    let blockSize = Self.blockSize
    var offset = start
    let wholeBlocksEnd = start &+ (count / blockSize) &* blockSize
    while offset < wholeBlocksEnd {
      if !Self.blockEqual(state + offset, snapshot + offset) {
        changedBlocks.append(offset / blockSize)
      }
      offset &+= blockSize
    }
    let tail = start &+ count &- offset
    if tail > 0, memcmp(state + offset, snapshot + offset, tail) != 0 {
      changedBlocks.append(offset / blockSize)
    }
  }

  /// Whether two whole, 64-byte aligned blocks are equal: eight word compares folded together,
  /// no call to `memcmp`. (Blocks start at multiples of 64 from the state's address, which is
  /// at least 16-byte aligned, so the loads are aligned.)
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

  private mutating func rebuildObservedRuns() {
    observedRuns.removeAll(keepingCapacity: true)
    var start: Int?
    for block in probesByBlock.indices {
      if probesByBlock[block].isEmpty {
        if let first = start { observedRuns.append(first..<block) }
        start = nil
      } else if start == nil {
        start = block
      }
    }
    if let first = start { observedRuns.append(first..<probesByBlock.count) }
    observedRunsAreStale = false
  }

  // MARK: Observers

  /// Registers a new observer whose first run read `keyPaths`.
  @usableFromInline
  mutating func register(
    body: @escaping @Sendable () -> Void, reads recorder: AccessRecorder, state: UnsafeRawPointer
  ) -> ObserverRecord {
    let observer = ObserverRecord(id: nextObserverID, body: body)
    nextObserverID += 1
    observers[observer.id] = observer
    update(observer, reads: recorder, state: state)
    return observer
  }

  /// Re-subscribes `observer` after a run whose reads `recorder` holds. Cheap when it read the
  /// same key paths as last time, which is the common case.
  @usableFromInline
  mutating func update(
    _ observer: ObserverRecord, reads recorder: AccessRecorder, state: UnsafeRawPointer
  ) {
    guard observer.body != nil, !recorder.readsEqual(observer.reads) else { return }
    observer.reads = SmallArray(
      (0..<recorder.count).lazy.map {
        RecordedRead(keyPath: recorder.buffer[$0], offset: recorder.offsets[$0])
      })
    var newProbes = SmallArray<Probe>()
    for read in observer.reads {
      let probe = probe(for: read.keyPath, state: state)
      if !newProbes.contains(where: { $0 === probe }) { newProbes.append(probe) }
    }
    for probe in observer.probes where !newProbes.contains(where: { $0 === probe }) {
      probe.unsubscribe(observer)
      removeIfUnused(probe)
    }
    for probe in newProbes { probe.subscribe(observer) }
    observer.probes = newProbes
  }

  /// Removes an observer: it will not run again.
  ///
  /// - Returns: The observer's closure, for the caller to release after unlocking (releasing
  ///   captures may run arbitrary code).
  @usableFromInline @discardableResult
  mutating func remove(_ observer: ObserverRecord) -> (@Sendable () -> Void)? {
    guard let body = observer.body else { return nil }
    observer.body = nil
    observers[observer.id] = nil
    for probe in observer.probes {
      probe.unsubscribe(observer)
      removeIfUnused(probe)
    }
    observer.probes = SmallArray()
    return body
  }

  /// Removes every observer (when the store is going away) and returns their closures.
  @usableFromInline
  mutating func removeAll() -> [@Sendable () -> Void] {
    observers.values.compactMap { remove($0) }
  }

  // MARK: Probes

  private mutating func probe(for keyPath: AnyKeyPath, state: UnsafeRawPointer) -> Probe {
    if let probe = probes[keyPath] { return probe }
    guard let factory = keyPath as? any ProbeFactory else {
      preconditionFailure("Unidirectional: \(keyPath) is not a KeyPath")
    }
    let probe = factory.makeProbe(state: state)
    probes[keyPath] = probe
    if probe.isSkippableByBytes, let range = probe.byteRange {
      index(probe, bytes: range, state: state)
    } else if let element = elementPaths[keyPath] {
      let group: ElementGroup
      if let existing = elementGroups[element.array] {
        group = existing
      } else {
        group = ElementGroup(readWrites: element.readWrites, state: state)
        group.slot = elementGroupList.count
        elementGroups[element.array] = group
        elementGroupList.append(group)
      }
      group.probesByID[element.id, default: []].append(probe)
      probe.elementGroup = group
      probe.elementID = element.id
    } else {
      probe.slot = scannedProbes.count
      scannedProbes.append(probe)
    }
    return probe
  }

  /// Notes that `keyPath` reads the element `id` of the array at `array`, so that its probe
  /// joins that array's element group instead of being refreshed after every action.
  mutating func registerElementPath(
    _ keyPath: AnyKeyPath, array: AnyKeyPath, id: AnyHashable,
    readWrites: @escaping ElementWritesReader
  ) {
    if elementPaths[keyPath] != nil {
      elementPaths[keyPath]!.registrations += 1
    } else {
      elementPaths[keyPath] = ElementPath(array: array, id: id, readWrites: readWrites)
    }
  }

  /// Undoes one `registerElementPath`. A probe already in a group stays there until unused.
  mutating func unregisterElementPath(_ keyPath: AnyKeyPath) {
    guard var element = elementPaths[keyPath] else { return }
    element.registrations -= 1
    elementPaths[keyPath] = element.registrations > 0 ? element : nil
  }

  private mutating func index(_ probe: Probe, bytes: Range<Int>, state: UnsafeRawPointer) {
    let snapshot = self.snapshot ?? ByteSnapshot(byteCount: stateSize)
    self.snapshot = snapshot
    indexedProbeCount += 1
    let blocks = (bytes.lowerBound / Self.blockSize)..<((bytes.upperBound - 1) / Self.blockSize + 1)
    for block in blocks {
      if probesByBlock[block].isEmpty {
        observedRunsAreStale = true
        // Newly observed bytes: bring the snapshot up to date for them.
        let range = byteRange(ofBlock: block)
        memcpy(snapshot.bytes + range.lowerBound, state + range.lowerBound, range.count)
      }
      probesByBlock[block].append(probe)
    }
  }

  private mutating func removeIfUnused(_ probe: Probe) {
    guard probe.subscribers.isEmpty, probes[probe.keyPath] === probe else { return }
    probes[probe.keyPath] = nil
    if probe.isSkippableByBytes, let bytes = probe.byteRange {
      let blocks =
        (bytes.lowerBound / Self.blockSize)..<((bytes.upperBound - 1) / Self.blockSize + 1)
      for block in blocks {
        probesByBlock[block].removeAll { $0 === probe }
        if probesByBlock[block].isEmpty { observedRunsAreStale = true }
      }
      indexedProbeCount -= 1
      if indexedProbeCount == 0 { snapshot = nil }
    } else if let group = probe.elementGroup, let id = probe.elementID {
      group.probesByID[id]?.removeAll { $0 === probe }
      if group.probesByID[id]?.isEmpty == true { group.probesByID[id] = nil }
      probe.elementGroup = nil
      if group.probesByID.isEmpty {
        let last = elementGroupList.removeLast()
        if last !== group {
          elementGroupList[group.slot] = last
          last.slot = group.slot
        }
        elementGroups = elementGroups.filter { $0.value !== group }
      }
    } else {
      let last = scannedProbes.removeLast()
      if last !== probe {
        scannedProbes[probe.slot] = last
        last.slot = probe.slot
      }
    }
  }

  // MARK: Registrar probes

  /// Arms a one-shot registrar probe for a key path read outside our observers, and returns
  /// the store key path to report to the registrar.
  @usableFromInline
  mutating func armRegistrarProbe(
    _ keyPath: AnyKeyPath,
    state: UnsafeRawPointer,
    makeProbe: (UnsafeRawPointer) -> RegistrarProbe
  ) -> AnyKeyPath {
    if let probe = registrarProbes[keyPath] { return probe.storeKeyPath }
    let probe = makeProbe(state)
    probe.slot = liveRegistrarProbes.count
    liveRegistrarProbes.append(probe)
    registrarProbes[keyPath] = probe
    return probe.storeKeyPath
  }

  private mutating func removeRegistrarProbe(at index: Int) {
    let probe = liveRegistrarProbes[index]
    registrarProbes[probe.probe.keyPath] = nil
    let last = liveRegistrarProbes.removeLast()
    if index < liveRegistrarProbes.count {
      liveRegistrarProbes[index] = last
      last.slot = index
    }
  }
}

/// Raw memory holding the bits of a state, never interpreted as values (so copying references
/// into it takes no retain).
final class ByteSnapshot: @unchecked Sendable {
  // Safe: owned by one `ObservationGraph`, used only under its store's lock.
  let bytes: UnsafeMutableRawPointer

  init(byteCount: Int) {
    bytes = .allocate(byteCount: max(byteCount, 1), alignment: 16)
    bytes.initializeMemory(as: UInt8.self, repeating: 0, count: max(byteCount, 1))
  }

  deinit {
    bytes.deallocate()
  }
}

/// A one-shot probe that tells a store's `ObservationRegistrar` when a key path read outside
/// our own observers changes.
///
/// Apple's `withObservationTracking` learns of reads through `ObservationRegistrar.access`; it
/// learns of changes only if someone calls `willSet`/`didSet` for that key path. Any read of a
/// store outside our observers arms one of these; after the next action that changes the value,
/// the store posts the change to the registrar and the probe is dropped, as Apple's one-shot
/// observations are.
@usableFromInline
final class RegistrarProbe: @unchecked Sendable {
  // Safe: created and refreshed under the owning store's lock; `post` is immutable.

  /// Watches the state's key path.
  let probe: Probe

  /// The key path on the store that was reported to the registrar.
  @usableFromInline let storeKeyPath: AnyKeyPath

  /// Posts `willSet` and `didSet` for `storeKeyPath` to the store's registrar.
  @usableFromInline let post: @Sendable () -> Void

  /// Index in the graph's list.
  var slot = 0

  @usableFromInline
  init(probe: Probe, storeKeyPath: AnyKeyPath, post: @escaping @Sendable () -> Void) {
    self.probe = probe
    self.storeKeyPath = storeKeyPath
    self.post = post
  }
}
