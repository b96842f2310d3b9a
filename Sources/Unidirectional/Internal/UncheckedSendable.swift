/// Carries a value the compiler cannot prove `Sendable` across a concurrency boundary.
///
/// Used for key paths: a key path is an immutable object, and the subscript arguments it
/// captures are `Hashable` values fixed when it is created, so sharing one between threads is
/// safe even though `KeyPath` does not conform to `Sendable`. Also for `AnyHashable` boxes of
/// ids that are `Sendable` (the box itself is immutable).
@usableFromInline
struct UncheckedSendable<Value>: @unchecked Sendable {
  @usableFromInline let value: Value

  @inlinable
  init(_ value: Value) {
    self.value = value
  }
}
