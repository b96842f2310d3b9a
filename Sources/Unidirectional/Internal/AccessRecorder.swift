#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Collects the key paths an observer reads from one store while it runs.
///
/// A recorder is installed in a thread-local slot for the duration of one observer run, on the
/// thread that runs it; reads of the store on that thread append to it. Reads on other threads,
/// and reads of other stores, are not recorded.
@usableFromInline
final class AccessRecorder: @unchecked Sendable {
  // Safe: a recorder is used by one thread at a time: the thread draining its store (which is
  // exclusive, see `Store`), or the thread registering a new observer with its own recorder.

  /// The store whose reads are recorded.
  @usableFromInline var store: ObjectIdentifier

  /// The key paths read, in order, possibly with repeats.
  // Unchecked exclusivity: one thread at a time (see above); the check is a hot-path cost.
  @usableFromInline @exclusivity(unchecked) var keyPaths: [AnyKeyPath] = []

  @usableFromInline
  init(store: ObjectIdentifier) {
    self.store = store
  }

  /// The recorder of the current thread, if an observer is running on it.
  @usableFromInline
  static var current: AccessRecorder? {
    guard let pointer = pthread_getspecific(threadKey) else { return nil }
    return Unmanaged<AccessRecorder>.fromOpaque(pointer).takeUnretainedValue()
  }

  /// Runs `body` with `self` as the current thread's recorder, restoring the previous one after
  /// (observers may run nested, for example when an observer registers another observer).
  @usableFromInline
  func record<Result>(_ body: () throws -> Result) rethrows -> Result {
    keyPaths.removeAll(keepingCapacity: true)
    let previous = pthread_getspecific(Self.threadKey)
    pthread_setspecific(Self.threadKey, Unmanaged.passUnretained(self).toOpaque())
    defer { pthread_setspecific(Self.threadKey, previous) }
    return try body()
  }

  private static let threadKey: pthread_key_t = {
    var key = pthread_key_t()
    let status = pthread_key_create(&key, nil)
    precondition(status == 0, "Unidirectional: pthread_key_create failed (\(status))")
    return key
  }()
}
