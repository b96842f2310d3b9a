import Dispatch
import Foundation

/// Where shared values live: one value per key, loaded at the first ``Shared`` of the key, saved
/// in the background, and watched for changes made elsewhere.
///
/// A ``Shared`` finds its storage in ``DependencyValues/sharedStorage``: ``live`` in a program,
/// a new isolated storage for each `TestStore`, so that parallel tests never see each other's
/// values. An isolated storage keeps files in memory, unless it is made with `filesOnDisk: true`:
/// a test touches no file unless it asks.
///
/// ```swift
/// let storage = SharedStorage()
/// var count = withDependencies { $0.sharedStorage = storage } operation: {
///   Shared(.inMemory("count"), default: 0)
/// }
/// ```
public final class SharedStorage: Sendable {
  /// The process's storage: files on disk, values for as long as the process runs.
  public static let live = SharedStorage(filesOnDisk: true)

  /// Whether ``FileKey``s read and write files on disk (otherwise in memory: see ``file(_:)``).
  public let filesOnDisk: Bool

  /// Receives what goes wrong loading or saving a value that no store reports (see
  /// ``SharedStorageError``).
  let onIssue: @Sendable (SharedStorageError) -> Void

  /// The values, by key type and id.
  private let references = Locked<[ReferenceID: AnyObject]>([:])

  /// The keys' watches, started with their references: they end with the storage.
  private let watches = Locked<[ObservationToken]>([])

  /// The files of a storage whose files are not on disk, and the watches on them.
  let memoryFiles = Locked(MemoryFiles())

  /// For each file path, the bytes this storage read last and wrote since: a watch that finds
  /// one of them heard of this storage's own save (perhaps an earlier one, read while a newer
  /// save was on its way), or of no change.
  private let knownFileContents = Locked<[String: [Data]]>([:])

  /// Counts the saves scheduled and not finished (see ``waitForSaves()``).
  private let saves = DispatchGroup()

  /// Counts the changes on their way to stores, not yet sent (see ``delivered()``).
  private let deliveries = DispatchGroup()

  /// Creates an isolated storage.
  ///
  /// - Parameters:
  ///   - filesOnDisk: Whether ``FileKey``s use files on disk; by default they use in-memory
  ///     files that ``setFile(_:to:)`` changes and ``file(_:)`` reads.
  ///   - onIssue: Receives what goes wrong loading or saving; by default written to standard
  ///     error, one line each with what to do.
  public init(
    filesOnDisk: Bool = false,
    onIssue: @escaping @Sendable (SharedStorageError) -> Void = SharedStorage.printToStandardError
  ) {
    self.filesOnDisk = filesOnDisk
    self.onIssue = onIssue
  }

  /// The default issue handler: one line to standard error, with what to do.
  public static let printToStandardError: @Sendable (SharedStorageError) -> Void = { error in
    writeToStandardError("Unidirectional: \(error). \(error.advice)\n")
  }

  /// The reference for `key`, made and loaded with `makeDefault` if this is the key's first use.
  func reference<Key: SharedKey>(
    for key: Key, default makeDefault: () -> Key.Value
  ) -> SharedReference<Key.Value> {
    let id = ReferenceID(type: ObjectIdentifier(Key.self), id: key.id)
    if let existing = references.withLock({ $0[id] }) {
      // Filed under its key's type, whose value type is `Key.Value`.
      return unsafeDowncast(existing, to: SharedReference<Key.Value>.self)
    }
    // Loaded outside the lock (a file read); a second thread loading the same key at once keeps
    // whichever was filed first.
    let made = SharedReference(key: key, storage: self, default: makeDefault)
    let filed = references.withLock { references in
      if let existing = references[id] { return existing }
      references[id] = made
      return made
    }
    let reference = unsafeDowncast(filed, to: SharedReference<Key.Value>.self)
    if reference === made, let watch = made.startWatching() {
      watches.withLock { $0.append(watch) }
    }
    return reference
  }

  /// Runs `save` on a background queue, counted until it returns (see ``waitForSaves()``).
  func schedule(on queue: DispatchQueue, _ save: @escaping @Sendable () -> Void) {
    queue.async(group: saves, execute: save)
  }

  /// Runs `drain` (a mailbox sending changes to a store) on a background thread, counted until
  /// it returns (see ``delivered()``).
  ///
  /// On the global concurrent queue, whose threads are as many as the cores: a serial queue of
  /// its own per store would start a thread per busy store, more threads than cores, switching
  /// between them. The mailbox runs one drain at a time, which keeps its changes in order.
  func deliver(_ drain: @escaping @Sendable () -> Void) {
    DispatchQueue.global().async(group: deliveries, execute: drain)
  }

  /// Waits, without blocking a thread, until every change made so far has been sent to the
  /// stores that receive it: a test that changes a value from outside awaits this, then receives
  /// the store's action.
  public func delivered() async {
    await withCheckedContinuation { continuation in
      deliveries.notify(queue: .global()) { continuation.resume() }
    }
  }

  /// Waits until every save scheduled so far has finished: call it before a program exits, so
  /// that its last changes are on disk.
  public func waitForSaves() {
    saves.wait()
  }

  /// Waits, without blocking a thread, until every save scheduled so far has finished.
  public func saved() async {
    await withCheckedContinuation { continuation in
      saves.notify(queue: .global()) { continuation.resume() }
    }
  }

  // MARK: In-memory files

  /// The in-memory file at `path`, as the storage's ``FileKey``s saved it or ``setFile(_:to:)``
  /// wrote it; `nil` if there is none. Always `nil` when ``filesOnDisk``.
  ///
  /// - Parameter path: The path of a ``FileKey``.
  public func file(_ path: String) -> Data? {
    memoryFiles.withLock { $0.contents[FileKey<Int>.normalized(path)] }
  }

  /// Replaces the in-memory file at `path` (`nil` removes it) as another process would, so that
  /// the shared values of ``FileKey``s on that path change (or report that it is corrupt) before
  /// this returns: the way a test changes a value from outside, without waiting for a watch.
  ///
  /// - Parameters:
  ///   - path: The path of a ``FileKey``.
  ///   - contents: The new contents, or `nil` for no file.
  public func setFile(_ path: String, to contents: Data?) {
    let path = FileKey<Int>.normalized(path)
    let watchers = memoryFiles.withLock { files in
      files.contents[path] = contents
      return files.watchers[path].map { Array($0.values) } ?? []
    }
    for watcher in watchers { watcher(contents) }
  }

  /// Notes `data` as what the storage read at `path` (`isOwnWrite` false) or is writing there.
  func noteFileContents(_ data: Data, at path: String, isOwnWrite: Bool) {
    knownFileContents.withLock { known in
      guard isOwnWrite else {
        known[path] = [data]
        return
      }
      var contents = known[path] ?? []
      contents.append(data)
      // A few saves can be on their way at once; older ones are long in place.
      if contents.count > 8 { contents.removeFirst(contents.count - 8) }
      known[path] = contents
    }
  }

  /// Whether `data`, read at `path` by a watch, is a change made outside this storage; if it is,
  /// it is noted as the contents read.
  func isChangeFromOutside(_ data: Data, at path: String) -> Bool {
    knownFileContents.withLock { known in
      let contents = known[path] ?? []
      if contents.last == data {
        // The newest save is in place: the older ones can no longer be read.
        known[path] = [data]
        return false
      }
      if contents.contains(data) { return false }
      known[path] = [data]
      return true
    }
  }

  /// What identifies a reference: the key's type and its id.
  private struct ReferenceID: Hashable, @unchecked Sendable {
    // Safe: `id` was `Sendable` where it was made (`SharedKey.ID: Sendable`).
    let type: ObjectIdentifier
    let id: AnyHashable
  }

  /// The files of a storage whose files are not on disk.
  struct MemoryFiles {
    var contents: [String: Data] = [:]
    /// Watches by path, by watch number: called with the new contents when ``setFile(_:to:)``
    /// changes the file.
    var watchers: [String: [UInt64: @Sendable (Data?) -> Void]] = [:]
    var nextWatcher: UInt64 = 0
  }
}
