// Probes whose refresh is a closure made where the types of the read are known (by inlinable
// code: `KeyPath.makeProbe`, `makeElementProbe`, a row store's `ElementAccess`), so that the
// refresh after every action is specialized: `ValueProbe.refresh` is generic code that is not,
// comparing through the `Equatable` witness table and copying through value witnesses.

/// A `ValueProbe` whose refresh is a closure made where the types are known (by an inlinable
/// `makeProbe`), so specialized: `ValueProbe.refresh` is generic code that is not.
@usableFromInline
final class RefreshedValueProbe<Value>: ValueProbe<Value>, @unchecked Sendable {
  // Safe: as `Probe`.

  /// Evaluates the read, remembers the new value, and returns whether it changed; the flag
  /// tells a refresh after any action (`refreshAfterAnyAction`) from one after a write. Not
  /// optional: a closure stored as a `let` is called without taking a reference to its context.
  @usableFromInline let refresher: (UnsafeRawPointer, ValueProbe<Value>, Bool) -> Bool

  @usableFromInline
  init(
    kind: Kind, isSafe: Bool, keyPath: AnyKeyPath, byteRange: Range<Int>? = nil,
    generation: UInt64, value: Value, read: @escaping (UnsafeRawPointer) -> Value,
    isUnchanged: @escaping (Value, Value) -> Bool,
    refresher: @escaping (UnsafeRawPointer, ValueProbe<Value>, Bool) -> Bool
  ) {
    self.refresher = refresher
    super.init(
      kind: kind, isSafe: isSafe, keyPath: keyPath, byteRange: byteRange, generation: generation,
      value: value, read: read, isUnchanged: isUnchanged)
  }

  override func refresh(_ state: UnsafeRawPointer) -> Bool {
    refresher(state, self, false)
  }

  override func refreshAfterAnyAction(_ state: UnsafeRawPointer) -> Bool {
    refresher(state, self, true)
  }
}

/// An element probe whose refresh is a closure made where the types are known (by an inlinable
/// `makeElementProbe`, or by a row store's read: see `ElementAccess`), so specialized:
/// `ValueProbe.refresh` is generic code that is not.
@usableFromInline
final class RefreshedElementProbe<ID: Hashable, Value>: ElementProbe<ID, Value>,
  @unchecked Sendable
{
  // Safe: as `Probe`.

  /// Whether `refreshAfterWrite`, the refresher given, also serves after any action (its rule counts identical bits as
  /// unchanged); otherwise `ValueProbe.refreshAfterAnyAction` does.
  @usableFromInline let refreshesAfterAnyAction: Bool

  @usableFromInline
  init(
    kind: Kind, isSafe: Bool, field: AnyKeyPath, arrayKeyPath: AnyKeyPath, id: ID,
    idHash: Int, reader: UInt64?, generation: UInt64, value: Value?,
    read: @escaping (UnsafeRawPointer) -> Value?, isUnchanged: @escaping (Value?, Value?) -> Bool,
    readWrites: @escaping (UnsafeRawPointer) -> ElementWrites,
    refresher: @escaping (UnsafeRawPointer, Probe) -> Bool,
    refreshesAfterAnyAction: Bool
  ) {
    self.refreshesAfterAnyAction = refreshesAfterAnyAction
    super.init(
      kind: kind, isSafe: isSafe, field: field, arrayKeyPath: arrayKeyPath, id: id,
      idHash: idHash, reader: reader, generation: generation, value: value, read: read,
      isUnchanged: isUnchanged, readWrites: readWrites, refreshAfterWrite: refresher)
  }

  override func refresh(_ state: UnsafeRawPointer) -> Bool {
    refreshAfterWrite(state, self)
  }

  override func refreshAfterAnyAction(_ state: UnsafeRawPointer) -> Bool {
    guard refreshesAfterAnyAction else { return super.refreshAfterAnyAction(state) }
    return refreshAfterWrite(state, self)
  }
}
