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

  /// The stored offset of each read (`nil` for computed key paths), parallel to `buffer`.
  @usableFromInline @exclusivity(unchecked) var offsets: ContiguousArray<Int?> = []

  /// The observer being run, whose last reads (`keyPaths`, `offsets`) predict this run's: a
  /// re-run usually reads the same key paths in the same order, so the offset of read `i` is
  /// usually its `offsets[i]`. Unretained: the draining thread holds the observer while it
  /// runs, and only that thread writes those two arrays.
  @usableFromInline @exclusivity(unchecked) var running: Unmanaged<ObserverRecord>?

  /// Whether every read so far was predicted by the running observer's last reads: then, if
  /// the counts match too, the observer read exactly what it read last time.
  @usableFromInline @exclusivity(unchecked) var readsAsPredicted = true

  /// Stored offsets of recently read key paths, direct-mapped by address: observers read the
  /// same key paths over and over, and computing an offset walks the key path. Each entry holds
  /// its key path, so a hit by identity can never be another key path at a recycled address.
  @usableFromInline @exclusivity(unchecked) var offsetCache = ContiguousArray<OffsetCacheEntry>(
    repeating: OffsetCacheEntry(), count: AccessRecorder.offsetCacheSize)
  @usableFromInline static let offsetCacheSize = 64

  @usableFromInline
  struct OffsetCacheEntry {
    @usableFromInline var keyPath: AnyKeyPath?
    @usableFromInline var offset: Int?

    @inlinable
    init() {}
  }

  @usableFromInline
  init(store: ObjectIdentifier, isDrainer: Bool) {
    self.store = store
    self.isDrainer = isDrainer
  }

  /// Appends a read and returns the stored offset of its value in `State`, as
  /// `MemoryLayout<State>.offset(of:)` would, computed once per key path when possible.
  @inlinable @inline(__always)
  func append<State, Value>(_ keyPath: KeyPath<State, Value>, in _: State.Type) -> Int? {
    let offset: Int?
    if let predicted = running?._withUnsafeGuaranteedRef({
      $0.predictedOffset(at: count, of: keyPath)
    }) {
      offset = predicted
    } else {
      offset = self.offset(of: keyPath, in: State.self)
      readsAsPredicted = false
    }
    if count < buffer.count {
      // Skipping identical stores saves a retain and a release per read in the steady state.
      if buffer[count] !== keyPath { buffer[count] = keyPath }
      offsets[count] = offset
    } else {
      buffer.append(keyPath)
      offsets.append(offset)
    }
    count &+= 1
    return offset
  }

  /// The offset of `keyPath` in `State`, as `MemoryLayout<State>.offset(of:)`, cached.
  @inlinable @inline(__always)
  func offset<State, Value>(of keyPath: KeyPath<State, Value>, in _: State.Type) -> Int? {
    let address = UInt(bitPattern: ObjectIdentifier(keyPath))
    let slot =
      Int(truncatingIfNeeded: (address >> 4) ^ (address >> 10)) & (Self.offsetCacheSize - 1)
    return offsetCache.withUnsafeMutableBufferPointer { cache in
      if cache[slot].keyPath === keyPath { return cache[slot].offset }
      let offset = MemoryLayout<State>.offset(of: keyPath)
      cache[slot].keyPath = keyPath
      cache[slot].offset = offset
      return offset
    }
  }

  /// Whether the current run read exactly the key paths of `reads`, in the same order.
  @usableFromInline
  func readsEqual(_ reads: SmallArray<RecordedRead>) -> Bool {
    guard reads.count == count else { return false }
    if readsAsPredicted { return true }
    return buffer.withUnsafeBufferPointer { new in
      for (index, read) in reads.enumerated()
      where read.keyPath !== new[index] && read.keyPath != new[index] {
        return false
      }
      return true
    }
  }

  /// The recorder of the current thread, if observers are running on it, unretained: it is
  /// alive for as long as it is installed.
  @inlinable
  static var current: Unmanaged<AccessRecorder>? {
    guard let pointer = pthread_getspecific(threadKey) else { return nil }
    return Unmanaged<AccessRecorder>.fromOpaque(pointer)
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
  ///
  /// - Parameter observer: The observer `body` belongs to, whose last reads predict offsets.
  @inlinable @inline(__always)
  func record(_ body: @Sendable () -> Void, running observer: ObserverRecord? = nil) {
    count = 0
    readsAsPredicted = observer != nil
    running = observer.map { Unmanaged.passUnretained($0) }
    body()
    running = nil
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
