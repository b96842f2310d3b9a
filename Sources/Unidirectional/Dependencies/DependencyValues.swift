import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The dependencies in force: a value per ``DependencyKey``, overridable for a scope.
///
/// The current values live in a task-local, so they follow structured concurrency: a child task
/// or a `Task { }` sees the values of the code that created it. Override them for a scope with
/// `withDependencies(_:operation:)`. A ``Store`` captures the values in force when
/// it is created; its reducer and effects run with them.
public struct DependencyValues: Sendable {
  /// The dependencies in force for the current task or thread.
  @TaskLocal public static var current = DependencyValues()

  /// The number of `withDependencies` scopes running in the process. While it is zero, no
  /// override can be in force anywhere, so a store with default dependencies can skip binding
  /// them (binding a task-local allocates, and even reading one costs more than a `send`).
  @usableFromInline static let activeOverrideScopes = Atomic<Int>(0)

  /// Whether some dependencies other than the defaults may be in force.
  @inlinable
  static var mayBeOverridden: Bool {
    activeOverrideScopes.load(ordering: .relaxed) != 0
  }

  /// Whether live or test values are used for keys that were not overridden.
  public var context: DependencyContext = .live

  /// Receives problems, such as a dependency used in a test context without a test value.
  /// By default, one line on standard error; a test store records a test failure instead.
  public var reportIssue: @Sendable (String) -> Void = { message in
    let line = Array((message + "\n").utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
  }
  {
    // Not a key, so `overrides` does not see it: without this, a store would take dependencies
    // that differ only here for the defaults, and not bind them around its effects.
    didSet { reportsIssuesElsewhere = true }
  }

  /// Whether ``reportIssue`` was replaced.
  private var reportsIssuesElsewhere = false

  private var overrides: [ObjectIdentifier: any Sendable] = [:]

  /// Creates dependencies with no overrides, in the live context.
  public init() {}

  /// Whether nothing was overridden and the context is live: stores then need not bind these
  /// values around their work.
  @usableFromInline
  var isDefault: Bool {
    overrides.isEmpty && context == .live && !reportsIssuesElsewhere
  }

  /// The values set for keys, in no particular order (a test store looks for test clocks here
  /// without reading, and so reporting, a key that has no test value).
  package var overriddenValues: [any Sendable] { Array(overrides.values) }

  /// The value for a key: its override, or its live or test value by ``context``.
  ///
  /// - Parameter key: The dependency's key type, such as `Thermometer.self`.
  public subscript<Key: DependencyKey>(key: Key.Type) -> Key.Value {
    get {
      if let value = overrides[ObjectIdentifier(key)] {
        // Stored by the setter below under this key, so always a `Key.Value`.
        return value as! Key.Value
      }
      switch context {
      case .live: return Key.liveValue
      case .test: return Key.testValue
      }
    }
    set {
      overrides[ObjectIdentifier(key)] = newValue
    }
  }
}

/// Which values un-overridden dependencies take.
public enum DependencyContext: Sendable, Equatable {
  /// The running program: each key's `liveValue`.
  case live
  /// Tests: each key's `testValue`.
  case test
}

/// Runs `operation` with dependencies changed by `update`.
///
/// ```swift
/// let store = withDependencies {
///   $0.continuousClock = TestClock()
/// } operation: {
///   Store(initialState: Feature.State()) { Feature() }
/// }
/// ```
///
/// - Parameters:
///   - update: Changes the dependencies in force.
///   - operation: Runs with the changed dependencies; tasks it creates inherit them.
/// - Returns: What `operation` returns.
public func withDependencies<R>(
  _ update: (inout DependencyValues) throws -> Void,
  operation: () throws -> R
) rethrows -> R {
  var values = DependencyValues.current
  try update(&values)
  DependencyValues.activeOverrideScopes.add(1, ordering: .relaxed)
  defer { DependencyValues.activeOverrideScopes.subtract(1, ordering: .relaxed) }
  return try DependencyValues.$current.withValue(values, operation: operation)
}

/// Runs an asynchronous `operation` with dependencies changed by `update`.
///
/// - Parameters:
///   - update: Changes the dependencies in force.
///   - operation: Runs with the changed dependencies; tasks it creates inherit them.
/// - Returns: What `operation` returns.
public func withDependencies<R>(
  _ update: (inout DependencyValues) throws -> Void,
  operation: () async throws -> R
) async rethrows -> R {
  var values = DependencyValues.current
  try update(&values)
  DependencyValues.activeOverrideScopes.add(1, ordering: .relaxed)
  defer { DependencyValues.activeOverrideScopes.subtract(1, ordering: .relaxed) }
  return try await DependencyValues.$current.withValue(values, operation: operation)
}
