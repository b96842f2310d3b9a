import Dispatch
import Observation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reads of a store made while Apple's `withObservationTracking` (or an `Observations` sequence)
/// was tracking, remembered until their value changes so that the store can tell the tracking.
///
/// Apple's registrar learns of a change only when someone calls `willSet`/`didSet` for the key
/// path that was read. The store does, after the first action that changes a tracked read, and
/// then forgets the read: trackings are one-shot.
///
/// ## Order
///
/// A tracking's closure, like an observer, may guard a read behind another (`count > 7` before
/// `items[7]`). The registrar does not say which reads belong to which tracking, so the reads
/// are kept in one list per thread (a tracking's closure runs on one thread), in the order they
/// were made, and checked in that order: after the first read of a list found changed, reads
/// that could trap (``Probe/isSafe`` is false) are not evaluated but reported as changed, which
/// may wake a tracking whose values did not change (it re-reads and tracks again), and never
/// traps or misses a change.
///
/// Owned, like the graph, by the thread that owns the store.
@usableFromInline
struct TrackedReads {
  /// One tracked read.
  @usableFromInline
  struct Entry {
    /// The probe of the read, holding the value the tracking read (not shared with observers).
    let probe: Probe
    /// Tells the store's registrar that the read changed.
    let post: @Sendable () -> Void
  }

  /// The entries by thread, each list in the order the reads were made.
  private var lists: [UInt: [Entry]] = [:]

  /// The number of entries.
  private(set) var count = 0

  var isEmpty: Bool { count == 0 }

  /// Files a read made on `thread`. A read of the same thing filed earlier on that thread stays
  /// where it is, with its value: the guards made before it are still ahead of it (moving it
  /// after a later guard could evaluate it once that guard changed), and a change of it reaches
  /// every tracking that read it, since the registrar notifies by key path.
  mutating func insert(_ entry: Entry, thread: UInt) {
    let key = entry.probe.key
    var list = lists[thread] ?? []
    guard !list.contains(where: { $0.probe.key == key }) else { return }
    list.append(entry)
    count += 1
    lists[thread] = list
  }

  /// Checks every entry against `state` in order and returns the notifications to post for
  /// those that changed, which are forgotten.
  mutating func changes(in state: UnsafeRawPointer) -> [@Sendable () -> Void] {
    var posts: [@Sendable () -> Void] = []
    for (thread, list) in lists {
      var kept: [Entry] = []
      var sawChange = false
      for entry in list {
        let changed: Bool
        if entry.probe.kind == .alwaysChanged {
          changed = true
        } else if entry.probe.isSafe || !sawChange {
          changed = entry.probe.refreshAfterAnyAction(state)
        } else {
          // Might trap if evaluated: report it instead (see the type's documentation).
          changed = true
        }
        if changed {
          posts.append(entry.post)
          sawChange = true
        } else {
          kept.append(entry)
        }
      }
      count -= list.count - kept.count
      lists[thread] = kept.isEmpty ? nil : kept
    }
    return posts
  }

  /// Forgets every entry.
  mutating func removeAll() -> [Entry] {
    defer {
      lists = [:]
      count = 0
    }
    return lists.values.flatMap { $0 }
  }
}

/// Tells whether a read happens while Apple's Observation is tracking on this thread.
///
/// The Observation module has no public way to ask. But while a tracking is active,
/// `ObservationRegistrar.access` adds the key path it is given to the tracking's access list, a
/// set, which hashes it; hashing a key path hashes the arguments of its subscripts. So the store
/// reports one extra, constant key path, whose subscript argument notes on this thread that it
/// was hashed. Outside a tracking, `access` returns at once (about 5 ns) and nothing is hashed.
/// The extra key path stays in the tracking's list, harmlessly: the store never reports a change
/// of it, and the tracking forgets it when it ends.
@usableFromInline
enum TrackingDetector {
  /// Whether Apple's Observation is tracking the reads of the calling thread now.
  @usableFromInline
  static func isTracking(_ registrar: ObservationRegistrar) -> Bool {
    slot.set(armed)
    registrar.access(DetectionSubject.shared, keyPath: keyPath)
    let hashed = slot.value == seen
    slot.set(nil)
    return hashed
  }

  /// The values of the thread-local slot: waiting for a hash, and hashed.
  private static var armed: UnsafeRawPointer? { UnsafeRawPointer(bitPattern: 1) }
  private static var seen: UnsafeMutableRawPointer? { UnsafeMutableRawPointer(bitPattern: 2) }

  fileprivate static func noteHashed() {
    if slot.value == UnsafeMutableRawPointer(mutating: armed) {
      slot.set(seen)
    }
  }

  private static let keyPath = \DetectionSubject.[detecting: HashNotifier()]

  private static let slot = ThreadLocalKey()
}

/// The subject of the detecting key path: never changes, never notifies.
private final class DetectionSubject: Observable, Sendable {
  static let shared = DetectionSubject()

  subscript(detecting _: HashNotifier) -> Int { 0 }
}

/// The detecting key path's subscript argument: hashing it tells the `TrackingDetector`.
private struct HashNotifier: Hashable, Sendable {
  func hash(into hasher: inout Hasher) {
    TrackingDetector.noteHashed()
    hasher.combine(0)
  }

  static func == (lhs: Self, rhs: Self) -> Bool { true }
}

/// A tracked read's key path on the store, as reported to its registrar: one per distinct read,
/// equal for equal reads, so the registrar matches a later `willSet` with the tracking's `access`.
///
/// Hashing it tells `TrackingInstalls`: outside the store's own calls, the registrar hashes it
/// when it installs a tracking of the read.
struct TrackedReadKey: Hashable, @unchecked Sendable {
  // Safe: `ReadKey` holds immutable key paths and ids that were `Sendable` where made.
  let key: ReadKey

  func hash(into hasher: inout Hasher) {
    TrackingInstalls.noteHashed(self)
    hasher.combine(key)
  }

  static func == (lhs: Self, rhs: Self) -> Bool { lhs.key == rhs.key }
}

/// Closes the window between a tracked read and the installation of its tracking.
///
/// Apple's registrar installs a tracking after the tracking's closure returns, and drops a change
/// reported before that. A read made while another thread owns the store can be overtaken by an
/// action committed before the installation. When the registrar installs the tracking, it hashes
/// the read's key (`TrackedReadKey`): if the store has committed an action since the read, the
/// change is reported again, from a Dispatch queue (not from inside the registrar, which holds its
/// lock).
/// A report for an action that did not change the read only wakes the tracking once more.
///
/// State is per thread: a tracking reads and installs on one thread.
enum TrackingInstalls {
  /// A read waiting for its tracking to be installed.
  struct Pending {
    /// The store's generation when the read was made.
    let readAt: UInt32
    /// The store's generation now.
    let generation: @Sendable () -> UInt32
    /// Reports a change of the read to the registrar.
    let post: @Sendable () -> Void
  }

  /// The reads of this thread waiting for their tracking to be installed; and how deep the
  /// thread is in the store's own calls, during which hashing a key means nothing.
  final class ThreadState {
    var pending: [TrackedReadKey: Pending] = [:]
    var depth = 0
  }

  /// Runs `body` (the store's own use of keys: reporting reads, caching key paths, posting
  /// changes) without treating a hash of a key as an installation.
  static func ownCall<Result>(_ body: () -> Result) -> Result {
    let state = threadState
    state.depth += 1
    defer { state.depth -= 1 }
    return body()
  }

  /// Expects the tracking of `key`, read on this thread, to be installed.
  static func expect(_ key: TrackedReadKey, _ pending: Pending) {
    ownCall {
      let state = threadState
      // Bounded: a tracking that is never installed leaves no more than this behind.
      if state.pending.count >= 256 { state.pending.removeAll() }
      state.pending[key] = pending
    }
  }

  fileprivate static func noteHashed(_ key: TrackedReadKey) {
    guard let value = slot.value else { return }
    let state = Unmanaged<ThreadState>.fromOpaque(value).takeUnretainedValue()
    guard state.depth == 0, !state.pending.isEmpty else { return }
    guard let pending = ownCall({ state.pending.removeValue(forKey: key) }) else { return }
    if pending.generation() != pending.readAt {
      // On a Dispatch queue, not a task: the cooperative pool may be busy, even blocked.
      DispatchQueue.global().async(execute: pending.post)
    }
  }

  private static var threadState: ThreadState {
    if let value = slot.value {
      return Unmanaged<ThreadState>.fromOpaque(value).takeUnretainedValue()
    }
    let state = ThreadState()
    slot.set(Unmanaged.passRetained(state).toOpaque())
    return state
  }

  private static let slot = ThreadLocalKey { value in
    if let value { Unmanaged<ThreadState>.fromOpaque(value).release() }
  }
}
