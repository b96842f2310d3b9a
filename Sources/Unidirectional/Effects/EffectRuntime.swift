// Over 300 lines on purpose: one lock-guarded state machine (`Storage`) that every section
// below changes (start, run, throttle, cancel); its state stays `private` to this file.

/// Starts, tracks and cancels the effects of one store.
///
/// States of the runtime (`Storage`):
/// - running: effects start as tasks; each is tracked in `running` until it ends, and under its
///   cancellation ids in `tasksByCancelID`.
/// - shut down: the store is gone. Running tasks were cancelled; new effects do not start, and
///   actions they would send are dropped.
///
/// Cancellation ids live here, so they are scoped to one store: two stores never cancel each
/// other's effects.
@usableFromInline
final class EffectRuntime<Action: Sendable>: Sendable {
  private struct Storage {
    var nextTaskID: UInt64 = 0
    var running: [UInt64: Task<Void, Never>] = [:]
    var tasksByCancelID: [EffectID: Set<UInt64>] = [:]
    /// Open throttle windows by id, with the effect waiting for the window's end, if any.
    var throttleWindows: [EffectID: Effect<Action>?] = [:]
    var isShutDown = false
    /// Running tasks cancelled through a `ChildEffectsID`: their child is gone.
    var dismissedChildTasks: Set<UInt64> = []
  }

  private let storage = Locked(Storage())

  /// Delivers actions to the store; set once the store exists, and holding it weakly so that
  /// running effects never keep their store alive.
  ///
  /// The closure is wrapped in a struct: a function type stored directly as `Locked`'s generic
  /// value was re-abstracted by `withLock { $0 }` in optimized builds, and the thunk written
  /// back, so every effect send added one thunk to a chain that each later send walked (memory
  /// and time per send grew with the number of sends; benchmark M2 found it).
  private let deliver = Locked<Delivery?>(nil)

  private struct Delivery {
    let send: @Sendable (Action, EffectOrigin?) -> StoreTask
  }

  /// What the store's effect tasks share (their count, and the task-local they run with).
  let activity: EffectActivity

  /// The executor effect tasks prefer, or `nil` for the global concurrent executor.
  let executor: (any TaskExecutor)?

  /// `executor`, if it is a test executor: a `StoreTask` of this store drains it.
  @usableFromInline let testExecutor: TestExecutor?

  /// Where failures go.
  let reportIssue: @Sendable (StoreIssue) -> Void

  /// - Parameter executor: The executor effect tasks prefer; `nil` for the global one.
  @usableFromInline
  init(
    executor: (any TaskExecutor)? = nil, reportIssue: @escaping @Sendable (StoreIssue) -> Void
  ) {
    self.executor = executor
    self.reportIssue = reportIssue
    self.testExecutor = executor as? TestExecutor
    self.activity = EffectActivity(testExecutor: testExecutor)
    activity.runtime.set(self)
  }

  /// Connects the runtime to its store.
  ///
  /// - Parameter deliver: Reduces or queues an action sent by the effect task given (if any);
  ///   what it returns tells a `Send` when the action has been reduced.
  @usableFromInline
  func connect(_ deliver: @escaping @Sendable (Action, EffectOrigin?) -> StoreTask) {
    self.deliver.withLock { $0 = Delivery(send: deliver) }
  }

  /// The `Send` effects of this store use.
  var send: Send<Action> {
    Send(deliver: { [self] action in
      deliver.withLock { $0 }?.send(action, activity.currentOrigin) ?? .none
    })
  }

  /// Whether the effect task `origin` names was cancelled and is still running (it may be
  /// waiting for an action it sent).
  func wasCancelled(_ origin: EffectOrigin) -> Bool {
    storage.withLock { $0.running[origin.task]?.isCancelled ?? false }
  }

  /// Whether the child the effect task `origin` names runs for was dismissed.
  func childWasDismissed(_ origin: EffectOrigin) -> Bool {
    guard let child = origin.childTask else { return false }
    return storage.withLock { $0.dismissedChildTasks.contains(child) }
  }

  /// The number of effect tasks still running.
  var runningCount: Int {
    storage.withLock { $0.running.count }
  }

  // MARK: Starting

  /// Starts an effect after its action's state was committed.
  ///
  /// Synchronous parts (`.send`, `.cancel`, `cancelInFlight`) happen before this returns, in
  /// order; asynchronous parts start as tasks.
  ///
  /// - Returns: A task covering the asynchronous parts, or `nil` if there are none.
  @usableFromInline
  func start(_ effect: Effect<Action>) -> Task<Void, Never>? {
    var tasks: [Task<Void, Never>] = []
    startSynchronously(effect, tasks: &tasks)
    switch tasks.count {
    case 0:
      return nil
    case 1:
      return tasks[0]
    default:
      let tasks = tasks
      return makeTask(priority: nil) {
        await withTaskCancellationHandler {
          for task in tasks { await task.value }
        } onCancel: {
          for task in tasks { task.cancel() }
        }
      }
    }
  }

  /// Creates a task that prefers the store's executor, if it was given one.
  private func makeTask(
    priority: TaskPriority?, _ operation: sending @escaping () async -> Void
  ) -> Task<Void, Never> {
    if let executor {
      return Task(executorPreference: executor, priority: priority, operation: operation)
    }
    return Task(priority: priority, operation: operation)
  }

  /// Does the synchronous parts of `effect` and starts its asynchronous parts as tasks.
  ///
  /// Every task is registered, before this returns, under the cancellation ids of all the
  /// `.cancellable` wrappers around it (`cancelIDs`), so that `.cancel(id:)` sent right after
  /// the effect started finds it, however deeply the id is nested (a child feature's id inside
  /// the id `forEach` gives each element).
  ///
  /// - Parameter isNested: Whether the tasks started here are waited for by an effect task
  ///   (started from inside an effect).
  private func startSynchronously(
    _ effect: Effect<Action>, cancelIDs: [EffectID] = [], tasks: inout [Task<Void, Never>],
    isNested: Bool = false
  ) {
    switch effect.operation {
    case .none:
      break
    case .send(let action):
      _ = deliver.withLock { $0 }?.send(action, nil)
    case .cancel(let id):
      cancel(id: id)
    case .issue(let issue):
      reportIssue(issue)
    case .cancelMatching(let predicate):
      cancel(where: predicate)
    case .throttle(let id, let interval, let clock, let latest, let inner):
      startThrottled(
        inner, id: id, interval: interval, clock: clock, latest: latest, cancelIDs: cancelIDs,
        tasks: &tasks, isNested: isNested)
    case .merge(let effects):
      for effect in effects {
        startSynchronously(effect, cancelIDs: cancelIDs, tasks: &tasks, isNested: isNested)
      }
    case .concatenate(let effects):
      if effects.allSatisfy(\.isSynchronous) {
        for effect in effects {
          startSynchronously(effect, cancelIDs: cancelIDs, tasks: &tasks, isNested: isNested)
        }
      } else if let task = spawn(
        cancelIDs: cancelIDs, priority: nil, isNested: isNested, { await self.perform(effect) })
      {
        tasks.append(task)
      }
    case .run(let run):
      if let task = spawn(
        cancelIDs: cancelIDs, priority: run.priority, isNested: isNested, site: effect.site,
        { await self.perform(run) })
      {
        tasks.append(task)
      }
    case .cancellable(let id, let cancelInFlight, let inner):
      if cancelInFlight { cancel(id: id) }
      startSynchronously(inner, cancelIDs: cancelIDs + [id], tasks: &tasks, isNested: isNested)
    }
  }

  /// Starts a tracked task registered under `cancelIDs`, or returns `nil` if the store is gone.
  ///
  /// - Parameter isNested: Whether an effect task will wait for this one (it was started from
  ///   inside an effect).
  private func spawn(
    cancelIDs: [EffectID],
    priority: TaskPriority?,
    isNested: Bool = false,
    site: EffectSite? = nil,
    _ operation: @escaping @Sendable () async -> Void
  ) -> Task<Void, Never>? {
    storage.withLock { storage in
      guard !storage.isShutDown else { return nil }
      let taskID = storage.nextTaskID
      storage.nextTaskID += 1
      // Created under the lock so that the task cannot finish (and unregister) before it is
      // registered; its `finished` call waits for this lock.
      // A task inside a child's effects (a nested `.cancellable`) runs for the child too.
      // Only a task started from inside an effect task (`isNested`) runs for that task's child: a
      // top-level effect started while reducing on an effect's task is not the child's.
      let inherited = isNested ? activity.currentOrigin : nil
      let origin = EffectOrigin(
        task: taskID,
        childTask: cancelIDs.contains(where: \.isChildEffects)
          ? taskID : inherited?.childTask,
        site: site ?? inherited?.site)
      // A top-level effect started on a child's effect task is not the child's (see
      // `NavigationContext`); one started from inside an effect (`isNested`) is.
      let operation =
        !isNested && NavigationContext.isInsideChild
        ? NavigationContext.outsideChildren(operation) : operation
      // Counted before it exists, so that its end never comes before its beginning.
      activity.taskBegan()
      let task = makeTask(priority: priority) {
        await self.activity.run(origin: origin, operation)
        self.finished(taskID, cancelIDs: cancelIDs)
        self.activity.taskEnded()
      }
      storage.running[taskID] = task
      for id in cancelIDs { storage.tasksByCancelID[id, default: []].insert(taskID) }
      return task
    }
  }

  private func finished(_ taskID: UInt64, cancelIDs: [EffectID]) {
    storage.withLock { storage in
      storage.running[taskID] = nil
      storage.dismissedChildTasks.remove(taskID)
      for cancelID in cancelIDs {
        guard var ids = storage.tasksByCancelID[cancelID] else { continue }
        ids.remove(taskID)
        storage.tasksByCancelID[cancelID] = ids.isEmpty ? nil : ids
      }
    }
  }

  // MARK: Running

  /// Runs an effect to completion inside a task.
  private func perform(_ effect: Effect<Action>) async {
    switch effect.operation {
    case .none:
      return
    case .send(let action):
      await send(action)
    case .cancel, .issue, .cancelMatching, .throttle:
      // Started as at the top level; wait for the tasks they start, if any.
      var tasks: [Task<Void, Never>] = []
      startSynchronously(effect, tasks: &tasks, isNested: true)
      await awaitAll(tasks)
    case .run(let run):
      await perform(run)
    case .merge(let effects):
      await withTaskGroup(of: Void.self) { group in
        for effect in effects {
          let current = activity.currentOrigin
          let origin = EffectOrigin(
            task: current?.task ?? 0, childTask: current?.childTask,
            site: effect.site ?? current?.site)
          group.addTask {
            await self.activity.run(origin: origin) { await self.perform(effect) }
          }
        }
        await group.waitForAll()
      }
    case .concatenate(let effects):
      for effect in effects {
        guard !Task.isCancelled else { return }
        await perform(effect)
      }
    case .cancellable(let id, let cancelInFlight, let inner):
      if cancelInFlight { cancel(id: id) }
      guard
        let task = spawn(
          cancelIDs: [id], priority: inner.priority, isNested: true, site: inner.site,
          { await self.perform(inner) })
      else { return }
      await awaitAll([task])
    }
  }

  /// Waits for `tasks`, passing this task's cancellation on to them (they are not children).
  private func awaitAll(_ tasks: [Task<Void, Never>]) async {
    guard !tasks.isEmpty else { return }
    await withTaskCancellationHandler {
      for task in tasks { await task.value }
    } onCancel: {
      for task in tasks { task.cancel() }
    }
  }

  private func perform(_ run: Effect<Action>.Run) async {
    // The dependencies in force where the effect was created (a `withDependencies` scope inside
    // a reducer), when they may differ from the ones this task inherited.
    if let dependencies = run.dependencies {
      await DependencyValues.$current.withValue(dependencies) { await perform(run, send: send) }
    } else {
      await perform(run, send: send)
    }
  }

  private func perform(_ run: Effect<Action>.Run, send: Send<Action>) async {
    do {
      try await run.operation(send)
    } catch {
      // A cancelled effect may throw anything on its way out; that is not a failure.
      if Task.isCancelled || error is CancellationError { return }
      if let handler = run.handler {
        await handler(error, send)
      } else {
        reportIssue(StoreIssue(kind: .effectFailed(error), fileID: run.fileID, line: run.line))
      }
    }
  }

  // MARK: Throttling

  /// Runs `effect` now if no window is open for `id`, and opens one; otherwise keeps it (the
  /// latest, or the first if `latest` is false) to run when the window ends.
  private func startThrottled(
    _ effect: Effect<Action>, id: EffectID, interval: Duration, clock: any Clock<Duration>,
    latest: Bool, cancelIDs: [EffectID], tasks: inout [Task<Void, Never>], isNested: Bool
  ) {
    let opensWindow = storage.withLock { storage -> Bool in
      guard let pending = storage.throttleWindows[id] else {
        storage.throttleWindows[id] = .some(nil)
        return true
      }
      if latest || pending == nil { storage.throttleWindows[id] = .some(effect) }
      return false
    }
    guard opensWindow else { return }
    startSynchronously(effect, cancelIDs: cancelIDs, tasks: &tasks, isNested: isNested)
    let window = spawn(cancelIDs: cancelIDs + [id], priority: nil, isNested: isNested) {
      await self.runThrottleWindow(id: id, interval: interval, clock: clock)
    }
    if let window { tasks.append(window) }
  }

  /// Waits out throttle windows, running the effect kept for each window's end, until a window
  /// ends with nothing kept. Cancelling the id closes the window and drops what was kept.
  private func runThrottleWindow(id: EffectID, interval: Duration, clock: any Clock<Duration>) async
  {
    while true {
      do {
        try await clock.sleep(for: interval)
      } catch {
        storage.withLock { _ = $0.throttleWindows.removeValue(forKey: id) }
        return
      }
      let next = storage.withLock { storage -> Effect<Action>? in
        guard case .some(.some(let pending)) = storage.throttleWindows[id] else {
          storage.throttleWindows[id] = nil
          return nil
        }
        storage.throttleWindows[id] = .some(nil)
        return pending
      }
      guard let next else { return }
      var tasks: [Task<Void, Never>] = []
      startSynchronously(next, tasks: &tasks, isNested: true)
      await awaitAll(tasks)
    }
  }

  // MARK: Cancelling

  /// Cancels every running task started under `id`.
  func cancel(id: EffectID) {
    let tasks = storage.withLock { storage in
      let ids = storage.tasksByCancelID.removeValue(forKey: id) ?? []
      if id.isChildEffects { storage.dismissedChildTasks.formUnion(ids) }
      return ids.compactMap { storage.running[$0] }
    }
    // Outside the lock: cancellation handlers run synchronously and may call back in.
    for task in tasks { task.cancel() }
  }

  /// Cancels every running task whose cancellation id satisfies `predicate`.
  func cancel(where predicate: @Sendable (any Hashable & Sendable) -> Bool) {
    let tasks = storage.withLock { storage in
      let ids = storage.tasksByCancelID.keys.filter { predicate($0.base) }
      return ids.flatMap { id in
        let tasks = storage.tasksByCancelID.removeValue(forKey: id) ?? []
        if id.isChildEffects { storage.dismissedChildTasks.formUnion(tasks) }
        return tasks.compactMap { storage.running[$0] }
      }
    }
    for task in tasks { task.cancel() }
  }

  /// Cancels every running effect task.
  func cancelAll() {
    let tasks = storage.withLock { storage in
      storage.tasksByCancelID = [:]
      return Array(storage.running.values)
    }
    for task in tasks { task.cancel() }
  }

  /// Cancels everything and refuses new effects: the store is gone.
  @usableFromInline
  func shutDown() {
    let tasks = storage.withLock { storage in
      storage.isShutDown = true
      storage.tasksByCancelID = [:]
      return Array(storage.running.values)
    }
    deliver.withLock { $0 = nil }
    for task in tasks { task.cancel() }
  }

  // MARK: Acting from inside effects (see EffectRuntime+TaskCancellation.swift)

  /// Runs `operation` in a task registered under `id`, as `perform` runs a `.cancellable`
  /// effect, and waits for it; this task's cancellation passes on to it.
  ///
  /// - Returns: `false` if the store is gone and `operation` did not run.
  func runCancellable(
    id: EffectID, cancelInFlight: Bool, _ operation: @escaping @Sendable () async -> Void
  ) async -> Bool {
    if cancelInFlight { cancel(id: id) }
    guard let task = spawn(cancelIDs: [id], priority: nil, isNested: true, operation) else {
      return false
    }
    await awaitAll([task])
    return true
  }
}
