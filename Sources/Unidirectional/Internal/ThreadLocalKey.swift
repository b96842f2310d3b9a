import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A `pthread_key_t` created on first use, for a thread-local slot read on every action.
///
/// Why not `static let key: pthread_key_t = { … }()`: a lazily initialized global costs a call
/// to `swift_once` on every read on Linux (about 25 instructions with the accessor), and the
/// recorder's slot is read several times per observer run. This type is made of constants, so a
/// `static let` of it is laid out by the compiler and read directly, like ``PermanentTable``.
@usableFromInline
struct ThreadLocalKey: ~Copyable, Sendable {
  /// The key plus one, or 0 before the first use.
  @usableFromInline let storage = Atomic<UInt>(0)
  /// Called with a thread's non-`nil` value when the thread exits.
  let destructor: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?

  /// - Parameter destructor: Releases a thread's value when the thread exits, if it needs to.
  init(destructor: (@convention(c) (UnsafeMutableRawPointer?) -> Void)? = nil) {
    self.destructor = destructor
  }

  /// The key.
  @inlinable
  var key: pthread_key_t {
    let stored = storage.load(ordering: .acquiring)
    if stored != 0 { return pthread_key_t(truncatingIfNeeded: stored &- 1) }
    return create()
  }

  /// The current thread's value.
  @inlinable
  var value: UnsafeMutableRawPointer? {
    pthread_getspecific(key)
  }

  /// Sets the current thread's value.
  @inlinable
  func set(_ value: UnsafeRawPointer?) {
    pthread_setspecific(key, value)
  }

  /// Creates the key on first use; a thread that loses the race to publish its key deletes it.
  @usableFromInline
  func create() -> pthread_key_t {
    var key = pthread_key_t()
    let status = pthread_key_create(&key, destructor)
    precondition(status == 0, "Unidirectional: pthread_key_create failed (\(status))")
    let (exchanged, original) = storage.compareExchange(
      expected: 0, desired: UInt(key) &+ 1, ordering: .acquiringAndReleasing)
    if exchanged { return key }
    pthread_key_delete(key)
    return pthread_key_t(truncatingIfNeeded: original &- 1)
  }
}
