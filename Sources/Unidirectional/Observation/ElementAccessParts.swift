/// What `scope(state:id:action:)` makes of an `IdentifiedElementAccess` where the root state's
/// type is known, so that it is specialized.
@usableFromInline
struct ElementAccessParts<Element> {
  /// See `ElementAccess.locate`.
  @usableFromInline let locate: @Sendable (UnsafeRawPointer) -> UnsafeRawPointer?
  /// See `IdentifiedElementAccess.readWrites`.
  @usableFromInline let readWrites: (UnsafeRawPointer) -> ElementWrites
  /// The keeper's work when the root store's owner runs it (see `ChildReader.keepLastKnown`):
  /// returns `false` when run otherwise.
  @usableFromInline let keep: @Sendable (ElementAccess<Element>) -> Bool

  @inlinable
  init(
    locate: @escaping @Sendable (UnsafeRawPointer) -> UnsafeRawPointer?,
    readWrites: @escaping (UnsafeRawPointer) -> ElementWrites,
    keep: @escaping @Sendable (ElementAccess<Element>) -> Bool
  ) {
    self.locate = locate
    self.readWrites = readWrites
    self.keep = keep
  }
}
