import Foundation

extension DependencyValues {
  /// The clock effects sleep on. Live: `ContinuousClock()`. No test value: tests set a
  /// ``TestClock`` or an ``ImmediateClock``.
  public var continuousClock: any Clock<Duration> {
    get { self[ContinuousClockKey.self] }
    set { self[ContinuousClockKey.self] = newValue }
  }

  /// The current date. Live: `Date()`. No test value: tests set `.constant(…)`.
  public var date: DateGenerator {
    get { self[DateGeneratorKey.self] }
    set { self[DateGeneratorKey.self] = newValue }
  }

  /// New UUIDs. Live: `UUID()`. No test value: tests set `.incrementing`.
  public var uuid: UUIDGenerator {
    get { self[UUIDGeneratorKey.self] }
    set { self[UUIDGeneratorKey.self] = newValue }
  }

  /// A random number generator. Live: the system's. No test value: tests set a seeded one.
  public var withRandomNumberGenerator: WithRandomNumberGenerator {
    get { self[WithRandomNumberGeneratorKey.self] }
    set { self[WithRandomNumberGeneratorKey.self] = newValue }
  }
}

private enum ContinuousClockKey: DependencyKey {
  static var liveValue: any Clock<Duration> { ContinuousClock() }
}

private enum DateGeneratorKey: DependencyKey {
  static var liveValue: DateGenerator { DateGenerator { Date() } }
}

private enum UUIDGeneratorKey: DependencyKey {
  static var liveValue: UUIDGenerator { UUIDGenerator { UUID() } }
}

private enum WithRandomNumberGeneratorKey: DependencyKey {
  static var liveValue: WithRandomNumberGenerator {
    WithRandomNumberGenerator(SystemRandomNumberGenerator())
  }
}

/// Produces the current date.
public struct DateGenerator: Sendable {
  private let generate: @Sendable () -> Date

  /// Creates a generator.
  ///
  /// - Parameter generate: Returns "now".
  public init(_ generate: @escaping @Sendable () -> Date) {
    self.generate = generate
  }

  /// A generator that always returns `date`.
  ///
  /// - Parameter date: The date to return every time.
  public static func constant(_ date: Date) -> Self {
    Self { date }
  }

  /// The current date.
  public var now: Date { generate() }

  /// The current date.
  public func callAsFunction() -> Date { generate() }
}

/// Produces UUIDs.
public struct UUIDGenerator: Sendable {
  private let generate: @Sendable () -> UUID

  /// Creates a generator.
  ///
  /// - Parameter generate: Returns a new UUID each call.
  public init(_ generate: @escaping @Sendable () -> UUID) {
    self.generate = generate
  }

  /// A generator of predictable UUIDs for tests: `00000000-0000-0000-0000-000000000000`, then
  /// `…-000000000001`, and so on. Each use of `.incrementing` starts its own sequence.
  public static var incrementing: Self {
    let counter = Locked<UInt64>(0)
    return Self {
      let value = counter.withLock { value in
        defer { value += 1 }
        return value
      }
      let hex = String(value, radix: 16, uppercase: true)
      let digits = String(repeating: "0", count: 12 - hex.count) + hex
      return UUID(uuidString: "00000000-0000-0000-0000-\(digits)")!
    }
  }

  /// A new UUID.
  public func callAsFunction() -> UUID { generate() }
}

/// Gives exclusive access to a shared random number generator.
public struct WithRandomNumberGenerator: Sendable {
  private let generator: Locked<any RandomNumberGenerator>

  /// Creates access to `generator`; calls are serialized, so a seeded generator gives the same
  /// sequence however many tasks use it.
  ///
  /// - Parameter generator: The generator, for example a seeded one in tests.
  public init(_ generator: some RandomNumberGenerator & Sendable) {
    self.generator = Locked(generator)
  }

  /// Runs `work` with the generator.
  ///
  /// ```swift
  /// let roll = withRandomNumberGenerator { Int.random(in: 1...6, using: &$0) }
  /// ```
  ///
  /// - Parameter work: Uses the generator; it runs at once, on the calling thread.
  /// - Returns: What `work` returns.
  /// - Throws: What `work` throws.
  public func callAsFunction<R>(_ work: (inout any RandomNumberGenerator) throws -> R) rethrows
    -> R
  {
    try generator.withLock { try work(&$0) }
  }
}
