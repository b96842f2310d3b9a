import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A value guarded by a spin lock, for critical sections of a few loads and stores that are
/// almost never contended: a child store's last known state, written by the root store's owner
/// after every action that writes the child, read by other threads only once the child is gone.
///
/// Why not `Locked`: `pthread_mutex_lock` and `pthread_mutex_unlock` cost about 55 instructions
/// a pair, a few percent of a row action with an observer; an uncontended acquisition here is one
/// compare-and-exchange, a release one store. The atomics are inlined into this module's code, so
/// ThreadSanitizer sees the ordering they give (it does not see `Mutex`'s on Linux).
///
/// A waiter spins briefly, then yields its time slice on each try: never use it around user
/// code, allocation or anything that can block.
@usableFromInline
package final class SpinLocked<Value>: @unchecked Sendable {
  // Safe: `value` is read and written only between `lock()` and `unlock()` (directly, or through
  // `withLock`), whose acquiring and releasing atomics order every access.

  @usableFromInline let isLocked = Atomic<Bool>(false)
  // Unchecked exclusivity: the lock already serializes access.
  @usableFromInline @exclusivity(unchecked) var value: Value

  /// Creates a lock around `value`.
  @inlinable
  package init(_ value: Value) {
    self.value = value
  }

  /// Acquires the lock. Not reentrant.
  @inlinable @inline(__always)
  package func lock() {
    if isLocked.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged {
      return
    }
    lockContended()
  }

  /// Waits for the holder: spins on a plain load (no write traffic while the lock is held), then
  /// yields between tries, so that a holder that lost its processor gets it back.
  @usableFromInline
  func lockContended() {
    var tries = 0
    while true {
      if !isLocked.load(ordering: .relaxed),
        isLocked.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged
      {
        return
      }
      tries &+= 1
      if tries > 100 { sched_yield() }
    }
  }

  /// Releases the lock.
  @inlinable @inline(__always)
  package func unlock() {
    isLocked.store(false, ordering: .releasing)
  }

  /// Runs `body` with exclusive access to the value. Not reentrant; `body` must not run user
  /// code (see above).
  @inlinable @inline(__always)
  package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    lock()
    defer { unlock() }
    return try body(&value)
  }
}
