/// A handle on the effects started by one action sent to a ``Store``.
///
/// ``Store/send(_:)`` returns one. Await ``finish()`` to wait until every effect of that action
/// has ended, or call ``cancel()`` to stop them. Discarding it changes nothing: effects run
/// either way.
///
/// On a store given a ``TestExecutor``, ``finish()`` drains the executor while it waits: nothing
/// else runs the effects.
public struct StoreTask: Hashable, Sendable {
  @usableFromInline
  enum Handle: Hashable, Sendable {
    /// The action started no asynchronous work.
    case none
    /// The action was reduced and started this task.
    case task(Task<Void, Never>)
    /// The action was queued behind another thread's work; its task is known later.
    case pending(PendingStoreTask)
  }

  @usableFromInline
  let handle: Handle

  /// The test executor the effects run on, if any: ``finish()`` drains it.
  @usableFromInline
  let testExecutor: TestExecutor?

  /// A task for the effects `task` runs, or for none.
  ///
  /// - Parameter testExecutor: The test executor the effects run on, if any.
  @inlinable
  package init(_ task: Task<Void, Never>?, testExecutor: TestExecutor? = nil) {
    self.handle = task.map(Handle.task) ?? .none
    self.testExecutor = task == nil ? nil : testExecutor
  }

  @inlinable
  init(pending: PendingStoreTask, testExecutor: TestExecutor?) {
    self.handle = .pending(pending)
    self.testExecutor = testExecutor
  }

  /// The same task, whose ``finish()`` waits without draining the test executor: for waits in
  /// the background, which must not run jobs between a test's steps.
  package var withoutDraining: StoreTask {
    switch handle {
    case .none: StoreTask(nil)
    case .task(let task): StoreTask(task)
    case .pending(let pending): StoreTask(pending: pending, testExecutor: nil)
    }
  }

  /// Two tasks are equal when they cover the same effects.
  ///
  /// - Parameters:
  ///   - lhs: A task.
  ///   - rhs: Another task.
  public static func == (lhs: StoreTask, rhs: StoreTask) -> Bool {
    lhs.handle == rhs.handle
  }

  /// Hashes the effects the task covers.
  ///
  /// - Parameter hasher: The hasher to feed.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(handle)
  }

  /// A task for an action that started no asynchronous work.
  package static let none = StoreTask(nil)

  /// Whether the action started asynchronous work (which may have ended since).
  package var hasAsynchronousWork: Bool {
    if case .none = handle { false } else { true }
  }

  /// Cancels the effects the action started. Actions they send afterwards are dropped.
  public func cancel() {
    switch handle {
    case .none: break
    case .task(let task): task.cancel()
    case .pending(let pending): pending.cancel()
    }
  }

  /// Waits until the action has been reduced and every effect it started has ended.
  ///
  /// An effect's `await send(_:)` returns once its action is reduced, so when this returns, the
  /// actions those effects sent are in the state (not necessarily the effects *they* started).
  ///
  /// Cancelling the task that awaits this cancels the effects.
  public func finish() async {
    let task: Task<Void, Never>?
    switch handle {
    case .none: return
    case .task(let value): task = value
    case .pending(let pending): task = await pending.task
    }
    guard let task else { return }
    await withTaskCancellationHandler {
      if let testExecutor, !testExecutor.isDrainingOnCurrentThread {
        await testExecutor.drain(until: task)
      } else {
        await task.value
      }
    } onCancel: {
      task.cancel()
    }
  }

  /// Waits until the action has been reduced, without waiting for its effects.
  func waitUntilReduced() async {
    if case .pending(let pending) = handle { _ = await pending.task }
  }

  /// Whether the effects were cancelled, or the action started none.
  public var isCancelled: Bool {
    switch handle {
    case .none: true
    case .task(let task): task.isCancelled
    case .pending(let pending): pending.isCancelled
    }
  }
}

/// The task of an action that was queued while another thread was draining the store.
///
/// States:
/// - waiting: the action is queued; `finish()` callers wait in `waiters`; `cancel()` only sets
///   `isCancelled`.
/// - resolved: the action was reduced; `task` is its effects (or `nil`), cancelled at once if
///   `cancel()` came first.
@usableFromInline
final class PendingStoreTask: Hashable, Sendable {
  private struct Storage {
    var isResolved = false
    var task: Task<Void, Never>?
    var isCancelled = false
    var waiters: [CheckedContinuation<Task<Void, Never>?, Never>] = []
  }

  private let storage = Locked(Storage())

  /// Called by the store once the action is reduced.
  @usableFromInline
  init() {}

  @usableFromInline
  func resolve(_ task: Task<Void, Never>?) {
    let (waiters, cancel) = storage.withLock { storage in
      storage.isResolved = true
      storage.task = task
      defer { storage.waiters = [] }
      return (storage.waiters, storage.isCancelled)
    }
    if cancel { task?.cancel() }
    for waiter in waiters { waiter.resume(returning: task) }
  }

  func cancel() {
    let task = storage.withLock { storage in
      storage.isCancelled = true
      return storage.task
    }
    task?.cancel()
  }

  var isCancelled: Bool {
    storage.withLock { storage in
      storage.isCancelled || (storage.task?.isCancelled ?? storage.isResolved)
    }
  }

  /// The effects task if the action was reduced already (`nil` if it started none), or `nil`.
  var resolvedTask: Task<Void, Never>?? {
    storage.withLock { $0.isResolved ? .some($0.task) : .none }
  }

  /// The effects task, once the action is reduced.
  var task: Task<Void, Never>? {
    get async {
      await withCheckedContinuation { continuation in
        let resolved: Task<Void, Never>?? = storage.withLock { storage in
          guard storage.isResolved else {
            storage.waiters.append(continuation)
            return .none
          }
          return .some(storage.task)
        }
        if case .some(let task) = resolved { continuation.resume(returning: task) }
      }
    }
  }

  @usableFromInline
  static func == (lhs: PendingStoreTask, rhs: PendingStoreTask) -> Bool { lhs === rhs }

  @usableFromInline
  func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
