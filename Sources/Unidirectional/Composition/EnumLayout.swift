import Synchronization

/// What the Swift runtime records about an enum type's cases, read once per type: for each case
/// (by tag), the type of its payload and whether the payload is boxed (`indirect`). With it a
/// ``CasePath`` made from a case's constructor alone can test a value's case and take out its
/// payload without `Mirror`.
///
/// ## How it reads the runtime, and why that is sound
///
/// Everything used here is part of Swift's stable ABI (the layout of metadata, value witness
/// tables and reflection records, docs/ABI in the Swift repository), and is what `Mirror` reads
/// for enums (`ReflectionMirror.cpp`), so the compiler must keep emitting it:
///
/// - A type's metadata pointer is `unsafeBitCast(T.self, to: UnsafeRawPointer.self)`; its kind
///   word is `0x201` for enums and `0x202` for `Optional`; the next word points to its nominal
///   type descriptor.
/// - The value witness table sits one word before the metadata. An enum's table ends with
///   `getEnumTag` and `destructiveProjectEnumData` (after the eight common witnesses, size,
///   stride, flags and extra-inhabitant count). Their Swift calling convention passes the value
///   and the metadata the way C does on every 64-bit platform Swift supports.
/// - Tags number the cases with a payload first, then the others, each group in declaration
///   order. The descriptor's field records list the cases in that same order (this is how
///   `Mirror` finds a case's name and payload type from its tag), with the payload's mangled
///   type name, which the runtime's `_getTypeByMangledNameInContext` resolves (with the
///   metadata's generic arguments, for a generic enum), and an `indirect` flag.
/// - A destructive projection leaves the payload at the start of the value's storage (with the
///   tag bits cleared); for an indirect case, the payload is a box whose value lies after the
///   16-byte object header, aligned for the payload.
///
/// A value's payload is read only after the runtime's own record says that the case's payload
/// has exactly the type it is read as, and never for functions or metatypes, whose storage in a
/// case differs from their storage in generic code; `CasePathTests` checks every enum layout its generators
/// make (payload-less, single- and multi-payload, indirect, generic, nested, tuples).
@usableFromInline
struct EnumLayout: @unchecked Sendable {
  // Safe: metadata and the types it names are immutable and live as long as the process, and
  // so does `cases`, which is never written after `read` makes it.

  /// One case: its payload type (`nil` for a case without payload) and whether it is boxed.
  @usableFromInline
  struct Case {
    /// The payload's type, with a single labelled element unwrapped (`case c(x: Int)` stores an
    /// `Int`).
    @usableFromInline let payloadType: Any.Type?
    @usableFromInline let isIndirect: Bool
  }

  @usableFromInline let metadata: UnsafeRawPointer
  /// Indexed by tag. Never freed, like the metadata it describes: a layout is then a plain
  /// value, which the case paths a `body` makes on every action copy and destroy without
  /// reference counting.
  @usableFromInline let cases: UnsafeBufferPointer<Case>

  @usableFromInline
  typealias GetEnumTag = @convention(c) (UnsafeRawPointer, UnsafeRawPointer) -> UInt32
  @usableFromInline typealias ProjectEnumData =
    @convention(c) (UnsafeMutableRawPointer, UnsafeRawPointer) -> Void

  @usableFromInline let getEnumTag: GetEnumTag
  @usableFromInline let projectEnumData: ProjectEnumData

  /// For a layout kept for a pair of types (see ``shared(_:withPayload:)``): bit `tag` is set
  /// for each tag below 64 whose payload is laid out as that pair's `Value`. Lets a case path
  /// turn down another case with one test, without looking at the case's payload type.
  @usableFromInline var tagsWithPayload: UInt64 = 0

  /// The layout of `Root`, if it is an enum with at least one case whose payload is laid out as
  /// a `Value`; `nil` otherwise (not an enum, no such case, or compiled without reflection
  /// records). Read once per pair of types, then cached.
  @inlinable
  static func of<Root, Value>(_: Root.Type, withPayload _: Value.Type) -> EnumLayout? {
    shared(Root.self, withPayload: Value.self)?.pointee
  }

  /// ``of(_:withPayload:)``, kept for the life of the process: a case path holds one word
  /// rather than a copy of the layout, which every reducer holding it would copy on every
  /// action.
  ///
  /// A `body` makes its case paths anew for every action: the lock-free table answers those,
  /// its first probe inlined in the `body` (see ``findInFirstSlot(_:)``).
  @inlinable @inline(__always)
  static func shared<Root, Value>(_: Root.Type, withPayload _: Value.Type)
    -> UnsafePointer<EnumLayout>?
  {
    let key = PermanentTableKey(
      first: UInt(bitPattern: ObjectIdentifier(Root.self)),
      second: UInt(bitPattern: ObjectIdentifier(Value.self)))
    if let entry = findInFirstSlot(key) { return entry._withUnsafeGuaranteedRef { $0.layout } }
    return sharedPastFirstSlot(Root.self, withPayload: Value.self, key: key)
  }

  /// The entry with `key` if it is in the slot where ``table``'s probes start, which holds most
  /// keys (a program has hundreds of pairs of types at most, in 1,024 slots).
  ///
  /// ``PermanentTable/find(_:_:)``'s first probe, without its loop: inlined wherever a case path
  /// is made, where the whole loop would add a hundred instructions each time.
  @inlinable @inline(__always)
  static func findInFirstSlot(_ key: PermanentTableKey) -> Unmanaged<Entry>? {
    guard
      let slots = UnsafeMutablePointer<Atomic<UInt>>(
        bitPattern: table.slotsAddress.load(ordering: .acquiring)),
      let pointer = UnsafeRawPointer(
        bitPattern: slots[table.start(key) & (table.capacity &- 1)].load(ordering: .acquiring))
    else { return nil }
    // Entries are never freed: borrowed without a retain.
    let entry = Unmanaged<Entry>.fromOpaque(pointer)
    return entry._withUnsafeGuaranteedRef { $0.key == key } ? entry : nil
  }

  /// ``shared(_:withPayload:)`` for a key not in its first slot: the rest of the table, or the
  /// first look-up of the pair.
  @inlinable @inline(never)
  static func sharedPastFirstSlot<Root, Value>(
    _: Root.Type, withPayload _: Value.Type, key: PermanentTableKey
  ) -> UnsafePointer<EnumLayout>? {
    if let known = table.find(key, { $0.layout }) { return known }
    return reading(Root.self, withPayload: Value.self, key: key)
  }

  /// The first look-up of a pair of types: reads the layout and caches it.
  @usableFromInline
  static func reading<Root, Value>(
    _: Root.Type, withPayload _: Value.Type, key: PermanentTableKey
  ) -> UnsafePointer<EnumLayout>? {
    cache.withLock { cache -> UnsafePointer<EnumLayout>? in
      if let known = cache[key] { return known }
      let layout = read(Root.self).flatMap { layout -> UnsafePointer<EnumLayout>? in
        guard
          layout.cases.contains(where: {
            $0.payloadType.map { payload($0, isLaidOutAs: Value.self) } ?? false
          })
        else { return nil }
        var layout = layout
        for (tag, layoutCase) in layout.cases.prefix(64).enumerated() {
          guard let payloadType = layoutCase.payloadType,
            payload(payloadType, isLaidOutAs: Value.self)
          else { continue }
          layout.tagsWithPayload |= 1 &<< UInt64(tag)
        }
        // Never freed: case paths hold it without a reference.
        let storage = UnsafeMutablePointer<EnumLayout>.allocate(capacity: 1)
        storage.initialize(to: layout)
        return UnsafePointer(storage)
      }
      cache[key] = .some(layout)
      // Under the lock, so that writers of the table take turns.
      table.insert(Entry(key: key, layout: layout))
      return layout
    }
  }

  /// A layout looked up, kept for the life of the process (layouts belong to types, which do).
  @usableFromInline
  final class Entry: PermanentTableEntry {
    @usableFromInline let key: PermanentTableKey
    // Safe to share: the layout is immutable and never freed.
    @usableFromInline nonisolated(unsafe) let layout: UnsafePointer<EnumLayout>?

    init(key: PermanentTableKey, layout: UnsafePointer<EnumLayout>?) {
      self.key = key
      self.layout = layout
    }
  }

  @usableFromInline static let table = PermanentTable<Entry>()

  // Safe: the pointers are to immutable layouts that are never freed.
  private static let cache = Locked<[PermanentTableKey: UnsafePointer<EnumLayout>?]>([:])

  /// The tag of `value`'s case if `Value` is an enum whose layout can be read, `nil` otherwise.
  /// The layout is read once per type, then cached.
  static func caseTag<Value>(of value: Value) -> Int? {
    let key = ObjectIdentifier(Value.self)
    let layout: EnumLayout?
    if let known = anyPayloadCache.withLock({ $0[key] }) {
      layout = known
    } else {
      layout = read(Value.self)
      anyPayloadCache.withLock { $0[key] = .some(layout) }
    }
    return layout?.tag(of: value)
  }

  private static let anyPayloadCache = Locked<[ObjectIdentifier: EnumLayout?]>([:])

  /// Whether the payload of the case with tag `tag`, 64 or more, is laid out as a `Value` (below
  /// 64, ``tagsWithPayload`` tells). Out of line: enums with that many cases are rare, and the
  /// test of ``tagsWithPayload`` is inlined in every reducer.
  ///
  /// - Precondition: This layout was kept for a pair of types whose `Value` is this one.
  @inlinable @inline(never)
  func payload<Value>(pastTag64 tag: Int, isLaidOutAs _: Value.Type) -> Bool {
    guard let payloadType = cases[tag].payloadType else { return false }
    return Self.payload(payloadType, isLaidOutAs: Value.self)
  }

  /// The tag of `value`'s case.
  ///
  /// - Precondition: `Root` is the type this layout was read from.
  @inlinable @inline(__always)
  func tag<Root>(of value: Root) -> Int {
    // Unprotected: the pointer is read by the enum's own tag function alone, and a protected
    // address gives every reducer that inlines this a stack-protector check.
    _withUnprotectedUnsafePointer(to: value) { Int(getEnumTag(UnsafeRawPointer($0), metadata)) }
  }

  /// A copy of the payload of `value`, whose case has tag `tag`.
  ///
  /// - Precondition: `cases[tag].payloadType` is laid out as `Value`.
  @inlinable
  func payload<Root, Value>(of value: Root, tag: Int, as _: Value.Type) -> Value {
    // Unprotected: written and read here and by the enum's own projection function alone.
    _withUnprotectedUnsafeTemporaryAllocation(of: Root.self, capacity: 1) { buffer in
      let storage = UnsafeMutableRawPointer(buffer.baseAddress!)
      buffer.baseAddress!.initialize(to: value)
      // Clears the tag bits: the storage now holds the payload (or its box), not a `Root`.
      projectEnumData(storage, metadata)
      guard cases[tag].isIndirect else {
        return storage.assumingMemoryBound(to: Value.self).move()
      }
      let box = storage.load(as: UnsafeRawPointer.self)
      let alignmentMask = MemoryLayout<Value>.alignment - 1
      let payload = (box + ((16 + alignmentMask) & ~alignmentMask)).load(as: Value.self)
      // Releases the copy's reference to the box.
      storage.assumingMemoryBound(to: AnyObject.self).deinitialize(count: 1)
      return payload
    }
  }
}
