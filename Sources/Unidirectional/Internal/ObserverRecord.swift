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
  @usableFromInline @exclusivity(unchecked) var keyPaths: [AnyKeyPath] = []

  /// The stored offset of each of `keyPaths`, reused by the next run.
  @usableFromInline @exclusivity(unchecked) var offsets: [Int?] = []

  /// The probes this observer is subscribed to: one per distinct key path in `keyPaths`.
  @exclusivity(unchecked) var probes: [Probe] = []

  /// The offset recorded for read number `index` of the last run, if that read was `keyPath`.
  ///
  /// - Returns: `.some(offset)` on a hit (the offset itself may be `nil` for a computed key
  ///   path), `nil` on a miss.
  @inlinable @inline(__always)
  func predictedOffset(at index: Int, of keyPath: AnyKeyPath) -> Int?? {
    guard index < keyPaths.count, keyPaths[index] === keyPath else { return nil }
    return .some(offsets[index])
  }

  @usableFromInline
  init(id: UInt64, body: @escaping @Sendable () -> Void) {
    self.id = id
    self.body = body
  }
}
