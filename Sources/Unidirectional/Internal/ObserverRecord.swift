/// The store's record of one registered observer.
///
/// All mutable state is guarded by the owning store's lock. The draining thread copies `body`
/// out under the lock and calls it outside, so a `cancel()` that races with a run stops every
/// later run and frees the closure as soon as the run in progress returns.
@usableFromInline
final class ObserverRecord: @unchecked Sendable {
  // Safe: `body`, `reads` and `probes` are read and written only under the owning store's
  // lock; `id` is immutable.

  /// Registration order: a smaller id registered earlier and runs earlier.
  @usableFromInline let id: UInt64

  /// The closure to run, or `nil` once the observer is cancelled.
  // Unchecked exclusivity: guarded by the store's lock (see above).
  @usableFromInline @exclusivity(unchecked) var body: (@Sendable () -> Void)?

  /// The reads of the latest run, in order, as recorded: each key path with its stored offset,
  /// which the next run reuses.
  @usableFromInline @exclusivity(unchecked) var reads = SmallArray<RecordedRead>()

  /// The probes this observer is subscribed to: one per distinct key path in `reads`.
  @exclusivity(unchecked) var probes = SmallArray<Probe>()

  /// The offset recorded for read number `index` of the last run, if that read was `keyPath`.
  ///
  /// - Returns: `.some(offset)` on a hit (the offset itself may be `nil` for a computed key
  ///   path), `nil` on a miss.
  @inlinable @inline(__always)
  func predictedOffset(at index: Int, of keyPath: AnyKeyPath) -> Int?? {
    // Hot path (every read of a re-running observer): no count, one identity check.
    if index == 0 {
      guard let read = reads.head, read.keyPath === keyPath else { return nil }
      return .some(read.offset)
    }
    let tailIndex = index &- 1
    guard tailIndex < reads.tail.count else { return nil }
    let read = reads.tail[tailIndex]
    guard read.keyPath === keyPath else { return nil }
    return .some(read.offset)
  }

  @usableFromInline
  init(id: UInt64, body: @escaping @Sendable () -> Void) {
    self.id = id
    self.body = body
  }
}

/// One read of an observer's run: the key path, and where its value is stored in the state
/// (`nil` for a computed property or a subscript).
@usableFromInline
struct RecordedRead {
  @usableFromInline let keyPath: AnyKeyPath
  @usableFromInline let offset: Int?
}
