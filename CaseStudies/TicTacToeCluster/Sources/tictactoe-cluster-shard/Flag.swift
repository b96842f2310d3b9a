import Synchronization

/// A boolean shared by closures (an `Atomic` cannot be captured: it is not copyable).
final class Flag: Sendable {
  private let value: Atomic<Bool>

  init(_ value: Bool) {
    self.value = Atomic(value)
  }

  var isSet: Bool { value.load(ordering: .acquiring) }

  func set(_ newValue: Bool) {
    value.store(newValue, ordering: .releasing)
  }

  /// Clears it; whether it was set.
  func take() -> Bool {
    value.exchange(false, ordering: .acquiringAndReleasing)
  }
}
