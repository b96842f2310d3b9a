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
  /// Whether holding this lock counts in ``StoreLockDiagnostics`` (stores' own locks only).
  @usableFromInline let isStoreLock: Bool
  // Unchecked exclusivity: the mutex already serializes access, and the runtime check costs
  // more than the lock itself on every action.
  @usableFromInline @exclusivity(unchecked) var value: Value

  /// Creates a lock around `value`.
  ///
  /// - Parameter isStoreLock: Whether debug builds count this lock as a store's lock in
  ///   ``StoreLockDiagnostics``.
  @inlinable
  package init(_ value: Value, isStoreLock: Bool = false) {
    self.value = value
    self.isStoreLock = isStoreLock
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
    #if DEBUG
      if isStoreLock { StoreLockDiagnostics.adjust(by: 1) }
    #endif
  }

  /// Acquires the lock, trying for a short while before sleeping.
  ///
  /// For `send`, where another thread holds the lock for tens of nanoseconds: retrying, and
  /// yielding the processor between tries, is far cheaper than a futex sleep and wake-up
  /// (benchmark R1, two threads sending: 45-93 ns per action with `lock()`, 21 ns with this).
  /// Other callers use ``lock()``, which keeps the uncontended path as short as possible; a
  /// mutex of the adaptive type did the spinning for every caller, and slowed B2 by 15%.
  @inlinable @inline(__always)
  package func lockSpinning() {
    if pthread_mutex_trylock(mutex) != 0 { lockSpinningSlowPath() }
    #if DEBUG
      if isStoreLock { StoreLockDiagnostics.adjust(by: 1) }
    #endif
  }

  @usableFromInline
  func lockSpinningSlowPath() {
    // Bounded: after 100 tries the lock is held for something long (observers or effects
    // starting outside the fast path), so sleep on it as usual.
    for _ in 0..<100 {
      if pthread_mutex_trylock(mutex) == 0 { return }
      sched_yield()
    }
    pthread_mutex_lock(mutex)
  }

  /// Releases the lock.
  @inlinable @inline(__always)
  package func unlock() {
    #if DEBUG
      if isStoreLock { StoreLockDiagnostics.adjust(by: -1) }
    #endif
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

/// Tells tests whether the current thread holds a store's lock, so that code a store calls
/// (observers, deinits of what they captured) can check that it never runs under one.
///
/// Counted in debug builds only; in release builds ``isHeldByCurrentThread`` is always `false`.
@usableFromInline
package enum StoreLockDiagnostics {
  /// Whether the current thread holds at least one store's lock (debug builds only).
  package static var isHeldByCurrentThread: Bool {
    #if DEBUG
      return Int(bitPattern: pthread_getspecific(depthKey)) > 0
    #else
      return false
    #endif
  }

  #if DEBUG
    @usableFromInline
    package static func adjust(by delta: Int) {
      let depth = Int(bitPattern: pthread_getspecific(depthKey)) + delta
      pthread_setspecific(depthKey, UnsafeRawPointer(bitPattern: depth))
    }

    /// The number of store locks the thread holds, stored as the slot's pointer value.
    @usableFromInline
    static let depthKey: pthread_key_t = {
      var key = pthread_key_t()
      let status = pthread_key_create(&key, nil)
      precondition(status == 0, "Unidirectional: pthread_key_create failed (\(status))")
      return key
    }()
  #endif
}
