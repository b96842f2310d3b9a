#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A probe that keeps the value it saw last and compares each new one with it.
@usableFromInline
class ValueProbe<Value>: Probe, @unchecked Sendable {
  // Safe: as `Probe`, used by one thread at a time.

  /// The value the probe saw last.
  @usableFromInline @exclusivity(unchecked) final var value: Value

  @usableFromInline
  init(
    kind: Kind, isSafe: Bool, keyPath: AnyKeyPath, arrayKeyPath: AnyKeyPath? = nil,
    reader: UInt64? = nil, byteRange: Range<Int>? = nil, generation: UInt64,
    value: Value, refresher: @escaping (UnsafeRawPointer, Probe, _ afterAnyAction: Bool) -> Bool
  ) {
    self.value = value
    super.init(
      kind: kind, isSafe: isSafe, keyPath: keyPath, arrayKeyPath: arrayKeyPath, reader: reader,
      byteRange: byteRange, generation: generation, refresher: refresher)
  }

  /// Gives the probe `new`, the value read on the state just committed, and returns whether it
  /// changed by `rule`: the body of every refresher (see `Probe.refresher`).
  @inlinable @inline(__always)
  final func take(_ new: Value, by rule: (Value, Value) -> Bool, afterAnyAction: Bool) -> Bool {
    let unchanged =
      (afterAnyAction && bitwiseIdentical(value, new))
      || Unidirectional.isUnchanged(value, new, by: rule)
    // Always: equal values may live in different storage (DESIGN invariant 4).
    value = new
    return !unchanged
  }

  /// `take(_:by:afterAnyAction:)` of the value at `new` (in a state just committed), compared
  /// where it is with the probe's own, then copied in: one retain of what the new value holds
  /// and one release of the old, where comparing copies would add a pair for each.
  @inlinable @inline(__always)
  final func take(
    at new: UnsafePointer<Value>, by rule: (UnsafePointer<Value>, UnsafePointer<Value>) -> Bool,
    afterAnyAction: Bool
  ) -> Bool {
    // The probe's value in place: `rule` (an `==`) cannot reach the probe.
    let unchanged = withUnsafeMutablePointer(to: &value) { old in
      let size = MemoryLayout<Value>.size
      let identical = { size == 0 || memcmp(old, new, size) == 0 }
      if hasBitwiseEquality(Value.self) { return identical() }
      return (afterAnyAction && identical()) || rule(old, new)
    }
    // Always: equal values may live in different storage (DESIGN invariant 4).
    value = new.pointee
    return !unchanged
  }

  #if DEBUG
    override final func elementChanges(in state: UnsafeRawPointer) -> ElementChanges? {
      // Called for stored probes only: the value is at `byteStart`.
      guard kind == .stored, let old = value as? any ElementwiseComparable else { return nil }
      return old.elementChanges(to: state.load(fromByteOffset: byteStart, as: Value.self))
    }
  #endif

  /// `take(_:by:afterAnyAction:)` of an optional value (an element read, `nil` when the element
  /// is absent), compared inline when the wrapped value's `==` is bit equality. A label of its
  /// own: as an overload, the method above (not generic itself) would be chosen.
  @inlinable @inline(__always)
  final func take<Wrapped>(
    optional new: Wrapped?, by rule: (Wrapped?, Wrapped?) -> Bool, afterAnyAction: Bool
  ) -> Bool where Value == Wrapped? {
    let unchanged =
      (afterAnyAction && bitwiseIdentical(value, new))
      || Unidirectional.isUnchanged(value, new, by: rule)
    value = new
    return !unchanged
  }

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
    readWrites: @escaping (UnsafeRawPointer) -> ElementWrites,
    refresher: @escaping (UnsafeRawPointer, Probe, _ afterAnyAction: Bool) -> Bool
  ) {
    self.id = id
    self.idHash = idHash
    self.readWrites = readWrites
    super.init(
      kind: kind, isSafe: isSafe, keyPath: field, arrayKeyPath: arrayKeyPath, reader: reader,
      generation: generation, value: value, refresher: refresher)
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
