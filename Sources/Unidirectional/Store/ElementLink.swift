/// How the store of one element of an `IdentifiedArray` reads its element from the root store:
/// by id (`store[\.rows, id: id, \.field]`), so that its observers are checked only when the
/// element is written.
protocol ElementLink<RootState, Element>: Sendable {
  associatedtype RootState: Sendable
  associatedtype Element

  /// The value at `field` of the element, tracked like any read of `root`; once the element is
  /// gone, `nil`, or the value `fallback` gives.
  func read<Value, RootAction>(
    _ field: KeyPath<Element, Value>, from root: Store<RootState, RootAction>,
    fallback: ChildFallback<Element>?
  ) -> Value?
}

struct IdentifiedElementLink<RootState: Sendable, Element: Identifiable>: ElementLink
where Element.ID: Sendable {
  let array: UncheckedSendable<KeyPath<RootState, IdentifiedArray<Element>>>
  let id: Element.ID

  func read<Value, RootAction>(
    _ field: KeyPath<Element, Value>, from root: Store<RootState, RootAction>,
    fallback: ChildFallback<Element>?
  ) -> Value? {
    root.record(ElementRead(array: array.value, id: id, field: field, fallback: fallback))
  }
}
