#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A value guarded by a mutex, with explicit `lock()` and `unlock()` for hot paths.
///
/// `Mutex` from the Synchronization module only offers a closure that must return a `sending`
/// value, which generic values read out of state are not, and the workaround (an optional
/// captured across the closure) costs generic value-witness calls on every action. This is a
/// plain `pthread_mutex_t` (a futex on Linux: one atomic instruction when uncontended).
///
/// It is also the lock the rest of the package (tests included) uses instead of `Mutex`: on Linux
/// `Mutex` waits in uninstrumented library code, so ThreadSanitizer misses the ordering it gives
/// and reports false races under contention, while it intercepts `pthread_mutex_lock`.
@usableFromInline
package final class Locked<Value>: @unchecked Sendable {
  // Safe: `value` is read and written only between `lock()` and `unlock()` (directly, or through
  // `withLock`), so every access is serialized.

  @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
  // Unchecked exclusivity: the mutex already serializes access, and the runtime check costs
  // more than the lock itself on every action.
  @usableFromInline @exclusivity(unchecked) var value: Value

  /// Creates a lock around `value`.
  @inlinable
  package init(_ value: Value) {
    self.value = value
    self.mutex = .allocate(capacity: 1)
    let status = pthread_mutex_init(mutex, nil)
    precondition(status == 0, "Unidirectional: pthread_mutex_init failed (\(status))")
  }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }

  /// Acquires the lock. Not reentrant.
  @inlinable @inline(__always)
  package func lock() {
    pthread_mutex_lock(mutex)
  }

  /// Releases the lock.
  @inlinable @inline(__always)
  package func unlock() {
    pthread_mutex_unlock(mutex)
  }

  /// Runs `body` with exclusive access to the value. Not reentrant.
  @inlinable @inline(__always)
  package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    lock()
    defer { unlock() }
    return try body(&value)
  }
}
