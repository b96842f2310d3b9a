/// What the latest write to an `IdentifiedArray` in a store's state changed.
struct ElementWrites {
  /// The array's `writeVersion`.
  var version: UInt64
  /// Its `previousWriteVersion`.
  var previous: UInt64
  /// The only element the latest write touched, or `nil` if it may have touched several.
  var id: AnyHashable?
}

/// Reads the write record of one `IdentifiedArray` in a store's state (typed when made, so the
/// graph stays non-generic).
typealias ElementWritesReader = @Sendable (UnsafeRawPointer) -> ElementWrites

/// The element of an `IdentifiedArray` that a root key path reads through, as registered by a
/// child store made with `scope(state:id:action:)`.
struct ElementPath {
  /// The key path of the array in the root state: identifies the group.
  let array: AnyKeyPath
  /// The element's id.
  let id: AnyHashable
  let readWrites: ElementWritesReader
  /// How many child stores registered this key path.
  var registrations = 1
}

/// The probes of single elements of one `IdentifiedArray`, refreshed only when their element
/// may have changed.
///
/// A probe such as `\.rows[id: 7].title` cannot be skipped by bytes: the row lives in the
/// array's heap storage. Scanning every such probe after every action costs O(rows). The array
/// instead records each write (`writeVersion`, and the id when one element was touched), so
/// after an action the group reads one version: unchanged means none of its probes can have
/// changed; one write past the group's version refreshes only that element's probes; anything
/// else refreshes them all.
///
/// Guarded by the owning store's lock, like the graph.
final class ElementGroup: @unchecked Sendable {
  // Safe: used only under the owning store's lock.

  let readWrites: ElementWritesReader
  /// The array's `writeVersion` when the probes were last refreshed.
  var version: UInt64
  /// The probes, by element id.
  var probesByID: [AnyHashable: [Probe]] = [:]
  /// Where this group sits in the graph's list, for O(1) removal.
  var slot = 0

  init(readWrites: @escaping ElementWritesReader, state: UnsafeRawPointer) {
    self.readWrites = readWrites
    self.version = readWrites(state).version
  }

  /// Refreshes the probes the writes since the last refresh may have changed, and passes each
  /// that did change to `changed`.
  func refresh(_ state: UnsafeRawPointer, changed: (Probe) -> Void) {
    let writes = readWrites(state)
    guard writes.version != version else { return }
    if writes.previous == version, let id = writes.id {
      for probe in probesByID[id] ?? [] where probe.refresh(state) { changed(probe) }
    } else {
      for probes in probesByID.values {
        for probe in probes where probe.refresh(state) { changed(probe) }
      }
    }
    version = writes.version
  }
}
