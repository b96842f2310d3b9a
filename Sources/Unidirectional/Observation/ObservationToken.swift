import Synchronization

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
///
/// Keep the token somewhere (a property, a set): in optimized builds `_ = token` does not keep it
/// alive, and the observer stops at once. Where a token only needs to live for a scope, use
/// `withExtendedLifetime(token) { … }`.
public final class ObservationToken: Hashable, Sendable {
  /// What cancelling does.
  private enum Stop: Sendable {
    /// Removes an observer from its store (the common case). Needs no closure or lock of its
    /// own: an idle observer costs only this token and the store's record (benchmark M1).
    case observer(ObserverRemoval)
    /// Calls a closure once, then releases it.
    case closure(Locked<(@Sendable () -> Void)?>)
  }

  private let stop: Stop
  private let cancelled = Atomic<Bool>(false)

  /// Creates a token that calls `onCancel` once, on the first ``cancel()`` or at deinit.
  ///
  /// - Parameter onCancel: Stops whatever the token keeps alive.
  public init(onCancel: @escaping @Sendable () -> Void) {
    self.stop = .closure(Locked(onCancel))
  }

  /// Creates a token that removes `observer` from `store`.
  init(removing observer: ObserverRecord, from store: some ObserverRemoving) {
    self.stop = .observer(ObserverRemoval(store: store, observer: observer))
  }

  deinit {
    cancel()
  }

  /// Stops the observation. Calling it again does nothing.
  public func cancel() {
    guard !cancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
    switch stop {
    case .observer(let removal):
      removal.store?.removeObserver(removal.observer)
    case .closure(let onCancel):
      let body = onCancel.withLock { onCancel in
        defer { onCancel = nil }
        return onCancel
      }
      body?()
    }
  }

  /// Whether ``cancel()`` has been called.
  public var isCancelled: Bool {
    cancelled.load(ordering: .acquiring)
  }

  /// Keeps the token in a set, for example a set of all the tokens of a screen.
  ///
  /// - Parameter set: The set to insert into.
  public func store(in set: inout Set<ObservationToken>) {
    set.insert(self)
  }

  /// Tokens are equal when they are the same token.
  ///
  /// - Parameters:
  ///   - lhs: A token.
  ///   - rhs: Another token.
  public static func == (lhs: ObservationToken, rhs: ObservationToken) -> Bool {
    lhs === rhs
  }

  /// Hashes the token's identity.
  ///
  /// - Parameter hasher: The hasher to feed.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(ObjectIdentifier(self))
  }
}

/// A store that can remove one of its observers.
protocol ObserverRemoving: AnyObject, Sendable {
  /// Removes `observer`: it does not run again, and its closure is released.
  func removeObserver(_ observer: ObserverRecord)
}

/// The store and the observer a token removes. The store is held weakly: tokens never keep
/// their store alive.
struct ObserverRemoval: Sendable {
  weak var store: (any ObserverRemoving)?
  let observer: ObserverRecord
}
