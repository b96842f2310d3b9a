import Observation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

// Processing an action: the fast path that reduces on the calling thread, the queue, the
// reduce/commit/complete steps, and draining what was sent meanwhile (see ARCHITECTURE.md).
extension Store {
  /// Reduces `action` now if the store is idle, or queues it.
  @inlinable
  @discardableResult
  func process(_ action: Action) -> StoreTask {
    if !isIntercepted, gate.tryAcquireForReducing() {
      return storeTask(reduceOwned(action))
    }
    return processSlowPath(action)
  }

  /// Reduces `action` on a store the caller has just taken for reducing, does everything the
  /// action causes, then the work queued meanwhile, and gives the store up.
  @inlinable
  func reduceOwned(_ action: Action) -> Task<Void, Never>? {
    let effect = reduce(action)
    if case .none = effect.operation, graph.isEmpty, !effects.hasWatches,
      gate.tryEndReducingAndRelease()
    {
      // Nothing to do after the commit, and nothing was queued: the store is idle again.
      return nil
    }
    gate.endReducing()
    let task = complete(effect)
    drain()
    return task
  }

  /// `process` for an action an effect sent: the same, but a queued action remembers the effect
  /// task, so that it is dropped if that task is cancelled before the action's turn comes.
  ///
  /// The action of a navigation child's effect is looked at after its sender took the store
  /// (`processOwned`), or by the owner it was handed to: the owner that removed the child marked
  /// it gone before giving the store up, so no action of the child can slip in between that
  /// action and its end (checking before taking the store could let it reach the child that
  /// replaced it).
  @inlinable
  func process(_ action: Action, from origin: EffectOrigin?) -> StoreTask {
    if origin?.children.isEmpty != false, !isIntercepted, gate.tryAcquireForReducing() {
      return storeTask(reduceOwned(action))
    }
    return processSlowPath(action, from: origin)
  }

  /// `process` when the store could not be taken at once: waits a moment for another thread's
  /// short reduce, then queues the action (and drains the store if it became idle meanwhile).
  @usableFromInline
  func processSlowPath(_ action: Action, from origin: EffectOrigin? = nil) -> StoreTask {
    if !isIntercepted, !gate.isOwnedByCurrentThread {
      // Another thread holds the store for tens of nanoseconds per action: retrying, yielding
      // the processor and then sleeping while it reduces, is far cheaper than queueing behind it
      // (once actions are queued, the owner drains them, and senders that find it draining
      // would queue too: benchmark R1). A store that stays busy otherwise (running observers or
      // effects) gets the action queued after a few tries.
      retrying: for attempt in 0..<100 {
        if let origin, !origin.children.isEmpty {
          if gate.tryAcquire() { return processOwned(action, from: origin) }
        } else if gate.tryAcquireForReducing() {
          return storeTask(reduceOwned(action))
        }
        switch gate.busyness {
        case .idle: continue
        case .reducing where attempt < 20: sched_yield()
        case .reducing: gate.waitWhileReducing()
        case .draining where attempt < 20: sched_yield()
        case .draining: break retrying
        }
      }
    } else if !gate.isOwnedByCurrentThread, gate.tryAcquire() {
      if let origin, !origin.children.isEmpty, origin.childIsGone || effects.wasCancelled(origin) {
        // As in `processOwned`: checked once the store is taken.
        drain()
        return StoreTask(nil)
      }
      let task = reduceIntercepted(action)
      drain()
      return storeTask(task)
    }
    let pending = PendingStoreTask()
    let queued = Queued(action: action, pending: pending, origin: origin)
    if gate.submit({ self.pending.actions.append(queued) }) {
      // The store was idle after all: the caller owns it, and its action is first in line.
      drain()
      if case .some(let task) = pending.resolvedTask { return storeTask(task) }
    }
    return StoreTask(pending: pending, testExecutor: effects.testExecutor)
  }

  /// Reduces the action of a navigation child's effect on a store the caller has just taken
  /// (not yet reducing), unless the child is gone or the effect was cancelled: the owner that
  /// removed the child marked it gone before giving the store up. Then does everything the
  /// action causes and the work queued meanwhile, and gives the store up.
  @usableFromInline
  func processOwned(_ action: Action, from origin: EffectOrigin) -> StoreTask {
    if origin.childIsGone || effects.wasCancelled(origin) {
      drain()
      return StoreTask(nil)
    }
    gate.beginReducing()
    let effect = reduce(action)
    gate.endReducing()
    let task = complete(effect)
    drain()
    return storeTask(task)
  }

  /// The handle on `task`, the effects of one action, which drains the store's test executor
  /// (if any) as it waits.
  @inlinable
  func storeTask(_ task: Task<Void, Never>?) -> StoreTask {
    guard let task else { return StoreTask(nil) }
    return StoreTask(task, testExecutor: effects.testExecutor)
  }

  /// Reduces one action on the owner's thread, with the state locked against readers.
  @inlinable
  func reduce(_ action: Action) -> Effect<Action> {
    withStoreDependencies {
      reducer(&statePointer.pointee, action)
    }
  }

  /// Does what a committed action causes, on the owner's thread and outside any lock: finds the
  /// observers it made stale, starts its effects, runs those observers, and tells the registrar.
  @usableFromInline
  func complete(_ effect: Effect<Action>) -> Task<Void, Never>? {
    let changes = graph.isEmpty ? ObservationGraph.Changes() : graph.changes(in: statePointer)
    var task: Task<Void, Never>?
    if case .none = effect.operation {
    } else {
      // Tasks inherit the task-locals in force where they are created.
      task = withStoreDependencies { effects.start(effect) }
    }
    // After the effects started (a child's new effects end with it too): the navigation
    // children that are gone, whichever reducer removed them (see `ChildWatch`).
    if effects.hasWatches { effects.checkWatches(UnsafeRawPointer(statePointer)) }
    if !changes.observers.isEmpty {
      changes.observers.withUnsafeBufferPointer { runObservers($0) }
    }
    if let posts = changes.posts {
      for post in posts { post() }
    }
    return task
  }

  /// Runs `body` with the store's dependencies in force.
  ///
  /// Binding a task-local costs an allocation, so it is skipped when the store's dependencies
  /// are the defaults and no `withDependencies` scope is running anywhere (the common case in
  /// production): then the ones in force are the defaults too.
  @inlinable @inline(__always)
  func withStoreDependencies<R>(_ body: () -> R) -> R {
    switch dependencyBinding {
    case .always: return bindingDependencies(body)
    case .whenOverridden where DependencyValues.mayBeOverridden: return bindingDependencies(body)
    case .whenOverridden, .never: return body()
    }
  }

  @usableFromInline
  func bindingDependencies<R>(_ body: () -> R) -> R {
    DependencyValues.$current.withValue(dependencies, operation: body)
  }

  /// Owner: does the work other threads handed over until there is none, then gives the store
  /// up.
  @inlinable
  func drain() {
    if !gate.tryRelease() { drainPending() }
  }

  @usableFromInline
  func drainPending() {
    repeat {
      let work = gate.nextWork { () -> (item: Work?, more: Bool) in
        if !pending.requests.isEmpty {
          // Requests first: a registration is cheapest on the state its first run read.
          defer { pending.requests = [] }
          return (.requests(pending.requests), !pending.actions.isEmpty)
        }
        let next = pending.actions.popFirst()
        return (next.map(Work.action), !pending.actions.isEmpty)
      }
      switch work {
      case nil:
        return
      case .requests(let requests):
        carryOut(requests)
      case .action(let next)
      where next.origin.map { $0.childIsGone || effects.wasCancelled($0) } == true:
        // Its effect was cancelled, or its child went away, while it waited: effects that were
        // cancelled cannot change state (a dismissed child's effect must not reach the child
        // presented after it). Dropped in silence: it was sent while its effect could.
        next.pending.resolve(nil)
      case .action(let next):
        let task: Task<Void, Never>?
        if !isIntercepted {
          gate.beginReducing()
          let effect = reduce(next.action)
          gate.endReducing()
          task = complete(effect)
        } else {
          task = reduceIntercepted(next.action)
        }
        next.pending.resolve(task)
      }
    } while !gate.tryRelease()
  }

  /// Owner: reduces one action with the interceptors around it. Interceptors may read the store
  /// and send to it (sends queue, as the store is owned).
  @usableFromInline
  func reduceIntercepted(_ action: Action) -> Task<Void, Never>? {
    // Only the owner writes the state, so reading it here without the gate is safe.
    let oldState = statePointer.pointee
    for interceptor in interceptors { interceptor.willReduce?(action, oldState) }
    gate.beginReducing()
    let effect = reduce(action)
    gate.endReducing()
    let newState = statePointer.pointee
    for interceptor in interceptors { interceptor.didReduce?(action, oldState, newState) }
    let task = complete(effect)
    for interceptor in interceptors { interceptor.didComplete?(task) }
    return task
  }
}
