/// A key for a dependency: the type of its value, and the values it has live and in tests.
///
/// ```swift
/// struct NumberFactKey: DependencyKey {
///   static let liveValue = NumberFact.live
///   static let testValue = NumberFact.unimplemented
/// }
/// extension DependencyValues {
///   var numberFact: NumberFact {
///     get { self[NumberFactKey.self] }
///     set { self[NumberFactKey.self] = newValue }
///   }
/// }
/// ```
///
/// A key that declares no `testValue` falls back to `liveValue` in a test context, and reports
/// that use to the dependencies' issue handler (a test store fails the test, naming the key),
/// so tests never silently touch the real world.
public protocol DependencyKey: Sendable {
  /// The type of the dependency.
  associatedtype Value: Sendable

  /// The value used by the running program.
  static var liveValue: Value { get }

  /// The value used in tests. Declare one for every dependency your tests may reach.
  static var testValue: Value { get }
}

extension DependencyKey {
  /// The default: no test value. Using the dependency in a test context reports an issue and
  /// falls back to ``liveValue``.
  public static var testValue: Value {
    DependencyValues.current.reportIssue(
      "Unidirectional: the dependency '\(Self.self)' was used in a test context, but it has no "
        + "test value. Override it with 'withDependencies' or give its key a 'testValue'.")
    return liveValue
  }
}
