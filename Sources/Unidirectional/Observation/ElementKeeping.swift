/// How a row store's field probes keep its row for its keeper.
///
/// A row store made by `scope(state:id:action:)` answers from its row's last state once the row
/// is gone, so its keeper's probe remembers the row after every write of it (see
/// `ElementAccess.keeperRead`). A probe of a stored field of the same row store is refreshed
/// after the same writes, and locates the same row: it remembers the row itself and stamps the
/// keeper's probe with the graph's generation (`Probe.keptAt`). Its element group files keepers
/// after the other probes of their element, so the graph then skips the keeper: one look-up of
/// the row and one refresh fewer after each write of an observed row.
///
/// Only safe field probes keep: they are refreshed after every write of their row, in the group's
/// pass, before the keeper. A probe evaluated lazily, or a probe out of order, keeps nothing or
/// keeps the row twice; the keeper is skipped only in a pass in which the row was kept.
@usableFromInline
final class ElementKeeping<Element>: @unchecked Sendable {
  // Safe: used only by the thread that owns the root store, in the graph's refresh pass and
  // while it runs the keeper (see `ElementAccess`).

  /// The root store's graph, whose generation stamps the keeper. Unretained: the graph holds
  /// the probes that use this, and calls them.
  @usableFromInline unowned(unsafe) let graph: ObservationGraph
  /// The element when last seen (the child reader's).
  @usableFromInline let lastKnown: SpinLocked<Element>
  /// The keeper's probe, once made: held, so that `keeper` stays valid.
  @exclusivity(unchecked) private var heldKeeper: Probe?
  /// `heldKeeper`, used without taking a reference.
  @usableFromInline @exclusivity(unchecked) var keeper: Unmanaged<Probe>?

  @usableFromInline
  init(graph: ObservationGraph, lastKnown: SpinLocked<Element>) {
    self.graph = graph
    self.lastKnown = lastKnown
  }

  /// Makes `probe`, filed for the keeper, the one that field probes stamp.
  @usableFromInline
  func setKeeper(_ probe: Probe) {
    heldKeeper = probe
    keeper = Unmanaged.passUnretained(probe)
  }

  /// Remembers `element`, located in the current state by a field probe's refresh, for the
  /// keeper, and stamps the keeper so that the graph skips it in this pass.
  @inlinable @inline(__always)
  func keep(_ element: UnsafeRawPointer) {
    guard let keeper else { return }
    ElementAccess.remember(element.assumingMemoryBound(to: Element.self).pointee, in: lastKnown)
    let generation = graph.generation
    keeper._withUnsafeGuaranteedRef { $0.keptAt = generation }
  }
}
