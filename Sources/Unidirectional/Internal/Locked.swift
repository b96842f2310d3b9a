import Synchronization

/// A value guarded by a mutex.
///
/// `Mutex` from the Synchronization module requires its closures to return `sending` values,
/// which key paths and generic values read out of state are not. This wrapper keeps the value
/// outside the mutex and only ever touches it while holding the mutex.
final class Locked<Value>: @unchecked Sendable {
  // Safe: `value` is read and written only inside `mutex.withLock`, so every access is
  // serialized; values leave the lock only as copies returned by `withLock`.
  private let mutex = Mutex(())
  private var value: Value

  init(_ value: Value) {
    self.value = value
  }

  /// Runs `body` with exclusive access to the value. Not reentrant.
  @inline(__always)
  func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    var result: Result?
    try mutex.withLock { _ in
      result = try body(&value)
    }
    return result.unsafelyUnwrapped
  }
}
