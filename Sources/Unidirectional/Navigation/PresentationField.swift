/// Where a parent state stores the ``PresentationState`` that an `ifLet` key path names, so that
/// ``PresentationReducer`` reaches it by address instead of through the key path.
///
/// Why: `\.$destination` is a computed key path (a property wrapper's projected value). The
/// runtime evaluates it through generic getters and setters, and a write through it allocates a
/// write-back buffer: the two accesses an `ifLet` makes on every action, whatever the action,
/// cost more than the rest of its work (the P0 and P1 benchmarks). The projection reads and
/// writes the wrapper's stored property, so once that property is found, a pointer reaches it.
///
/// It is found once per key path:
/// 1. A stored key path has its offset: `MemoryLayout.offset(of:)`.
/// 2. Otherwise the parent state must be a struct. Its field records (the runtime's records of
///    its stored properties, which `Mirror` reads) give the offsets of the properties whose type
///    is exactly `PresentationState<Child>`: reading any of them as one is memory-safe.
/// 3. A probe on a copy of a real parent state writes, through the key path, a presentation
///    with an identity never used before. Exactly one of those properties must then hold it,
///    the key path must read it back, and on the original state the key path must read what
///    that property holds.
///
/// The probe writes through the key path on a copy, then writes the value it found back (a
/// setter that reaches into an object leaves it as it was), and requires that the setter
/// changed nothing else of the parent's own storage. Key paths through a class are never
/// probed. What no probe can prove is that a computed property always reads and writes that
/// one property unchanged: one that transforms the child on the way, picks between two
/// properties by a condition, or writes elsewhere only when a child is presented, would be
/// bypassed. `ifLet`'s documentation asks for a key path that behaves like a stored property,
/// as `\.$editor` does.
@usableFromInline
enum PresentationField {
  /// What was found for one key path: an offset, or `nil` to go through the key path.
  @usableFromInline
  final class Entry: PermanentTableEntry {
    @usableFromInline let key: PermanentTableKey
    // Held so that the key path's address, the key, is never reused by another key path. Safe
    // to share: key paths are immutable.
    nonisolated(unsafe) let keyPath: AnyKeyPath
    /// The presentation's offset in the parent state, or `nil` to go through the key path.
    @usableFromInline let offset: Int?

    init(keyPath: AnyKeyPath, offset: Int?) {
      self.key = PermanentTableKey(first: UInt(bitPattern: ObjectIdentifier(keyPath)), second: 0)
      self.keyPath = keyPath
      self.offset = offset
    }
  }

  /// What was found for each key path seen, up to a limit.
  final class KeyPathCache: Sendable {
    /// Key path objects seen, by identity: a key path literal in non-generic code is one object
    /// for the life of the process, so most look-ups end here, without a lock. The shared
    /// cache's are in ``identities`` instead, which inlined code reads (see `withTable`).
    private let table = PermanentTable<Entry>()
    /// Whether this is the ``PresentationField/shared`` cache, whose table is ``identities``.
    private let isShared: Bool
    /// Key paths seen, by equality: generic code makes a new key path object each time it
    /// evaluates a literal, and those are looked up here rather than added to the table.
    private let resolved = Locked<[AnyKeyPath: Int?]>([:])
    /// How many key paths are kept: each keeps its captured subscript arguments alive, and a
    /// path with a changing subscript argument is a new key path every time. Past this, new
    /// key paths are reached through the key path, without a probe.
    let limit: Int

    /// The number of key paths kept.
    var count: Int { resolved.withLock { $0.count } }

    init(limit: Int, isShared: Bool = false) {
      self.limit = limit
      self.isShared = isShared
    }

    /// Runs `body` with this cache's table of key path objects.
    private func withTable<Result>(_ body: (borrowing PermanentTable<Entry>) -> Result) -> Result {
      isShared ? body(PresentationField.identities) : body(table)
    }

    /// The offset of the presentation `keyPath` names inside a `Root`, or `nil` if it must be
    /// reached through the key path. Resolved with `root` the first time a key path is seen.
    func offset<Root, Child>(
      of keyPath: WritableKeyPath<Root, PresentationState<Child>>, probing root: inout Root
    ) -> Int? {
      let identity = PermanentTableKey(
        first: UInt(bitPattern: ObjectIdentifier(keyPath)), second: 0)
      if let known = withTable({ $0.find(identity, { $0.offset }) }) { return known }
      if let offset = MemoryLayout<Root>.offset(of: keyPath) {
        remember(keyPath, identity: identity, offset: offset)
        return offset
      }
      // Most parent states hold no presentation of their own: then no probe, and nothing kept
      // per key path (whose number has no bound), only per pair of types.
      if candidates(in: Root.self, of: Child.self).isEmpty { return nil }
      let cached: Int?? = resolved.withLock { resolved in
        if let known = resolved[keyPath] { return .some(known) }
        return resolved.count >= limit ? .some(nil) : nil
      }
      if let cached { return cached }
      // Outside the lock: the probe runs the key path's getter and setter, which are the
      // program's code.
      let offset = resolve(keyPath, probing: root)
      remember(keyPath, identity: identity, offset: offset)
      return offset
    }

    /// Keeps what was found for `keyPath`, unless the cache is full.
    private func remember<Root, Child>(
      _ keyPath: WritableKeyPath<Root, PresentationState<Child>>, identity: PermanentTableKey,
      offset: Int?
    ) {
      resolved.withLock { resolved in
        guard resolved[keyPath] == nil, resolved.count < limit else { return }
        resolved[keyPath] = .some(offset)
        // Under the lock, so that writers of the table take turns. Another object for a key
        // path already kept is not added to the table, which would keep every such object
        // alive.
        withTable { table in
          if table.find(identity, { _ in true }) == nil {
            table.insert(Entry(keyPath: keyPath, offset: offset))
          }
        }
      }
    }
  }

  /// The key paths of the process's `ifLet`s.
  static let shared = KeyPathCache(limit: 4_096, isShared: true)

  /// The table of key path objects of the ``shared`` cache. Made of constants (see
  /// ``PermanentTable``), so that code inlined in a reducer reads it without `swift_once`.
  @usableFromInline static let identities = PermanentTable<Entry>()

  /// The offset of the presentation `keyPath` names inside a `Root`, or `nil` if it must be
  /// reached through the key path (see ``KeyPathCache/offset(of:probing:)``).
  @inlinable @inline(__always)
  static func offset<Root, Child>(
    of keyPath: WritableKeyPath<Root, PresentationState<Child>>, probing root: inout Root
  ) -> Int? {
    // Every action of an `ifLet` asks: a key path object seen before is answered here, in code
    // specialized in the caller; the rest take the shared cache's way.
    let identity = PermanentTableKey(first: UInt(bitPattern: ObjectIdentifier(keyPath)), second: 0)
    if let known = identities.find(identity, { $0.offset }) { return known }
    return slowOffset(of: keyPath, probing: &root)
  }

  /// ``offset(of:probing:)`` for a key path object not in ``identities``.
  @usableFromInline
  static func slowOffset<Root, Child>(
    of keyPath: WritableKeyPath<Root, PresentationState<Child>>, probing root: inout Root
  ) -> Int? {
    shared.offset(of: keyPath, probing: &root)
  }

  /// The stored `PresentationState<Child>` properties of a `Root`, per pair of types.
  private final class Candidates: PermanentTableEntry {
    let key: PermanentTableKey
    let offsets: [Int]

    init(key: PermanentTableKey, offsets: [Int]) {
      self.key = key
      self.offsets = offsets
    }
  }
  private static let candidateTable = PermanentTable<Candidates>()
  private static let candidateCache = Locked<[PermanentTableKey: [Int]]>([:])

  /// The offsets of `Root`'s stored properties of type `PresentationState<Child>`, read once per
  /// pair of types.
  static func candidates<Root, Child>(in _: Root.Type, of _: Child.Type) -> [Int] {
    let key = PermanentTableKey(
      first: UInt(bitPattern: ObjectIdentifier(Root.self)),
      second: UInt(bitPattern: ObjectIdentifier(Child.self)))
    if let known = candidateTable.find(key, { $0.offsets }) { return known }
    return candidateCache.withLock { cache in
      if let known = cache[key] { return known }
      let offsets = storedPropertyOffsets(
        of: Root.self, withType: PresentationState<Child>.self)
      cache[key] = offsets
      candidateTable.insert(Candidates(key: key, offsets: offsets))
      return offsets
    }
  }

  /// Finds the stored property `keyPath` reads and writes (see the type's documentation).
  static func resolve<Root, Child>(
    _ keyPath: WritableKeyPath<Root, PresentationState<Child>>, probing root: Root
  ) -> Int? {
    if let offset = MemoryLayout<Root>.offset(of: keyPath) { return offset }
    // A path through a class: what it names is not in the parent state's own storage.
    guard !(keyPath is ReferenceWritableKeyPath<Root, PresentationState<Child>>) else {
      return nil
    }
    let candidates = candidates(in: Root.self, of: Child.self)
    guard !candidates.isEmpty else { return nil }
    var original = root
    var probe = root
    let saved = probe[keyPath: keyPath]
    var marker = PresentationState<Child>(wrappedValue: nil)
    // Not a state a presentation is ever in (an identity without a value), and an identity
    // never used before: it cannot be mistaken for anything the program made.
    marker.presentationID = PresentationState<Child>.nextID()
    let before = bytes(of: &probe)
    probe[keyPath: keyPath] = marker
    let after = bytes(of: &probe)
    let holders = candidates.filter {
      presentation(at: $0, in: &probe, as: Child.self).presentationID == marker.presentationID
    }
    let readBack = probe[keyPath: keyPath].presentationID
    // Put back what the setter replaced: a setter that writes outside the copy (into an
    // object) must not leave the marker there.
    probe[keyPath: keyPath] = saved
    guard holders.count == 1, let offset = holders.first, readBack == marker.presentationID,
      original[keyPath: keyPath].presentationID
        == presentation(at: offset, in: &original, as: Child.self).presentationID
    else { return nil }
    // The setter wrote that property and nothing else of the parent's own storage.
    let window = offset..<(offset + MemoryLayout<PresentationState<Child>>.size)
    guard before.indices.allSatisfy({ window.contains($0) || before[$0] == after[$0] }) else {
      return nil
    }
    return offset
  }

  /// A copy of the bytes of `value`'s own storage.
  private static func bytes<Value>(of value: inout Value) -> [UInt8] {
    withUnsafeBytes(of: &value) { Array($0) }
  }

  /// The presentation stored at `offset` in `root`.
  ///
  /// - Precondition: `offset` is a stored property of type `PresentationState<Child>`.
  private static func presentation<Root, Child>(
    at offset: Int, in root: inout Root, as _: Child.Type
  ) -> PresentationState<Child> {
    withUnsafeMutableBytes(of: &root) { bytes in
      bytes.baseAddress!.advanced(by: offset)
        .assumingMemoryBound(to: PresentationState<Child>.self).pointee
    }
  }

  /// The offsets of `Root`'s stored properties of type exactly `field`, read from its field
  /// records; empty if `Root` is not a struct or has no records.
  static func storedPropertyOffsets(of root: Any.Type, withType field: Any.Type) -> [Int] {
    let metadata = unsafeBitCast(root, to: UnsafeRawPointer.self)
    // Struct metadata: kind 0x200, then its nominal type descriptor.
    guard metadata.load(as: UInt.self) == 0x200 else { return [] }
    let descriptor = metadata.load(fromByteOffset: 8, as: UnsafeRawPointer.self)
    // StructDescriptor: flags, parent, name, access function, fields (relative pointers), then
    // the number of stored properties and where their offsets lie in the metadata (in words).
    let fieldsOffset = descriptor.load(fromByteOffset: 16, as: Int32.self)
    let propertyCount = Int(descriptor.load(fromByteOffset: 20, as: UInt32.self))
    let offsetVector = Int(descriptor.load(fromByteOffset: 24, as: UInt32.self))
    guard fieldsOffset != 0, propertyCount > 0 else { return [] }
    let fields = descriptor + 16 + Int(fieldsOffset)
    // FieldDescriptor: mangled name, superclass, kind (UInt16), record size (UInt16), count.
    let recordSize = Int(fields.load(fromByteOffset: 10, as: UInt16.self))
    guard Int(fields.load(fromByteOffset: 12, as: UInt32.self)) == propertyCount else { return [] }
    let genericArguments = metadata + 2 * MemoryLayout<UnsafeRawPointer>.size
    let offsets = (metadata + offsetVector * MemoryLayout<UnsafeRawPointer>.size)
      .assumingMemoryBound(to: UInt32.self)
    var found: [Int] = []
    for index in 0..<propertyCount {
      // FieldRecord: flags, mangled type name, field name.
      let record = fields + 16 + index * recordSize
      let nameOffset = record.load(fromByteOffset: 4, as: Int32.self)
      guard nameOffset != 0 else { continue }
      let name = (record + 4 + Int(nameOffset)).assumingMemoryBound(to: UInt8.self)
      guard
        let type = _getTypeByMangledNameInContext(
          name, UInt(EnumLayout.mangledNameLength(name)), genericContext: descriptor,
          genericArguments: genericArguments),
        type == field
      else { continue }
      found.append(Int(offsets[index]))
    }
    return found
  }
}
