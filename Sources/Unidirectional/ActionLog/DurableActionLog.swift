import Foundation

/// An action log for servers: it acknowledges an action only once it is durable, and a store
/// can be recovered from it after a crash.
///
/// ```swift
/// let committer = ActionLogCommitter()  // One for the whole server.
/// let log = try DurableActionLog<Game.Action>(
///   path: "game.jsonl", program: "game-server", committer: committer)
/// let store = Store(
///   initialState: Game.State(), reducer: Game(),
///   interceptors: [log.interceptor(snapshottingTo: "game.snapshot.json", every: 1000)])
///
/// // For each request:
/// try await log.waitUntilDurable(store.send(.move(row: 1, column: 2)))
/// reply(.ok)  // The move survives a crash from here on.
/// ```
///
/// The log is a header line, then one entry per reduced action, as ``ActionLogRecorder``
/// writes, except that each entry carries a CRC-32C of its JSON (format version 2: see
/// ``ActionLogHeader`` and ``ActionLogEntry``), so that recovery tells a write cut off by a
/// crash from damage to an acknowledged entry. ``ActionLog`` reads it too, verifying the
/// checksums. A log of format version 1, written before checksums, is continued in version 1
/// when recovered. Lines go to an ``ActionLogSink``: a file
/// (``ActionLogFileSink``), or a replicated log service of your own. Actions are encoded on the
/// thread that reduces them, then handed to the ``ActionLogCommitter``'s thread, which writes
/// and flushes them in groups: the store never waits for the disk.
///
/// ## Acknowledgement
///
/// ``waitUntilDurable(_:)`` (or ``whenDurable(_:_:)``) returns, for the action behind a
/// ``StoreTask``, once that action has been reduced *and* a flush of the sink that started after
/// its entry was appended has returned. From then on, a crash loses neither the action nor any
/// action reduced before it by the same store: recovery (see
/// ``recover(path:snapshotPath:program:schemaVersion:redactsSecrets:repairingDamage:initialState:reducer:committer:)``)
/// reaches a state that includes it. It says nothing about the action's effects, which run
/// whether or not the log keeps up, nor about actions reduced after it. If the sink fails, it
/// throws that failure instead; the action may or may not be durable then. Waiting cannot be
/// cancelled: it ends with the next flush.
///
/// The log does not slow the store down: if the sink cannot keep up, lines wait in memory and
/// acknowledgements come later. A server that acknowledges before replying gets its back
/// pressure from its clients waiting.
///
/// ## Failure
///
/// If the sink fails to write or flush, the log stops: ``failure`` says why, one line is printed
/// to standard error, and every waiter, now and later, receives the error. The store carries on.
/// A sink whose storage is only out of reach for a while says so with
/// ``ActionLogError/Reason/unavailable(_:)``: then the waiters of that round receive the error,
/// the log keeps its lines and hands them to the sink again in the next round, and ``failure``
/// stays `nil` (see ``ActionLogSink``).
public final class DurableActionLog<Action: Encodable & Sendable>: Sendable {
  /// A task waiting for entries up to `through` to be durable.
  struct Waiter {
    var through: Int
    var resume: @Sendable (ActionLogError?) -> Void
  }

  struct Storage {
    var nextSequence: Int
    /// The bytes of the log so far, pending lines included: where the next line starts.
    var length: Int
    var pending = Data()
    var pendingSnapshots: [@Sendable () throws(ActionLogError) -> Void] = []
    var isScheduled = false
    var durableThrough: Int
    /// Whether the log's header is durable: a new log's is not until its first round.
    var isHeaderDurable = true
    var failure: ActionLogError?
    var waiters: [Waiter] = []
    var isSnapshotRequested = false
    let encoder: JSONEncoder
    let redaction: ActionLogRedaction?
  }

  let storage: Locked<Storage>

  /// Where the log's lines go.
  let sink: any ActionLogSink

  let committer: ActionLogCommitter

  /// The header on the log's first line.
  public let header: ActionLogHeader

  /// The name errors use for the log: the sink's file, or a description of the sink.
  let name: String

  /// Starts a new log in `sink`, with its header.
  ///
  /// - Parameters:
  ///   - sink: An empty sink: the log writes its header first.
  ///   - program: The program's name, which recovery and ``ActionLog`` check.
  ///   - schemaVersion: The version of the actions' encoding, from 1.
  ///   - redactsSecrets: Whether ``Secret`` payloads are written redacted (the default). A
  ///     redacted action cannot be recovered: recovery stops with
  ///     ``ActionLogError/Reason/redacted(_:)``. Pass `false` for a log that must recover
  ///     stores whose actions hold secrets, and protect the log as you would the secrets.
  ///   - committer: The thread that writes and flushes the log, shared with other logs.
  public convenience init(
    sink: any ActionLogSink, program: String, schemaVersion: Int = 1,
    redactsSecrets: Bool = true, committer: ActionLogCommitter
  ) {
    let header = ActionLogHeader(
      program: program, actionType: String(reflecting: Action.self),
      schemaVersion: schemaVersion, logID: UUID().uuidString)
    self.init(
      sink: sink, header: header, nextSequence: 1, length: 0, redactsSecrets: redactsSecrets,
      committer: committer)
  }

  /// Creates a new log file at `path` (mode 0600) and starts the log in it.
  ///
  /// - Parameters:
  ///   - path: Where to write the log.
  ///   - overwrite: Whether to replace a file already at `path`; `false` by default.
  ///   - program: The program's name, which recovery and ``ActionLog`` check.
  ///   - schemaVersion: The version of the actions' encoding, from 1.
  ///   - redactsSecrets: Whether ``Secret`` payloads are written redacted (see
  ///     ``init(sink:program:schemaVersion:redactsSecrets:committer:)``).
  ///   - committer: The thread that writes and flushes the log, shared with other logs.
  /// - Throws: ``ActionLogError`` with ``ActionLogError/Reason/fileExists`` or
  ///   ``ActionLogError/Reason/fileError(_:)`` if the file cannot be created.
  public convenience init(
    path: String, overwrite: Bool = false, program: String, schemaVersion: Int = 1,
    redactsSecrets: Bool = true, committer: ActionLogCommitter
  ) throws(ActionLogError) {
    self.init(
      sink: try ActionLogFileSink(path: path, overwrite: overwrite), program: program,
      schemaVersion: schemaVersion, redactsSecrets: redactsSecrets, committer: committer)
  }

  /// Continues a log in `sink` whose first `length` bytes hold the header and entries up to
  /// `nextSequence - 1`, all durable; with `length` 0, starts it with its header.
  init(
    sink: any ActionLogSink, header: ActionLogHeader, nextSequence: Int, length: Int,
    redactsSecrets: Bool, committer: ActionLogCommitter
  ) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let redaction = redactsSecrets ? ActionLogRedaction() : nil
    if let redaction { encoder.userInfo[ActionLogRedaction.key] = redaction }
    var storage = Storage(
      nextSequence: nextSequence, length: length, durableThrough: nextSequence - 1,
      encoder: encoder, redaction: redaction)
    if length == 0 {
      // A header always encodes.
      var line = (try? encoder.encode(header)) ?? Data()
      line.append(0x0A)
      storage.pending = line
      storage.length = line.count
      storage.isScheduled = true
      storage.isHeaderDurable = false
    }
    self.sink = sink
    self.header = header
    self.committer = committer
    self.name = (sink as? ActionLogFileSink)?.path ?? "\(type(of: sink))"
    self.storage = Locked(storage)
    if length == 0 { committer.schedule(self) }
  }

  /// An interceptor that appends each action to the log after the store reduced it.
  ///
  /// Give it to the store at creation. The interceptor keeps the log alive.
  public func interceptor<State>() -> StoreInterceptor<State, Action> {
    StoreInterceptor(didReduce: { action, _, _ in
      self.append(action, snapshot: { _, _, _ in nil })
    })
  }

  /// Appends `action` as the next entry; `snapshot` makes the snapshot job for it if one is due
  /// (given the entry's sequence, the log's length after it, and whether a snapshot was
  /// requested).
  func append(
    _ action: Action,
    snapshot: (_ sequence: Int, _ length: Int, _ isRequested: Bool) -> (
      @Sendable () throws(ActionLogError) -> Void
    )?
  ) {
    let schedule = storage.withLock { storage -> Bool in
      guard storage.failure == nil else { return false }
      let entry = ActionLogEntry(
        sequence: storage.nextSequence, timestamp: Date(), action: action)
      do {
        _ = storage.redaction?.take()
        let line = ActionLogLine.encode(try storage.encoder.encode(entry), format: header.format)
        storage.pending.append(line)
        storage.length += line.count
        storage.nextSequence += 1
      } catch {
        storage.failure = ActionLogError(
          path: name, line: entry.sequence + 1,
          reason: .invalidEntry("the action could not be encoded: \(error)"))
        return false
      }
      if let job = snapshot(entry.sequence, storage.length, storage.isSnapshotRequested) {
        storage.pendingSnapshots.append(job)
        storage.isSnapshotRequested = false
      }
      defer { storage.isScheduled = true }
      return !storage.isScheduled
    }
    if schedule { committer.schedule(self) }
  }

  /// The number of entries appended so far, durable or not.
  public var recordedCount: Int {
    storage.withLock { $0.nextSequence - 1 }
  }

  /// The number of entries known to be durable.
  public var durableCount: Int {
    storage.withLock { $0.durableThrough }
  }

  /// How many callers wait for entries to be durable: for tests.
  package var waiterCount: Int {
    storage.withLock { $0.waiters.count }
  }

  /// Why the log stopped, or `nil` while it works.
  public var failure: ActionLogError? {
    storage.withLock { $0.failure }
  }

  /// Waits until every action appended so far is durable, and the log's header: once it
  /// returns, even a log with no entries yet is one that ``ActionLog`` and recovery can read.
  ///
  /// To wait for one action you sent, use ``waitUntilDurable(_:)``: it also waits for the store
  /// to reduce the action if it was queued.
  ///
  /// - Throws: ``failure``, if the log failed before those actions were durable.
  public func waitUntilDurable() async throws(ActionLogError) {
    let failure: ActionLogError? = await withCheckedContinuation { continuation in
      whenAppendedDurable { continuation.resume(returning: $0) }
    }
    if let failure { throw failure }
  }

  /// Waits until the action `task` was returned for has been reduced and is durable.
  ///
  /// ```swift
  /// try await log.waitUntilDurable(store.send(.move(row: 1, column: 2)))
  /// ```
  ///
  /// It does not wait for the action's effects.
  ///
  /// - Parameter task: What the store's `send` returned for the action. The store (or the root
  ///   of the scoped store it was sent to) must record into this log.
  /// - Throws: ``failure``, if the log failed before the action was durable.
  public func waitUntilDurable(_ task: StoreTask) async throws(ActionLogError) {
    // The store records an action in its interceptors before it resolves the action's task.
    await task.waitUntilReduced()
    try await waitUntilDurable()
  }

  /// Calls `body` once the action `task` was returned for has been reduced and is durable: the
  /// callback form of ``waitUntilDurable(_:)``.
  ///
  /// - Parameters:
  ///   - task: What the store's `send` returned for the action.
  ///   - body: Called once, with `nil`, or with ``failure`` if the log failed first: on the
  ///     committer's thread after the flush, or before this returns if the action is durable
  ///     already (from a task of its own if the action was queued). Keep it short: hand the
  ///     reply to your own I/O, as it delays the acknowledgements of the same round.
  public func whenDurable(
    _ task: StoreTask, _ body: @escaping @Sendable (ActionLogError?) -> Void
  ) {
    if case .pending(let pending) = task.handle, pending.resolvedTask == nil {
      // Queued behind another thread's work: its entry is appended once that thread reduces it.
      Task {
        await task.waitUntilReduced()
        self.whenAppendedDurable(body)
      }
    } else {
      whenAppendedDurable(body)
    }
  }

  /// Calls `body` once every entry appended so far is durable, or the log failed.
  func whenAppendedDurable(_ body: @escaping @Sendable (ActionLogError?) -> Void) {
    let immediate: ActionLogError?? = storage.withLock { storage in
      let target = storage.nextSequence - 1
      if storage.durableThrough >= target, storage.isHeaderDurable { return .some(nil) }
      if let failure = storage.failure { return .some(failure) }
      storage.waiters.append(Waiter(through: target, resume: body))
      return .none
    }
    if case .some(let failure) = immediate { body(failure) }
  }

  /// Asks for a snapshot after the next action, whatever the interval (only for a store
  /// created with ``interceptor(snapshottingTo:every:)``).
  public func requestSnapshot() {
    storage.withLock { $0.isSnapshotRequested = true }
  }
}
