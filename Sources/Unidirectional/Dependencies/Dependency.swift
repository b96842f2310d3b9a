/// Reads a dependency from the values in force where it is used.
///
/// ```swift
/// struct Feature: Reducer {
///   @Dependency(\.continuousClock) var clock
///   …
///   return .run { send in
///     try await clock.sleep(for: .seconds(1))
///     await send(.timerTicked)
///   }
/// }
/// ```
///
/// The value is looked up on each access, in ``DependencyValues/current``: inside a store's
/// reducer and effects, that is the store's captured dependencies.
@propertyWrapper
public struct Dependency<Value: Sendable>: Sendable {
  private let keyPath: KeyPath<DependencyValues, Value> & Sendable

  /// Creates a reader of the dependency at `keyPath`.
  ///
  /// - Parameter keyPath: A property of ``DependencyValues``, such as `\.continuousClock`.
  public init(_ keyPath: KeyPath<DependencyValues, Value> & Sendable) {
    self.keyPath = keyPath
  }

  /// The dependency's current value.
  public var wrappedValue: Value {
    DependencyValues.current[keyPath: keyPath]
  }
}
