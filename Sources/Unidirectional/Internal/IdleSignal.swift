#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A condition that lets a thread block until a count it watches reaches zero, with a deadline.
///
/// Used by ``EffectRuntime`` so that a test store's deinit, which cannot `await`, can let effects
/// that are returning at that moment finish before it reports the ones still running.
final class IdleSignal: @unchecked Sendable {
  // Safe: the mutex and condition are only used through pthread calls, which synchronize.
  private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
  private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

  init() {
    pthread_mutex_init(mutex, nil)
    pthread_cond_init(condition, nil)
  }

  deinit {
    pthread_cond_destroy(condition)
    pthread_mutex_destroy(mutex)
    condition.deallocate()
    mutex.deallocate()
  }

  /// Wakes every waiter so that it checks its count again. Call after the count changed.
  func signal() {
    pthread_mutex_lock(mutex)
    pthread_cond_broadcast(condition)
    pthread_mutex_unlock(mutex)
  }

  /// Blocks until `count()` is zero or `timeout` has passed.
  ///
  /// - Returns: The last value of `count()`.
  func wait(until count: () -> Int, timeout: Duration) -> Int {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    let (seconds, attoseconds) = timeout.components
    var nanoseconds = Int(now.tv_nsec) + Int(attoseconds / 1_000_000_000)
    var deadline = timespec()
    deadline.tv_sec = now.tv_sec + Int(seconds) + nanoseconds / 1_000_000_000
    nanoseconds %= 1_000_000_000
    deadline.tv_nsec = .init(nanoseconds)

    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    // `signal()` takes the mutex after the count changed, so a change between the check and the
    // wait cannot be missed.
    var remaining = count()
    while remaining > 0 {
      if pthread_cond_timedwait(condition, mutex, &deadline) == ETIMEDOUT {
        return count()
      }
      remaining = count()
    }
    return remaining
  }
}
