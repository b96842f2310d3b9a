/// Watches one key path of a store's state and says, after each action, whether its value
/// changed.
///
/// There is one probe per distinct key path, shared by every observer that read it, so a value
/// read by a thousand observers is compared once per action. "Changed" follows the observation
/// rules: `!=` for `Equatable` values, `!==` for class instances, and "on every action" for
/// anything else.
///
/// Probes are created and used only under the owning store's lock.
class Probe<State>: @unchecked Sendable {
  // Safe: every stored property is read and written only under the owning store's lock.

  /// The key path this probe watches.
  final let keyPath: AnyKeyPath

  /// The observers that read this key path in their latest run, ordered by registration.
  final var subscribers: [ObserverRecord<State>] = []

  /// Where this probe sits in its graph's list of live probes, for O(1) removal.
  final var slot = 0

  init(keyPath: AnyKeyPath) {
    self.keyPath = keyPath
  }

  /// Compares the value at the key path in `state` with the value seen last, remembers the new
  /// one, and returns whether it changed.
  func refresh(_ state: UnsafePointer<State>) -> Bool {
    fatalError("abstract")
  }

  /// Inserts `observer` among the subscribers, keeping registration order.
  final func subscribe(_ observer: ObserverRecord<State>) {
    var low = 0
    var high = subscribers.count
    while low < high {
      let mid = (low + high) / 2
      if subscribers[mid].id < observer.id { low = mid + 1 } else { high = mid }
    }
    if low < subscribers.count, subscribers[low] === observer { return }
    subscribers.insert(observer, at: low)
  }

  /// Removes `observer` from the subscribers.
  final func unsubscribe(_ observer: ObserverRecord<State>) {
    var low = 0
    var high = subscribers.count
    while low < high {
      let mid = (low + high) / 2
      if subscribers[mid].id < observer.id { low = mid + 1 } else { high = mid }
    }
    if low < subscribers.count, subscribers[low] === observer {
      subscribers.remove(at: low)
    }
  }
}

/// Reads a value through its byte offset when the key path is a chain of stored properties
/// (a plain load, a few nanoseconds), and through the key path otherwise.
struct ValueReader<State, Value> {
  let keyPath: KeyPath<State, Value>
  let offset: Int?

  init(_ keyPath: KeyPath<State, Value>) {
    self.keyPath = keyPath
    self.offset = MemoryLayout<State>.offset(of: keyPath)
  }

  @inline(__always)
  func read(_ state: UnsafePointer<State>) -> Value {
    if let offset {
      return UnsafeRawPointer(state).advanced(by: offset)
        .assumingMemoryBound(to: Value.self).pointee
    }
    return state.pointee[keyPath: keyPath]
  }
}

/// A probe of an `Equatable` value: changed when `!=`.
final class EquatableProbe<State, Value: Equatable>: Probe<State>, @unchecked Sendable {
  private let reader: ValueReader<State, Value>
  private var last: Value

  init(_ keyPath: KeyPath<State, Value>, state: UnsafePointer<State>) {
    self.reader = ValueReader(keyPath)
    self.last = reader.read(state)
    super.init(keyPath: keyPath)
  }

  override func refresh(_ state: UnsafePointer<State>) -> Bool {
    let value = reader.read(state)
    guard value != last else { return false }
    last = value
    return true
  }
}

/// A probe of a class instance: changed when `!==`.
///
/// It keeps the last instance alive, so a new instance at a recycled address is still seen as
/// a change.
final class IdentityProbe<State, Value>: Probe<State>, @unchecked Sendable {
  private let reader: ValueReader<State, Value>
  private var last: AnyObject

  init(_ keyPath: KeyPath<State, Value>, state: UnsafePointer<State>) {
    self.reader = ValueReader(keyPath)
    self.last = reader.read(state) as AnyObject
    super.init(keyPath: keyPath)
  }

  override func refresh(_ state: UnsafePointer<State>) -> Bool {
    let value = reader.read(state) as AnyObject
    guard value !== last else { return false }
    last = value
    return true
  }
}

/// A probe of a value that can be compared neither by value nor by identity: it reports a
/// change after every action.
final class AlwaysChangedProbe<State>: Probe<State>, @unchecked Sendable {
  override func refresh(_ state: UnsafePointer<State>) -> Bool {
    true
  }
}

/// Makes the right kind of probe for a key path whose value type is known only at run time.
///
/// Every `KeyPath` conforms, so an observer's recorded reads (kept as `AnyKeyPath`) can be
/// turned back into typed probes by one dynamic cast when a new key path is first observed.
protocol ProbeFactory: AnyObject {
  func makeProbe<State>(state: UnsafePointer<State>) -> Probe<State>
}

extension KeyPath: ProbeFactory {
  func makeProbe<State>(state: UnsafePointer<State>) -> Probe<State> {
    precondition(Root.self == State.self, "Unidirectional: a key path of another root type")
    let state = UnsafeRawPointer(state).assumingMemoryBound(to: Root.self)
    let probe: Probe<Root>
    if let equatable = Value.self as? any Equatable.Type {
      probe = makeEquatableProbe(equatable, state: state)
    } else if Value.self is AnyObject.Type {
      probe = IdentityProbe(self, state: state)
    } else {
      probe = AlwaysChangedProbe(keyPath: self)
    }
    return unsafeDowncast(probe, to: Probe<State>.self)
  }

  private func makeEquatableProbe<E: Equatable>(
    _: E.Type, state: UnsafePointer<Root>
  ) -> Probe<Root> {
    // `Value == E` here: the cast only recovers the conformance that the dynamic check found.
    EquatableProbe(unsafeDowncast(self, to: KeyPath<Root, E>.self), state: state)
  }
}
