import Synchronization

/// One value that many features' states hold: settings, a signed-in user, a list kept in a
/// file.
///
/// ```swift
/// struct State: Equatable {
///   var settings = Shared(.file("/home/ada/.counter.json"), default: Settings())
/// }
///
/// // In a reducer:
/// state.settings.withLock { $0.step = 5 }
/// ```
///
/// Every ``Shared`` made with one key (see ``SharedKey``) in one ``SharedStorage`` refers to one
/// value. A state holds a copy of it, ``value``, which reads and observers see like any stored
/// field. ``withLock(_:)`` changes the one value and this copy together, and saves the value in
/// the background if its key stores it.
///
/// Only the closure of ``withLock(_:)`` is atomic: reading ``value`` in one statement and
/// writing with ``withLock(_:)`` in another can lose a change made in between by another
/// feature. Make the whole change in one closure:
///
/// ```swift
/// state.counter.withLock { $0 += 1 }  // never loses an increment
/// ```
public struct Shared<Value: Sendable>: Sendable {
  /// The one value this refers to.
  @usableFromInline let reference: SharedReference<Value>

  /// This state's copy of the value.
  public private(set) var value: Value

  /// The version of the one value that ``value`` is a copy of.
  @usableFromInline private(set) var version: UInt64

  /// Tells this `Shared` (and its copies) from another made for the same value: a store's
  /// subscription for a field skips the changes that field's own `withLock` makes while the
  /// store reduces, not those made through another field holding the value.
  @usableFromInline let instance = sharedInstances.wrappingAdd(1, ordering: .relaxed).oldValue

  /// The shared value of `key`, in the storage of ``DependencyValues/sharedStorage``.
  ///
  /// - Parameters:
  ///   - key: Where the value lives. Made for the first time in a storage, it is loaded; if
  ///     nothing is stored yet (or what is stored cannot be loaded, which is reported), it starts
  ///     from `default`.
  ///   - default: The value when nothing is stored yet.
  public init<Key: SharedKey>(_ key: Key, default: @autoclosure () -> Value)
  where Key.Value == Value {
    reference = DependencyValues.current.sharedStorage.reference(for: key, default: `default`)
    (value, version) = reference.current
  }

  /// Changes the value atomically, and this state's copy with it.
  ///
  /// The closure runs under the value's lock: it must not use this value's ``Shared`` again (it
  /// would deadlock), and should be short.
  ///
  /// - Parameter body: Changes the value.
  /// - Returns: What `body` returns.
  @inlinable @discardableResult
  public mutating func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    // A test store's step closure describes the copy it expects: the value is not touched. The
    // task-local is read only while some test store describes a step.
    if SharedExpectation.describers.load(ordering: .relaxed) > 0,
      SharedExpectation.isBeingDescribed
    {
      return try changeCopy(body)
    }
    let changed = try reference.withLock(body, by: instance)
    take(changed.value, at: changed.version)
    return changed.result
  }

  /// Changes the copy alone (a test store's step closure describing the state it expects).
  @usableFromInline
  mutating func changeCopy<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    try body(&value)
  }

  /// Takes `value`, the one value at `version`, as the copy.
  @usableFromInline
  mutating func take(_ value: Value, at version: UInt64) {
    self.value = value
    self.version = version
  }
}

extension Shared {
  /// The copy as a change: send it as the first action of a recorded session, so that a replay
  /// (whose storage starts from the default) starts from the value the session had. The store
  /// that sends it keeps its copy: the change is not newer.
  public var currentChange: SharedChange<Value> {
    SharedChange(value: value, version: version)
  }

  /// Takes a change received as an action, if it is newer than the copy (see
  /// ``SharedChange/version``).
  ///
  /// In a storage that has not seen the change (a replay of a log, in an isolated storage), the
  /// value takes it too, so that a later ``withLock(_:)`` there starts from it.
  @inlinable
  mutating func apply(_ change: SharedChange<Value>) {
    guard change.version > version else { return }
    take(change.value, at: change.version)
    reference.adopt(change)
  }
}

extension Shared: CustomReflectable {
  /// The copy of the value alone: what a dump of a state (a test failure's) shows.
  public var customMirror: Mirror {
    Mirror(self, children: ["value": value], displayStyle: .struct)
  }
}

/// The next `Shared.instance`.
private let sharedInstances = Atomic<UInt64>(1)

/// Whether a test store is running a step's closure on this task: ``Shared/withLock(_:)`` then
/// changes only the copy of the expected state, never the value.
@usableFromInline
package enum SharedExpectation {
  @usableFromInline @TaskLocal package static var isBeingDescribed = false

  /// How many step closures are being run now, in any task: `withLock` reads the task-local
  /// only then.
  @usableFromInline package static let describers = Atomic<Int>(0)

  /// Runs `body`, a step's closure, so that `withLock` changes only the copies it is given.
  package static func describing<Result>(_ body: () throws -> Result) rethrows -> Result {
    describers.add(1, ordering: .relaxed)
    defer { describers.subtract(1, ordering: .relaxed) }
    return try $isBeingDescribed.withValue(true, operation: body)
  }
}

extension Shared: Equatable where Value: Equatable {
  /// Two shared values are equal when their copies are.
  ///
  /// - Parameters:
  ///   - lhs: A shared value.
  ///   - rhs: Another.
  @inlinable
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.value == rhs.value
  }
}

extension Shared: Hashable where Value: Hashable {
  /// Hashes the copy of the value.
  ///
  /// - Parameter hasher: The hasher to feed.
  @inlinable
  public func hash(into hasher: inout Hasher) {
    hasher.combine(value)
  }
}
