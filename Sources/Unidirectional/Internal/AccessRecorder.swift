#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Collects the key paths an observer reads from one store while it runs.
///
/// A recorder is installed in a thread-local slot while observers run on a thread; reads of
/// its store on that thread append to it. Reads on other threads, and reads of other stores,
/// are not recorded.
@usableFromInline
final class AccessRecorder: @unchecked Sendable {
  // Safe: a recorder is used by one thread at a time: the thread draining its store (which is
  // exclusive, see `Store`), or the thread registering a new observer with its own recorder.
  // Runtime exclusivity checks are disabled on its fields for the same reason: they would be
  // a large part of the cost of a read.

  /// The store whose reads are recorded.
  @usableFromInline @exclusivity(unchecked) var store: ObjectIdentifier

  /// Whether the recording thread is the one draining the store. While it runs observers, no
  /// action can commit, so its reads need not take the store's lock.
  @usableFromInline let isDrainer: Bool

  /// The key paths read in the current run are `buffer[0..<count]`. The buffer is reused from
  /// run to run so that recording allocates nothing in the steady state.
  @usableFromInline @exclusivity(unchecked) var buffer: ContiguousArray<AnyKeyPath> = []
  @usableFromInline @exclusivity(unchecked) var count = 0

  @usableFromInline
  init(store: ObjectIdentifier, isDrainer: Bool) {
    self.store = store
    self.isDrainer = isDrainer
  }

  /// Appends a read.
  @inlinable @inline(__always)
  func append(_ keyPath: AnyKeyPath) {
    if count < buffer.count {
      buffer[count] = keyPath
    } else {
      buffer.append(keyPath)
    }
    count &+= 1
  }

  /// Whether the current run read exactly `keyPaths`, in the same order.
  @usableFromInline
  func readsEqual(_ keyPaths: [AnyKeyPath]) -> Bool {
    guard keyPaths.count == count else { return false }
    for index in 0..<count {
      let old = keyPaths[index]
      let new = buffer[index]
      if old !== new && old != new { return false }
    }
    return true
  }

  /// The recorder of the current thread, if observers are running on it.
  @inlinable
  static var current: AccessRecorder? {
    guard let pointer = pthread_getspecific(threadKey) else { return nil }
    return Unmanaged<AccessRecorder>.fromOpaque(pointer).takeUnretainedValue()
  }

  /// Installs `self` as the current thread's recorder and returns the one it replaces (runs
  /// nest, for example when an observer registers another observer).
  @usableFromInline
  func install() -> UnsafeMutableRawPointer? {
    let previous = pthread_getspecific(Self.threadKey)
    pthread_setspecific(Self.threadKey, Unmanaged.passUnretained(self).toOpaque())
    return previous
  }

  /// Restores the recorder `install()` replaced.
  @usableFromInline
  static func restore(_ previous: UnsafeMutableRawPointer?) {
    pthread_setspecific(threadKey, previous)
  }

  /// Runs `body`, recording its reads. The recorder must be installed.
  @inlinable @inline(__always)
  func record(_ body: @Sendable () -> Void) {
    count = 0
    body()
  }

  /// Installs the recorder, runs `body` recording its reads, and restores the previous one.
  @usableFromInline
  func recordInstalled(_ body: @Sendable () -> Void) {
    let previous = install()
    record(body)
    Self.restore(previous)
  }

  @usableFromInline
  static let threadKey: pthread_key_t = {
    var key = pthread_key_t()
    let status = pthread_key_create(&key, nil)
    precondition(status == 0, "Unidirectional: pthread_key_create failed (\(status))")
    return key
  }()
}
