import Unidirectional

/// Watches objects without keeping them alive, to prove that they were freed.
///
/// ```swift
/// let leaks = LeakTracker()
/// do {
///   let store = Store(initialState: …) { … }
///   leaks.track(store, "the store")
/// }
/// #expect(leaks.alive == [])
/// ```
public final class LeakTracker: Sendable {
  private struct Entry {
    weak var object: AnyObject?
    let name: String
  }

  private let entries = Locked<[Entry]>([])

  /// Creates a tracker that watches nothing yet.
  public init() {}

  /// Watches `object` under `name`.
  public func track(_ object: AnyObject, _ name: String) {
    entries.withLock { $0.append(Entry(object: object, name: name)) }
  }

  /// The names of the tracked objects that are still alive, in the order they were tracked.
  public var alive: [String] {
    entries.withLock { entries in entries.filter { $0.object != nil }.map(\.name) }
  }
}
