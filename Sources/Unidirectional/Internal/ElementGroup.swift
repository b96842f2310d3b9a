/// What the writes to an `IdentifiedArray` in a store's state changed since some version.
struct ElementWrites {
  /// The array's `writeVersion`.
  var version: UInt64
  /// Its `previousWriteVersion`.
  var previous: UInt64
  /// The only element the latest write touched, or `nil` if it may have touched several.
  var id: AnyHashable?
}

/// The element probes of one `IdentifiedArray` at a stored offset of the state, refreshed only
/// when their element may have changed.
///
/// A read such as `store[\.rows, id: 7, \.title]` cannot be skipped by the bytes of the state:
/// the row lives in the array's heap storage. Checking every such probe after every action
/// would cost O(rows). The array instead records each write (`writeVersion`, and the id when one
/// element was touched), so after an action the group reads one version: unchanged means none
/// of its probes can have changed; one write past the group's version refreshes only that
/// element's probes; anything else (several writes, a sort, a replaced array) refreshes them all.
///
/// Owned, like the graph, by the thread that owns the store.
final class ElementGroup: @unchecked Sendable {
  // Safe: used only by the thread that owns the store (see `StoreGate`).

  /// The key path of the array: identifies the group.
  let array: AnyKeyPath
  /// Reads the array's write record from a state.
  let readWrites: (UnsafeRawPointer) -> ElementWrites
  /// The array's `writeVersion` when the probes were last brought up to date.
  @exclusivity(unchecked) var version: UInt64
  /// The probes, by element id.
  @exclusivity(unchecked) var probesByID: [AnyHashable: [Probe]] = [:]

  init(
    array: AnyKeyPath, readWrites: @escaping (UnsafeRawPointer) -> ElementWrites, version: UInt64
  ) {
    self.array = array
    self.readWrites = readWrites
    self.version = version
  }

  /// Passes each probe the writes since the last call may have changed to `mayHaveChanged`.
  func forEachProbeWritten(in state: UnsafeRawPointer, _ mayHaveChanged: (Probe) -> Void) {
    let writes = readWrites(state)
    guard writes.version != version else { return }
    if writes.previous == version, let id = writes.id {
      for probe in probesByID[id] ?? [] { mayHaveChanged(probe) }
    } else {
      for probes in probesByID.values {
        for probe in probes { mayHaveChanged(probe) }
      }
    }
    version = writes.version
  }

  func insert(_ probe: Probe, id: AnyHashable) {
    probesByID[id, default: []].append(probe)
    probe.group = self
    probe.elementID = id
  }

  /// Removes `probe`; returns whether the group is now empty.
  func remove(_ probe: Probe) -> Bool {
    if let id = probe.elementID {
      probesByID[id]?.removeAll { $0 === probe }
      if probesByID[id]?.isEmpty == true { probesByID[id] = nil }
    }
    probe.group = nil
    probe.elementID = nil
    return probesByID.isEmpty
  }
}

extension IdentifiedArray {
  /// Makes the reader of the write record of the array at `offset` in a state.
  static func writesReader(atOffset offset: Int) -> (UnsafeRawPointer) -> ElementWrites {
    { state in
      let array = (state + offset).assumingMemoryBound(to: IdentifiedArray.self)
      return ElementWrites(
        version: array.pointee.writeVersion, previous: array.pointee.previousWriteVersion,
        id: array.pointee.lastWrittenID.map { AnyHashable($0) })
    }
  }
}
