/// The watches a store keeps (see `ChildWatch`), arranged so that checking them after an action
/// costs one check per watch outside collection rows, and per collection, not per row.
///
/// A watch of a child inside a `forEach` row (`ChildWatch.row`) is kept with the other watches
/// of that collection's rows, by row. After an action, the collection's write versions tell
/// whether it was written since the last check, and whether only one row was: then only that
/// row's watches are checked; if it was not written, none are. A write that may have changed
/// several rows (a sort, a bulk edit, a replaced array) checks them all.
///
/// Part of the effect runtime's state (`EffectRuntimeStateMachine`), guarded by its lock.
struct WatchSet {
  /// Every watch's key, with the collection row that holds it, if any (`nil`: ungrouped).
  private var rowOfKey: [EffectID: (collection: EffectID, id: EffectID)?] = [:]
  /// The watches outside collection rows, by key.
  private var ungrouped: [EffectID: ChildWatch] = [:]
  /// The watches inside collection rows, by collection.
  private var collections: [EffectID: Collection] = [:]

  /// The watches of one collection's rows.
  private struct Collection {
    /// Reads the collection's write versions from the store's state.
    let versions: @Sendable (UnsafeRawPointer) -> ChildWatch.RowWrites?
    /// The versions at the latest check; `nil` before the first.
    var checked: ChildWatch.RowWrites?
    /// The watches, by row id, then by key.
    var rows: [EffectID: [EffectID: ChildWatch]] = [:]
  }

  /// The number of watches.
  var count: Int { rowOfKey.count }

  /// Keeps `watch` unless one with its key is kept. Returns whether it was kept.
  mutating func insert(_ watch: ChildWatch) -> Bool {
    guard rowOfKey[watch.key] == nil else { return false }
    guard let row = watch.row else {
      rowOfKey[watch.key] = .some(nil)
      ungrouped[watch.key] = watch
      return true
    }
    rowOfKey[watch.key] = (row.collection, row.id)
    collections[row.collection, default: Collection(versions: row.versions)]
      .rows[row.id, default: [:]][watch.key] = watch
    return true
  }

  /// Asks the watches that may have something to say about the committed state at `state`, and
  /// forgets those whose child is gone.
  ///
  /// - Returns: The effects to cancel.
  mutating func check(_ state: UnsafeRawPointer) -> [ChildWatch.Cancellation] {
    var cancellations: [ChildWatch.Cancellation] = []
    var finished: [EffectID] = []
    for (key, watch) in ungrouped {
      let verdict = watch.check(state)
      cancellations += verdict.cancellations
      if verdict.isFinished { finished.append(key) }
    }
    for (key, collection) in collections {
      let now = collection.versions(state)
      // Written rows only; all of them when the versions cannot tell which.
      let rowsToCheck: [EffectID]
      switch (collection.checked, now) {
      case (let checked?, let now?) where now.version == checked.version:
        continue
      case (let checked?, let now?) where now.previousVersion == checked.version:
        rowsToCheck = now.lastWrittenID.map { [$0] } ?? Array(collection.rows.keys)
      default:
        rowsToCheck = Array(collection.rows.keys)
      }
      collections[key]?.checked = now
      for row in rowsToCheck {
        for (watchKey, watch) in collection.rows[row] ?? [:] {
          let verdict = watch.check(state)
          cancellations += verdict.cancellations
          if verdict.isFinished { finished.append(watchKey) }
        }
      }
    }
    for key in finished { remove(key) }
    return cancellations
  }

  /// Forgets the watches `shouldRemove` picks.
  mutating func removeAll(where shouldRemove: (ChildWatch) -> Bool) {
    var removed: [EffectID] = []
    for (key, watch) in ungrouped where shouldRemove(watch) { removed.append(key) }
    for collection in collections.values {
      for watches in collection.rows.values {
        for (key, watch) in watches where shouldRemove(watch) { removed.append(key) }
      }
    }
    for key in removed { remove(key) }
  }

  /// Forgets every watch.
  mutating func removeAll() {
    self = WatchSet()
  }

  private mutating func remove(_ key: EffectID) {
    guard case .some(let row) = rowOfKey.removeValue(forKey: key) else { return }
    guard let row else {
      ungrouped[key] = nil
      return
    }
    collections[row.collection]?.rows[row.id]?[key] = nil
    if collections[row.collection]?.rows[row.id]?.isEmpty == true {
      collections[row.collection]?.rows[row.id] = nil
    }
    if collections[row.collection]?.rows.isEmpty == true { collections[row.collection] = nil }
  }
}
