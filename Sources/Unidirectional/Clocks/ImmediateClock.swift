/// A clock whose sleeps return at once, moving its time forward by the amount slept.
///
/// Use it in tests where waiting is irrelevant to what is tested, such as a delay before a
/// response. Sleeping still throws `CancellationError` in a cancelled task.
public final class ImmediateClock: Clock, Sendable {
  /// A point in the immediate clock's time.
  public struct Instant: InstantProtocol, Hashable, Sendable {
    /// The time since the clock's start.
    public let offset: Duration

    /// Creates an instant.
    ///
    /// - Parameter offset: The time since the clock's start.
    public init(offset: Duration = .zero) {
      self.offset = offset
    }

    /// The instant `duration` later.
    ///
    /// - Parameter duration: The time to add.
    public func advanced(by duration: Duration) -> Self {
      Self(offset: offset + duration)
    }

    /// The duration from this instant to `other`.
    ///
    /// - Parameter other: The later (or earlier) instant.
    public func duration(to other: Self) -> Duration {
      other.offset - offset
    }

    /// Whether `lhs` is earlier than `rhs`.
    ///
    /// - Parameters:
    ///   - lhs: A instant.
    ///   - rhs: Another instant.
    public static func < (lhs: Self, rhs: Self) -> Bool {
      lhs.offset < rhs.offset
    }
  }

  private let current = Locked(Instant())

  /// Creates a clock at time zero.
  public init() {}

  /// The current time: the sum of everything slept so far.
  public var now: Instant {
    current.withLock { $0 }
  }

  /// Zero: sleeps are exact.
  public var minimumResolution: Duration { .zero }

  /// Moves the time to `deadline` (if later) and returns at once.
  ///
  /// - Throws: `CancellationError` if the task is cancelled.
  ///
  /// - Parameters:
  ///   - deadline: The instant to move the time to.
  ///   - tolerance: Ignored: the sleep ends at once.
  public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    try Task.checkCancellation()
    current.withLock { $0 = Swift.max($0, deadline) }
  }
}
