/// A shared value kept in memory by name: every ``Shared`` made with `.inMemory(name)` and a
/// value of the same type, in one ``SharedStorage``, is one value.
///
/// ```swift
/// var user = Shared(.inMemory("user"), default: User.signedOut)
/// ```
///
/// Nothing is saved: the value lasts as long as the storage (the process, for
/// ``SharedStorage/live``; the test store, in a test).
public struct InMemoryKey<Value: Sendable>: SharedKey {
  /// The name the value is shared under.
  public let name: String

  /// A key for the value named `name`.
  ///
  /// - Parameter name: The name the value is shared under.
  public init(_ name: String) {
    self.name = name
  }

  /// The name. Two features that use one name for values of different types do not share: a
  /// storage tells keys of different types apart.
  public var id: String { name }

  /// Nothing is stored before the first ``Shared`` of the name: it starts from its default.
  ///
  /// - Parameter storage: Ignored.
  /// - Returns: `nil`.
  public func load(from storage: SharedStorage) throws -> Value? {
    nil
  }
}

extension SharedKey {
  /// A shared value kept in memory under `name` (see ``InMemoryKey``).
  ///
  /// - Parameter name: The name the value is shared under.
  public static func inMemory<Value>(_ name: String) -> Self where Self == InMemoryKey<Value> {
    InMemoryKey(name)
  }
}
