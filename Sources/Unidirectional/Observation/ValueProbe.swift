/// A probe that keeps the value it saw last and compares each new one with it.
@usableFromInline
class ValueProbe<Value>: Probe, @unchecked Sendable {
  // Safe: as `Probe`, used by one thread at a time.

  /// Evaluates the read on a state.
  final let read: (UnsafeRawPointer) -> Value
  /// Whether a new value is unchanged from the last (see ``Probe``'s rules of change): `==`,
  /// after a check of identical bits except for stored probes, which are refreshed only when
  /// their bits changed.
  final let isUnchanged: (Value, Value) -> Bool
  @usableFromInline @exclusivity(unchecked) final var value: Value

  @usableFromInline
  init(
    kind: Kind, isSafe: Bool, keyPath: AnyKeyPath, arrayKeyPath: AnyKeyPath? = nil,
    reader: UInt64? = nil, byteRange: Range<Int>? = nil, generation: UInt64,
    value: Value, read: @escaping (UnsafeRawPointer) -> Value,
    isUnchanged: @escaping (Value, Value) -> Bool,
    refreshAfterWrite: @escaping (UnsafeRawPointer, Probe) -> Bool = Probe.refresh
  ) {
    self.read = read
    self.isUnchanged = isUnchanged
    self.value = value
    super.init(
      kind: kind, isSafe: isSafe, keyPath: keyPath, arrayKeyPath: arrayKeyPath, reader: reader,
      byteRange: byteRange, generation: generation, refreshAfterWrite: refreshAfterWrite)
  }

  override func refresh(_ state: UnsafeRawPointer) -> Bool {
    let new = read(state)
    let unchanged = isUnchanged(value, new)
    // Always: equal values may live in different storage (DESIGN invariant 4).
    value = new
    return !unchanged
  }

  override func refreshAfterAnyAction(_ state: UnsafeRawPointer) -> Bool {
    let new = read(state)
    let unchanged = bitwiseIdentical(value, new) || isUnchanged(value, new)
    value = new
    return !unchanged
  }

  #if DEBUG
    override final func elementChanges(in state: UnsafeRawPointer) -> ElementChanges? {
      guard let old = value as? any ElementwiseComparable else { return nil }
      return old.elementChanges(to: read(state))
    }
  #endif

  override final func adopt(_ other: Probe) {
    value = unsafeDowncast(other, to: ValueProbe<Value>.self).value
  }
}

/// A probe of a value inside the element with a given id of an `IdentifiedArray`.
@usableFromInline
class ElementProbe<ID: Hashable, Value>: ValueProbe<Value?>, @unchecked Sendable {
  // Safe: as `Probe`, used by one thread at a time.

  @usableFromInline final let id: ID
  /// `elementIDHash(id)`, computed where `ID` is known.
  final let idHash: Int
  /// Reads the write record of the probe's array from a state.
  final let readWrites: (UnsafeRawPointer) -> ElementWrites

  @usableFromInline
  init(
    kind: Kind, isSafe: Bool, field: AnyKeyPath, arrayKeyPath: AnyKeyPath, id: ID,
    idHash: Int, reader: UInt64?, generation: UInt64, value: Value?,
    read: @escaping (UnsafeRawPointer) -> Value?, isUnchanged: @escaping (Value?, Value?) -> Bool,
    readWrites: @escaping (UnsafeRawPointer) -> ElementWrites,
    refreshAfterWrite: @escaping (UnsafeRawPointer, Probe) -> Bool = Probe.refresh
  ) {
    self.id = id
    self.idHash = idHash
    self.readWrites = readWrites
    super.init(
      kind: kind, isSafe: isSafe, keyPath: field, arrayKeyPath: arrayKeyPath, reader: reader,
      generation: generation, value: value, read: read, isUnchanged: isUnchanged,
      refreshAfterWrite: refreshAfterWrite)
  }

  override final var key: ReadKey {
    let key = ReadKey.element(array: arrayKeyPath!, id: AnyHashable(id), field: keyPath)
    return reader.map { .child(key, reader: $0) } ?? key
  }

  override final func makeGroup(state: UnsafeRawPointer) -> ElementGroup {
    ElementGroup(array: arrayKeyPath!, readWrites: readWrites, state: state)
  }

  override final var elementIDHash: Int { idHash }
}
