/// The store's record of one registered observer.
///
/// All mutable state is guarded by the owning store's lock. The draining thread copies `body`
/// out under the lock and calls it outside, so a `cancel()` that races with a run stops every
/// later run and frees the closure as soon as the run in progress returns.
@usableFromInline
final class ObserverRecord: @unchecked Sendable {
  // Safe: `body`, `keyPaths` and `probes` are read and written only under the owning store's
  // lock; `id` is immutable.

  /// Registration order: a smaller id registered earlier and runs earlier.
  @usableFromInline let id: UInt64

  /// The closure to run, or `nil` once the observer is cancelled.
  // Unchecked exclusivity: guarded by the store's lock (see above).
  @usableFromInline @exclusivity(unchecked) var body: (@Sendable () -> Void)?

  /// The key paths the latest run read, in order, as recorded.
  @exclusivity(unchecked) var keyPaths: [AnyKeyPath] = []

  /// The probes this observer is subscribed to: one per distinct key path in `keyPaths`.
  @exclusivity(unchecked) var probes: [Probe] = []

  init(id: UInt64, body: @escaping @Sendable () -> Void) {
    self.id = id
    self.body = body
  }
}
