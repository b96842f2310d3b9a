/// Where an element of an `IdentifiedArray` was last found, checked before a look-up by id.
@usableFromInline
final class ElementPositionHint: @unchecked Sendable {
  // Safe: used only by `ElementAccess.locate`, which only the thread that owns the root store
  // calls.
  @usableFromInline @exclusivity(unchecked) var position = 0

  @inlinable
  init() {}
}
