/// Watches one key path of a store's state and says, after each action, whether its value
/// changed.
///
/// There is one probe per distinct key path, shared by every observer that read it, so a value
/// read by a thousand observers is compared once per action. "Changed" follows the observation
/// rules: `!=` for `Equatable` values, `!==` for class instances, and "on every action" for
/// anything else.
///
/// The base class is not generic, so the graph that drives probes runs without generic
/// metadata look-ups; each subclass knows its state and value types.
///
/// Probes are created and used only under the owning store's lock.
@usableFromInline
class Probe: @unchecked Sendable {
  // Safe: every stored property is read and written only under the owning store's lock.

  /// The key path this probe watches.
  final let keyPath: AnyKeyPath

  /// Where the value is stored inside the state, when the key path is a chain of stored
  /// properties; `nil` for computed properties and subscripts.
  final let byteRange: Range<Int>?

  /// The observers that read this key path in their latest run, ordered by registration.
  // Probe state is only touched under the store's lock, so the runtime exclusivity checks
  // (a hot-path cost) are disabled for it.
  @exclusivity(unchecked) final var subscribers: [ObserverRecord] = []

  /// Where this probe sits in its graph's list, for O(1) removal.
  @exclusivity(unchecked) final var slot = 0

  /// The element group this probe belongs to (with its element's id), if it reads one element
  /// of an `IdentifiedArray` through a child store.
  @exclusivity(unchecked) final var elementGroup: ElementGroup?
  @exclusivity(unchecked) final var elementID: AnyHashable?

  /// The last action for which this probe was refreshed, so a probe that spans several
  /// changed blocks is refreshed once.
  @exclusivity(unchecked) final var refreshedAt: UInt64 = 0

  /// `byteRange` as plain integers for the per-action check (`byteCount` 0 when none).
  final let byteStart: Int
  final let byteCount: Int

  init(keyPath: AnyKeyPath, byteRange: Range<Int>?) {
    self.keyPath = keyPath
    self.byteRange = byteRange
    self.byteStart = byteRange?.lowerBound ?? 0
    self.byteCount = byteRange?.count ?? 0
  }

  /// Compares the value at the key path in `state` with the value seen last, remembers the new
  /// one, and returns whether it changed.
  func refresh(_ state: UnsafeRawPointer) -> Bool {
    fatalError("abstract")
  }

  /// Whether unchanged bytes at ``byteRange`` prove an unchanged value.
  ///
  /// True for every probe that keeps its last value: any copy-on-write storage those bytes
  /// point to is then shared with the probe, so it cannot have been mutated in place.
  var isSkippableByBytes: Bool { byteRange.map { !$0.isEmpty } ?? false }

  /// Inserts `observer` among the subscribers, keeping registration order.
  final func subscribe(_ observer: ObserverRecord) {
    let index = position(of: observer)
    if index < subscribers.count, subscribers[index] === observer { return }
    subscribers.insert(observer, at: index)
  }

  /// Removes `observer` from the subscribers.
  final func unsubscribe(_ observer: ObserverRecord) {
    let index = position(of: observer)
    if index < subscribers.count, subscribers[index] === observer {
      subscribers.remove(at: index)
    }
  }

  private func position(of observer: ObserverRecord) -> Int {
    var low = 0
    var high = subscribers.count
    while low < high {
      let mid = (low + high) / 2
      if subscribers[mid].id < observer.id { low = mid + 1 } else { high = mid }
    }
    return low
  }
}

/// A probe that keeps the last value it saw and compares each new one with it.
///
/// `Equatable` values compare with `==`; class instances by identity. Keeping the last value
/// alive matters for both: copy-on-write storage stays shared (see `isSkippableByBytes`), and a
/// new instance at a recycled address is still seen as a change.
final class ValueProbe<State, Value>: Probe, @unchecked Sendable {
  private let typedKeyPath: KeyPath<State, Value>
  private let offset: Int?
  private let isUnchanged: (Value, Value) -> Bool
  @exclusivity(unchecked) private var last: Value

  init(
    _ keyPath: KeyPath<State, Value>, state: UnsafeRawPointer,
    isUnchanged: @escaping (Value, Value) -> Bool
  ) {
    let offset = MemoryLayout<State>.offset(of: keyPath)
    self.typedKeyPath = keyPath
    self.offset = offset
    self.isUnchanged = isUnchanged
    self.last = readValue(keyPath, offset, state)
    super.init(keyPath: keyPath, byteRange: offset.map { $0..<($0 + MemoryLayout<Value>.size) })
  }

  override func refresh(_ state: UnsafeRawPointer) -> Bool {
    let value = readValue(typedKeyPath, offset, state)
    guard !isUnchanged(value, last) else { return false }
    last = value
    return true
  }
}

/// Reads a value through its byte offset when the key path is a chain of stored properties
/// (a plain load), and through the key path otherwise.
@inline(__always)
private func readValue<State, Value>(
  _ keyPath: KeyPath<State, Value>, _ offset: Int?, _ state: UnsafeRawPointer
) -> Value {
  // `load` is a method of the non-generic raw pointer: unlike `UnsafePointer<Value>.pointee`,
  // it needs no generic metadata look-up in this unspecialized code.
  if let offset {
    return state.load(fromByteOffset: offset, as: Value.self)
  }
  return state.assumingMemoryBound(to: State.self).pointee[keyPath: keyPath]
}

/// A probe of a value that can be compared neither by value nor by identity: it reports a
/// change after every action.
final class AlwaysChangedProbe: Probe, @unchecked Sendable {
  init(keyPath: AnyKeyPath) {
    super.init(keyPath: keyPath, byteRange: nil)
  }

  override func refresh(_ state: UnsafeRawPointer) -> Bool {
    true
  }
}

/// Makes the right kind of probe for a key path whose value type is known only at run time.
///
/// Every `KeyPath` conforms, so an observer's recorded reads (kept as `AnyKeyPath`) can be
/// turned back into typed probes by one dynamic cast when a key path is first observed.
protocol ProbeFactory: AnyObject {
  func makeProbe(state: UnsafeRawPointer) -> Probe
}

extension KeyPath: ProbeFactory {
  func makeProbe(state: UnsafeRawPointer) -> Probe {
    if let equatable = Value.self as? any Equatable.Type {
      return makeEquatableProbe(equatable, state: state)
    }
    if Value.self is AnyObject.Type {
      return ValueProbe(self, state: state) { ($0 as AnyObject) === ($1 as AnyObject) }
    }
    return AlwaysChangedProbe(keyPath: self)
  }

  private func makeEquatableProbe<E: Equatable>(_: E.Type, state: UnsafeRawPointer) -> Probe {
    // `Value == E` here: the cast only recovers the conformance the dynamic check found.
    ValueProbe(unsafeDowncast(self, to: KeyPath<Root, E>.self), state: state, isUnchanged: ==)
  }
}
