/// `ElementAccess` for an element of an `IdentifiedArray` at a known offset of the root state.
@usableFromInline
final class IdentifiedElementAccess<Element: Identifiable>: ElementAccess<Element>,
  @unchecked Sendable
where Element.ID: Sendable {
  // Safe: as `ElementAccess`; `readWrites` is called only by the owner of the root store.

  /// The key path of the array in the root state.
  let array: AnyKeyPath
  let id: Element.ID
  /// Reads the array's write record from a root state (see `ElementGroup`).
  let readWrites: (UnsafeRawPointer) -> ElementWrites

  @usableFromInline
  init(
    root: ObjectIdentifier, graph: ObservationGraph, rootRecorder: AccessRecorder,
    state: UnsafeMutableRawPointer, reader: UInt64, lastKnown: SpinLocked<Element>,
    array: AnyKeyPath, id: Element.ID,
    locate: @escaping @Sendable (UnsafeRawPointer) -> UnsafeRawPointer?,
    readWrites: @escaping (UnsafeRawPointer) -> ElementWrites
  ) {
    self.array = array
    self.id = id
    self.readWrites = readWrites
    super.init(
      root: root, graph: graph, rootRecorder: rootRecorder, state: state, reader: reader,
      lastKnown: lastKnown, locate: locate)
  }

  @usableFromInline
  override func makeProbe<Value>(
    field: KeyPath<Element, Value>, isSafe: Bool, reader: UInt64, value: Value?,
    refresher: @escaping (UnsafeRawPointer, Probe, _ afterAnyAction: Bool) -> Bool
  ) -> Probe {
    ElementProbe(
      kind: .element, isSafe: isSafe, field: field, arrayKeyPath: array, id: id,
      idHash: elementIDHash(id), reader: reader, generation: graph.generation, value: value,
      readWrites: readWrites, refresher: refresher)
  }
}
