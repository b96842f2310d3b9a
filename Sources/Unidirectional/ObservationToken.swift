/// Keeps an observer registered with ``Store/observe(_:)``; cancel it or drop it to stop
/// observing.
///
/// Cancellation is immediate: once ``cancel()`` returns, the observer will not run again, and
/// its closure has been released (or will be as soon as a run already in progress on another
/// thread returns).
///
/// ```swift
/// var tokens: Set<ObservationToken> = []
/// store.observe { render(store.count) }.store(in: &tokens)
/// ```
public final class ObservationToken: Hashable, Sendable {
  private let onCancel: Locked<(@Sendable () -> Void)?>

  /// Creates a token that calls `onCancel` once, on the first ``cancel()`` or at deinit.
  ///
  /// - Parameter onCancel: Stops whatever the token keeps alive.
  public init(onCancel: @escaping @Sendable () -> Void) {
    self.onCancel = Locked(onCancel)
  }

  deinit {
    cancel()
  }

  /// Stops the observation. Calling it again does nothing.
  public func cancel() {
    let onCancel = onCancel.withLock { onCancel in
      defer { onCancel = nil }
      return onCancel
    }
    onCancel?()
  }

  /// Whether ``cancel()`` has been called.
  public var isCancelled: Bool {
    onCancel.withLock { $0 == nil }
  }

  /// Keeps the token in a set, for example a set of all the tokens of a screen.
  ///
  /// - Parameter set: The set to insert into.
  public func store(in set: inout Set<ObservationToken>) {
    set.insert(self)
  }

  /// Tokens are equal when they are the same token.
  public static func == (lhs: ObservationToken, rhs: ObservationToken) -> Bool {
    lhs === rhs
  }

  /// Hashes the token's identity.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(ObjectIdentifier(self))
  }
}
