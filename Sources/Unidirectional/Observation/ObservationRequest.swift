/// A change of a store's observation graph that cannot be made where it is asked for: by a
/// thread that does not own the store (queued in the store's `Pending`, carried out by the owner
/// in `Store.carryOut`), or while the graph evaluates probes (kept until the pass is over, see
/// `ObservationGraph.perform`).
@usableFromInline
enum ObservationRequest {
  /// A new observer, whose first run read the probes on the state of `generation`.
  case register(ObserverRecord, reads: [Probe], generation: UInt32)
  /// A cancelled observer to drop.
  case remove(ObserverRecord)
  /// A read made while Apple's Observation tracked, on `thread`, of the state of `generation`.
  case track(TrackedReads.Entry, thread: UInt, generation: UInt32)
}
