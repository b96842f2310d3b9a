import Synchronization

// Over 300 lines on purpose: the runtime's sections (start, run, throttle, cancel, watch) each
// act on what its state machine (`EffectRuntimeStateMachine`) returns; they share its lock.

/// Starts, tracks and cancels the effects of one store.
///
/// Its state (the tasks running and their cancellation ids, throttle windows, navigation
/// children's lives and watches, whether the store is gone) is an `EffectRuntimeStateMachine`
/// behind a lock: each section below asks it under the lock what to do, then does it (cancels
/// tasks, ends children's lives, starts effects, reports issues) after unlocking.
///
/// Cancellation ids live here, so they are scoped to one store: two stores never cancel each
/// other's effects.
@usableFromInline
final class EffectRuntime<Action: Sendable>: Sendable {
  private typealias StateMachine = EffectRuntimeStateMachine<Action>

  /// The runtime's state. Asked under this lock what to do; what it returns is done after
  /// unlocking, except creating a task (see `spawn`).
  private let machine = Locked(StateMachine())

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

  /// The store's state type: the only one whose watches the store can check.
  let rootStateType: ObjectIdentifier

  /// The number of watches kept, read without the lock after every action.
  @usableFromInline let watchCount = Atomic<Int>(0)

  /// - Parameters:
  ///   - executor: The executor effect tasks prefer; `nil` for the global one.
  ///   - rootState: The store's state type.
  ///   - reportIssue: Where failures go.
  @usableFromInline
  init(
    executor: (any TaskExecutor)? = nil, rootState: Any.Type,
    reportIssue: @escaping @Sendable (StoreIssue) -> Void
  ) {
    self.executor = executor
    self.rootStateType = ObjectIdentifier(rootState)
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

  /// The `Send` the effect task `origin` gives its operation: the origin travels with it, so
  /// that wherever it is called from (an unstructured task, a Dispatch queue), an action of a
  /// child that is gone is dropped, and reported unless the calling task was cancelled.
  func send(from origin: EffectOrigin) -> Send<Action> {
    Send(
      deliver: { [self] action, origin in
        // `Send` reported it if the child was gone when it was called; gone since, it is
        // dropped in silence (it was sent while its child was there).
        guard origin?.childIsGone != true else { return .none }
        return deliver.withLock { $0 }?.send(action, origin) ?? .none
      },
      origin: SendOrigin(task: origin, reportIssue: reportIssue))
  }

  /// Whether the effect task `origin` names was cancelled and is still running (it may be
  /// waiting for an action it sent).
  func wasCancelled(_ origin: EffectOrigin) -> Bool {
    machine.withLock { $0.task(origin.task)?.isCancelled ?? false }
  }

  /// The number of effect tasks still running.
  var runningCount: Int {
    machine.withLock { $0.runningCount }
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
  /// - Parameter parent: The effect task that waits for the tasks started here, if they are
  ///   started from inside an effect.
  private func startSynchronously(
    _ effect: Effect<Action>, cancelIDs: [EffectID] = [], tasks: inout [Task<Void, Never>],
    parent: EffectOrigin? = nil
  ) {
    switch effect.operation {
    case .none:
      break
    case .send(let action):
      _ = deliver.withLock { $0 }?.send(action, sendOrigin(cancelIDs: cancelIDs, parent: parent))
    case .cancel(let id):
      cancel(id: id)
    case .issue(let issue):
      reportIssue(issue)
    case .cancelMatching(let predicate):
      cancel(where: predicate)
    case .watch(let watch):
      register(watch)
    case .throttle(let id, let interval, let clock, let latest, let inner):
      startThrottled(
        inner, id: id, interval: interval, clock: clock, latest: latest, cancelIDs: cancelIDs,
        tasks: &tasks, parent: parent)
    case .merge(let effects):
      for effect in effects {
        startSynchronously(effect, cancelIDs: cancelIDs, tasks: &tasks, parent: parent)
      }
    case .concatenate(let effects):
      if effects.allSatisfy(\.isSynchronous) {
        for effect in effects {
          startSynchronously(effect, cancelIDs: cancelIDs, tasks: &tasks, parent: parent)
        }
      } else if let task = spawn(
        cancelIDs: cancelIDs, priority: nil, parent: parent,
        { await self.perform(effect, origin: $0) })
      {
        tasks.append(task)
      }
    case .run(let run):
      if let task = spawn(
        cancelIDs: cancelIDs, priority: run.priority, parent: parent, site: effect.site,
        { await self.perform(run, origin: $0) })
      {
        tasks.append(task)
      }
    case .cancellable(let id, let cancelInFlight, let inner):
      if cancelInFlight { cancel(id: id) }
      startSynchronously(inner, cancelIDs: cancelIDs + [id], tasks: &tasks, parent: parent)
    }
  }

  /// Starts a tracked task registered under `cancelIDs`, or returns `nil` if the store is gone.
  ///
  /// - Parameters:
  ///   - parent: The effect task that will wait for this one, if it is started from inside an
  ///     effect: this one runs for the children that one runs for.
  ///   - operation: The task's work, given the task's origin (which the `Send`s it makes carry).
  private func spawn(
    cancelIDs: [EffectID],
    priority: TaskPriority?,
    parent: EffectOrigin?,
    site: EffectSite? = nil,
    _ operation: @escaping @Sendable (EffectOrigin) async -> Void
  ) -> Task<Void, Never>? {
    machine.withLock { machine in
      guard case .start(let taskID) = machine.startTask() else { return nil }
      // A task inside a child's effects (a nested `.cancellable`) runs for the child too. Only a
      // task started from inside an effect task (`parent`) runs for that task's children: a
      // top-level effect started while reducing on an effect's task is not the child's.
      let children = machine.childLifetimes(
        cancelIDs: cancelIDs, inheriting: parent?.children ?? [])
      let origin = EffectOrigin(task: taskID, children: children, site: site ?? parent?.site)
      // A top-level effect started on a child's effect task is not the child's (see
      // `NavigationContext`); one started from inside an effect (`parent`) is.
      let isInsideChild = parent == nil && NavigationContext.isInsideChild
      // Counted before it exists, so that its end never comes before its beginning.
      activity.taskBegan()
      // Created under the lock so that the task cannot finish (and unregister) before it is
      // registered; its `finished` call waits for this lock.
      let task = makeTask(priority: priority) {
        if isInsideChild {
          await NavigationContext.outsideChildren {
            await self.activity.run(origin: origin, operation)
          }()
        } else {
          await self.activity.run(origin: origin, operation)
        }
        self.finished(taskID, cancelIDs: cancelIDs)
        self.activity.taskEnded()
      }
      machine.taskStarted(task, taskID: taskID, cancelIDs: cancelIDs)
      return task
    }
  }

  /// The origin of a synchronous `.send` under `cancelIDs`: a child's `.send` is dropped if the
  /// child is gone when its turn comes (the action that sent it may also have removed the child).
  /// A `.send` run inside the effect task `parent` (in a `.concatenate` that has an asynchronous
  /// part) is that task's, even outside children: like the task's own `send`, it is dropped if
  /// the task is cancelled while the action waits in the queue. `nil` for a `.send` the reducer
  /// returned outside children, as for actions sent by the store's user.
  private func sendOrigin(cancelIDs: [EffectID], parent: EffectOrigin?) -> EffectOrigin? {
    guard parent != nil || cancelIDs.contains(where: \.isChildEffects) else { return nil }
    let children = machine.withLock {
      $0.childLifetimes(cancelIDs: cancelIDs, inheriting: parent?.children ?? [])
    }
    // No task of its own: a `.send` started inside an effect task is that task's.
    return EffectOrigin(task: parent?.task ?? .max, children: children, site: parent?.site)
  }

  private func finished(_ taskID: UInt64, cancelIDs: [EffectID]) {
    machine.withLock { $0.taskFinished(taskID, cancelIDs: cancelIDs) }
  }

  // MARK: Running

  /// Runs an effect to completion inside the effect task `origin`.
  private func perform(_ effect: Effect<Action>, origin: EffectOrigin) async {
    switch effect.operation {
    case .none:
      return
    case .send(let action):
      await send(from: origin)(action)
    case .cancel, .issue, .cancelMatching, .throttle, .watch:
      // Started as at the top level; wait for the tasks they start, if any.
      var tasks: [Task<Void, Never>] = []
      startSynchronously(effect, tasks: &tasks, parent: origin)
      await awaitAll(tasks)
    case .run(let run):
      await perform(run, origin: origin)
    case .merge(let effects):
      await withTaskGroup(of: Void.self) { group in
        for effect in effects {
          let part = EffectOrigin(
            task: origin.task, children: origin.children, site: effect.site ?? origin.site)
          group.addTask {
            await self.activity.run(origin: part) { await self.perform(effect, origin: $0) }
          }
        }
        await group.waitForAll()
      }
    case .concatenate(let effects):
      for effect in effects {
        guard !Task.isCancelled else { return }
        await perform(effect, origin: origin)
      }
    case .cancellable(let id, let cancelInFlight, let inner):
      if cancelInFlight { cancel(id: id) }
      guard
        let task = spawn(
          cancelIDs: [id], priority: inner.priority, parent: origin, site: inner.site,
          { await self.perform(inner, origin: $0) })
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

  private func perform(_ run: Effect<Action>.Run, origin: EffectOrigin) async {
    let send = send(from: origin)
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
    latest: Bool, cancelIDs: [EffectID], tasks: inout [Task<Void, Never>], parent: EffectOrigin?
  ) {
    let action = machine.withLock { $0.throttle(effect, id: id, latest: latest) }
    guard case .runAndOpenWindow = action else { return }
    startSynchronously(effect, cancelIDs: cancelIDs, tasks: &tasks, parent: parent)
    let window = spawn(cancelIDs: cancelIDs + [id], priority: nil, parent: parent) { origin in
      await self.runThrottleWindow(id: id, interval: interval, clock: clock, origin: origin)
    }
    if let window { tasks.append(window) }
  }

  /// Waits out throttle windows, running the effect kept for each window's end, until a window
  /// ends with nothing kept. Cancelling the id closes the window and drops what was kept.
  private func runThrottleWindow(
    id: EffectID, interval: Duration, clock: any Clock<Duration>, origin: EffectOrigin
  ) async {
    while true {
      do {
        try await clock.sleep(for: interval)
      } catch {
        machine.withLock { $0.throttleWindowCancelled(id) }
        return
      }
      guard case .runAndWaitAgain(let next) = machine.withLock({ $0.throttleWindowEnded(id) })
      else { return }
      var tasks: [Task<Void, Never>] = []
      startSynchronously(next, tasks: &tasks, parent: origin)
      await awaitAll(tasks)
    }
  }

  // MARK: Cancelling

  /// Cancels every running task started under `id`; if `id` is a child's, the child is gone.
  func cancel(id: EffectID) {
    let action = machine.withLock { $0.cancel(id: id) }
    // Outside the lock: cancellation handlers run synchronously and may call back in. The child
    // ends after its tasks are cancelled (see `ChildLifetime.end()`).
    for task in action.tasks { task.cancel() }
    action.endedChild?.end()
  }

  /// Cancels every running task whose cancellation id satisfies `predicate`; the children whose
  /// ids satisfy it are gone.
  func cancel(where predicate: @Sendable (any Hashable & Sendable) -> Bool) {
    let action = machine.withLock { $0.cancel(where: predicate) }
    for task in action.tasks { task.cancel() }
    for lifetime in action.endedChildren { lifetime.end() }
  }

  /// Cancels every running effect task.
  func cancelAll() {
    let tasks = machine.withLock { $0.cancelAll() }
    for task in tasks { task.cancel() }
  }

  /// Cancels everything and refuses new effects: the store is gone.
  @usableFromInline
  func shutDown() {
    let tasks = machine.withLock { $0.shutDown() }
    watchCount.store(0, ordering: .relaxed)
    deliver.withLock { $0 = nil }
    for task in tasks { task.cancel() }
  }

  // MARK: Watching navigation children (see ChildWatch)

  /// Whether any navigation child with effects is watched: a store checks its watches after an
  /// action only then.
  @inlinable
  var hasWatches: Bool {
    watchCount.load(ordering: .relaxed) > 0
  }

  /// Keeps `watch` until it says its child is gone, unless one with its key is kept already
  /// (that one knows the state since it was kept). A watch of another state than the store's
  /// was not lifted to the root by the reducers above it (a reducer that scopes by hand):
  /// nothing can check it, and its child's effects end only by the reducer around it.
  private func register(_ watch: ChildWatch) {
    guard watch.stateType == rootStateType else { return }
    machine.withLock { machine in
      machine.keep(watch)
      watchCount.store(machine.watchCount, ordering: .relaxed)
    }
  }

  /// The number of watches kept, and of child lives still held (for tests: what a store keeps
  /// for navigation children must not grow with children that can no longer act).
  var bookkeeping: (watches: Int, lifetimes: Int) {
    machine.withLock { $0.bookkeeping }
  }

  /// After an action, on the store's owner: asks every watch about the committed root state at
  /// `state`, and cancels the effects of the children that are gone, whichever reducer removed
  /// them. O(watches); a watch of a `forEach` looks at the rows only if they may have lost some.
  @usableFromInline
  func checkWatches(_ state: UnsafeRawPointer) {
    let cancellations = machine.withLock { machine in
      let cancellations = machine.checkWatches(state)
      watchCount.store(machine.watchCount, ordering: .relaxed)
      return cancellations
    }
    for cancellation in cancellations {
      switch cancellation {
      case .id(let id): cancel(id: id)
      case .matching(let predicate): cancel(where: predicate)
      }
    }
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
    let parent = activity.currentOrigin
    guard
      let task = spawn(cancelIDs: [id], priority: nil, parent: parent, { _ in await operation() })
    else {
      return false
    }
    await awaitAll([task])
    return true
  }
}
