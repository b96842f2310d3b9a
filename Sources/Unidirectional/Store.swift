import Observation

/// The runtime of a feature: it holds the state, reduces actions one at a time, starts their
/// effects, and tells observers what changed.
///
/// ```swift
/// let store = Store(initialState: Counter.State()) { Counter() }
/// let token = store.observe { print("count:", store.count) }
/// store.send(.increment)   // prints "count: 1"
/// ```
///
/// ## Threading
///
/// A store is `Sendable` and may be used from any thread, task or actor. Its state is guarded
/// by a lock. Actions are reduced one at a time, in the order they were sent (FIFO). An action
/// sent while another is being processed, whether by an observer, an effect or another
/// thread, is queued and never reduced re-entrantly. Whoever finds the store idle does the
/// work: ``send(_:)`` reduces the action, starts its effects and runs the observers that it made
/// stale on the calling thread, then reduces whatever was queued meanwhile, before returning.
///
/// ## Reading state
///
/// - ``state``: a snapshot of the whole state.
/// - `store.count`: one field, through dynamic member lookup.
/// - `store[\.board.cells[4]]`: a deeper value, tracked by observers as exactly that key path.
///
/// ## Lifetime
///
/// When the store is deallocated its running effects are cancelled, and its observers'
/// closures are released. Effects and tokens never keep a store alive; an observer closure
/// that captures the store strongly does, until its token is cancelled or dropped.
@dynamicMemberLookup
public final class Store<State: Sendable, Action: Sendable>: Sendable {
  /// Everything the lock guards, with ``state`` (see `statePointer`).
  ///
  /// States of the store:
  /// - idle: `isDraining == false`, the queue is empty.
  /// - draining: one thread owns the store's work (`isDraining == true`): it reduces queued
  ///   actions, starts their effects and runs observers; other senders only append to `queue`.
  ///   Observer registration on another thread checks `generation` to see if an action was
  ///   committed while its first run was reading.
  @usableFromInline
  struct Core {
    @usableFromInline var generation: UInt64 = 0
    @usableFromInline var isDraining = false
    @usableFromInline var queue = ActionQueue<Queued>()
    @usableFromInline var graph = ObservationGraph(stateSize: MemoryLayout<State>.size)
    /// Observers registered during heavy contention, whose first run may have seen an older
    /// state: the draining thread runs them again.
    @usableFromInline var staleObservers: [ObserverRecord] = []

    @inlinable
    init() {}
  }

  @usableFromInline
  struct Queued {
    @usableFromInline let action: Action
    @usableFromInline let pending: PendingStoreTask

    @inlinable
    init(action: Action, pending: PendingStoreTask) {
      self.action = action
      self.pending = pending
    }
  }

  /// The result of reducing one action: its effect, and what it made stale.
  @usableFromInline
  struct Reduced {
    @usableFromInline let effect: Effect<Action>
    @usableFromInline let changes: ObservationGraph.Changes

    @inlinable
    init(effect: Effect<Action>, changes: ObservationGraph.Changes) {
      self.effect = effect
      self.changes = changes
    }

    /// Whether there is nothing to do after the lock: no effect, no observer, no notification.
    @inlinable
    var isTrivial: Bool {
      guard case .none = effect.operation else { return false }
      return changes.observers.isEmpty && changes.registrarNotifications.isEmpty
    }
  }

  @usableFromInline let core: Locked<Core>
  /// The state, at a stable address.
  ///
  /// `nonisolated(unsafe)` is safe because of how it is used: the state is written only by
  /// the draining thread, under the lock; it is read under the lock, or without it by the
  /// draining thread itself while it runs observers (nothing else can write then).
  @usableFromInline nonisolated(unsafe) let statePointer: UnsafeMutablePointer<State>
  @usableFromInline let reducer: any Reducer<State, Action>
  @usableFromInline let effects: EffectRuntime<Action>
  @usableFromInline let registrar = ObservationRegistrar()
  /// For a child store made by `scope`: the link through which it reads, sends and observes.
  /// `nil` for a root store, which owns its state.
  @usableFromInline let scope: (any StoreScope<State, Action>)?

  /// The dependencies in force when the store was created: its reducer and effects use them.
  @usableFromInline let dependencies: DependencyValues
  /// When `dependencies` are bound around the reducer and effects.
  @usableFromInline let dependencyBinding: DependencyBinding
  /// The recorder of observer runs on the draining thread; only that thread uses it.
  @usableFromInline let drainRecorder: AccessRecorder
  /// Code run around each action (see ``StoreInterceptor``); empty for child stores.
  @usableFromInline let interceptors: [StoreInterceptor<State, Action>]

  /// Creates a store.
  ///
  /// - Parameters:
  ///   - initialState: The state to start from.
  ///   - reducer: The reducer that handles every action.
  ///   - interceptors: Code to run around every action, in this order (see
  ///     ``StoreInterceptor``). None by default.
  ///   - onIssue: Receives run-time problems such as effects that threw (see ``StoreIssue``).
  ///     By default, one line on standard error. Each store has its own.
  @inlinable
  public convenience init<R: Reducer>(
    initialState: State,
    reducer: R,
    interceptors: [StoreInterceptor<State, Action>] = [],
    onIssue: @escaping @Sendable (StoreIssue) -> Void = StoreIssue.printToStandardError
  ) where R.State == State, R.Action == Action {
    self.init(
      root: initialState, reducer: reducer, interceptors: interceptors, onIssue: onIssue,
      dependencyBinding: nil)
    // Effects ask for a task so that `await send(action)` can wait while the action is queued.
    effects.connect { [weak self] action in self?.process(action) ?? StoreTask(nil) }
  }

  /// Creates a store whose reducer is built by a ``ReducerBuilder`` block.
  ///
  /// ```swift
  /// let store = Store(initialState: Feature.State()) { Feature() }
  /// ```
  ///
  /// - Parameters:
  ///   - initialState: The state to start from.
  ///   - interceptors: Code to run around every action (see ``StoreInterceptor``).
  ///   - onIssue: Receives run-time problems (see ``StoreIssue``).
  ///   - reducer: Builds the reducer.
  @inlinable
  public convenience init<R: Reducer>(
    initialState: State,
    interceptors: [StoreInterceptor<State, Action>] = [],
    onIssue: @escaping @Sendable (StoreIssue) -> Void = StoreIssue.printToStandardError,
    @ReducerBuilder<State, Action> reducer: () -> R
  ) where R.State == State, R.Action == Action {
    self.init(
      initialState: initialState, reducer: reducer(), interceptors: interceptors,
      onIssue: onIssue)
  }

  /// Creates a store whose effects hand their actions to `effectActions` instead of reducing them,
  /// and which runs with the dependencies in force where `send` is called, for `TestStore`.
  package convenience init<R: Reducer>(
    initialState: State,
    reducer: R,
    onIssue: @escaping @Sendable (StoreIssue) -> Void,
    effectActions: @escaping @Sendable (Action) -> Void
  ) where R.State == State, R.Action == Action {
    self.init(
      root: initialState, reducer: reducer, interceptors: [], onIssue: onIssue,
      dependencyBinding: .never)
    effects.connect { action in
      effectActions(action)
      return .none
    }
  }

  /// Creates a root store, which owns its state, with the dependencies in force now. Its effects
  /// are connected by the caller.
  ///
  /// - Parameter dependencyBinding: When to bind the dependencies; by default, always if they
  ///   differ from the defaults.
  @usableFromInline
  init<R: Reducer>(
    root initialState: State,
    reducer: R,
    interceptors: [StoreInterceptor<State, Action>],
    onIssue: @escaping @Sendable (StoreIssue) -> Void,
    dependencyBinding: DependencyBinding?
  ) where R.State == State, R.Action == Action {
    self.scope = nil
    self.core = Locked(Core(), isStoreLock: true)
    self.statePointer = .allocate(capacity: 1)
    statePointer.initialize(to: initialState)
    self.reducer = reducer
    self.dependencies = DependencyValues.current
    self.dependencyBinding =
      dependencyBinding ?? (dependencies.isDefault ? .whenOverridden : .always)
    self.effects = EffectRuntime(reportIssue: onIssue)
    self.drainRecorder = AccessRecorder(store: ObjectIdentifier(Self.self), isDrainer: true)
    self.interceptors = interceptors
    drainRecorder.store = ObjectIdentifier(self)
  }

  /// Creates a child store: its own state and reducer stay unused, everything goes through
  /// `scope`.
  init(scope: some StoreScope<State, Action>, initialState: State) {
    self.scope = scope
    self.core = Locked(Core(), isStoreLock: true)
    self.statePointer = .allocate(capacity: 1)
    statePointer.initialize(to: initialState)
    self.reducer = EmptyReducer()
    self.dependencies = DependencyValues.current
    self.dependencyBinding = .never
    self.effects = EffectRuntime(reportIssue: StoreIssue.printToStandardError)
    self.drainRecorder = AccessRecorder(store: ObjectIdentifier(Self.self), isDrainer: true)
    self.interceptors = []
  }

  deinit {
    effects.shutDown()
    let bodies = core.withLock { $0.graph.removeAll() }
    // Released after the lock: a closure's captures may run code that calls back in.
    _ = consume bodies
    statePointer.deinitialize(count: 1)
    statePointer.deallocate()
  }

  // MARK: Sending

  /// Sends an action to the store.
  ///
  /// If the store is idle, the action is reduced on the calling thread before this returns:
  /// its state is committed, its effects start, and the observers whose values changed run.
  /// If the store is busy (this call comes from an observer or an effect of the same store, or
  /// another thread is sending), the action is queued and reduced in FIFO order by the thread
  /// doing the work.
  ///
  /// - Parameter action: The action.
  /// - Returns: A task for the effects this action starts. It can be ignored.
  @inlinable
  @discardableResult
  public func send(_ action: Action) -> StoreTask {
    if let scope { return scope.send(action) }
    return process(action)
  }

  /// Reduces `action` now if the store is idle, or queues it.
  @inlinable
  @discardableResult
  func process(_ action: Action) -> StoreTask {
    core.lockSpinning()
    guard !core.value.isDraining else {
      let pending = PendingStoreTask()
      core.value.queue.append(Queued(action: action, pending: pending))
      core.unlock()
      return StoreTask(pending: pending)
    }
    if !interceptors.isEmpty {
      core.value.isDraining = true
      core.unlock()
      let task = reduceIntercepted(action)
      drain()
      return StoreTask(task)
    }
    let reduced = reduce(action, in: &core.value)
    if reduced.isTrivial {
      // Nothing to do outside the lock, and nothing was queued (the store was idle).
      core.unlock()
      return StoreTask(nil)
    }
    core.value.isDraining = true
    core.unlock()
    let task = complete(reduced)
    drain()
    return StoreTask(task)
  }

  /// Reduces one action and commits its state. Called under the lock by the draining thread.
  @inlinable
  func reduce(_ action: Action, in core: inout Core) -> Reduced {
    let effect = withStoreDependencies {
      reducer.reduce(into: &statePointer.pointee, action: action)
    }
    core.generation &+= 1
    guard !core.graph.isEmpty else {
      return Reduced(effect: effect, changes: ObservationGraph.Changes())
    }
    return Reduced(effect: effect, changes: core.graph.changes(in: statePointer))
  }

  /// Starts the effects of a reduced action and notifies observers, outside the lock.
  @inlinable
  func complete(_ reduced: Reduced) -> Task<Void, Never>? {
    var task: Task<Void, Never>?
    if case .none = reduced.effect.operation {
    } else {
      // Tasks inherit the task-locals in force where they are created.
      task = withStoreDependencies { effects.start(reduced.effect) }
    }
    if !reduced.changes.observers.isEmpty {
      runObservers(reduced.changes.observers)
    }
    for probe in reduced.changes.registrarNotifications {
      probe.post()
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

  /// Processes queued work until the queue is empty, then marks the store idle.
  @inlinable
  func drain() {
    while true {
      core.lock()
      if !core.value.staleObservers.isEmpty {
        let observers = core.value.staleObservers
        core.value.staleObservers = []
        core.unlock()
        runObservers(observers)
        continue
      }
      guard let next = core.value.queue.popFirst() else {
        core.value.isDraining = false
        core.unlock()
        return
      }
      if !interceptors.isEmpty {
        core.unlock()
        let task = reduceIntercepted(next.action)
        next.pending.resolve(task)
        continue
      }
      let reduced = reduce(next.action, in: &core.value)
      core.unlock()
      let task = complete(reduced)
      next.pending.resolve(task)
    }
  }

  /// Reduces one action with the interceptors around it. Called by the draining thread, without
  /// the lock: interceptors may read the store and send to it (sends queue, as the store is
  /// draining).
  @usableFromInline
  func reduceIntercepted(_ action: Action) -> Task<Void, Never>? {
    // Only the draining thread writes the state, so reading it here without the lock is safe.
    let oldState = statePointer.pointee
    for interceptor in interceptors { interceptor.willReduce?(action, oldState) }
    core.lock()
    let reduced = reduce(action, in: &core.value)
    let newState = statePointer.pointee
    core.unlock()
    for interceptor in interceptors { interceptor.didReduce?(action, oldState, newState) }
    return complete(reduced)
  }

  // MARK: Reading

  /// A snapshot of the whole state.
  ///
  /// Inside an observer, reading `state` tracks the whole state: the observer re-runs after
  /// every action that changes it (or after every action, if `State` is not `Equatable`).
  /// Prefer reading the fields you need.
  @inlinable
  public var state: State {
    read(\State.self)
  }

  /// Reads one field of the state.
  ///
  /// Inside an observer, the read is tracked as `keyPath`.
  @inlinable
  public subscript<Value>(dynamicMember keyPath: KeyPath<State, Value>) -> Value {
    read(keyPath)
  }

  /// Reads a value anywhere in the state, tracked as exactly `keyPath`.
  ///
  /// `store[\.board.cells[4]]` makes an observer re-run only when that cell changes, where
  /// `store.board.cells[4]` would track the whole `board`.
  @inlinable
  public subscript<Value>(keyPath: KeyPath<State, Value>) -> Value {
    read(keyPath)
  }

  @inlinable
  func read<Value>(_ keyPath: KeyPath<State, Value>) -> Value {
    if let scope { return scope.read(keyPath) }
    let tracked = AccessRecorder.current?._withUnsafeGuaranteedRef { recorder -> (Int?, Bool)? in
      guard recorder.store == ObjectIdentifier(self) else { return nil }
      return (recorder.append(keyPath, in: State.self), recorder.isDrainer)
    }
    guard let (offset, isDrainer) = tracked else {
      return readTrackedByRegistrar(keyPath)
    }
    if isDrainer {
      // The draining thread is running an observer: no action can commit meanwhile.
      return project(keyPath, offset: offset)
    }
    core.lock()
    defer { core.unlock() }
    return project(keyPath, offset: offset)
  }

  /// Reads the value at `keyPath`: a plain load for stored properties (`offset` non-nil).
  @inlinable
  func project<Value>(_ keyPath: KeyPath<State, Value>, offset: Int?) -> Value {
    if let offset {
      return UnsafeRawPointer(statePointer).load(fromByteOffset: offset, as: Value.self)
    }
    return statePointer.pointee[keyPath: keyPath]
  }

  /// A read outside our observers: Apple's Observation may be tracking it.
  @usableFromInline
  func readTrackedByRegistrar<Value>(_ keyPath: KeyPath<State, Value>) -> Value {
    core.lock()
    let storeKeyPath = core.value.graph.armRegistrarProbe(keyPath, state: statePointer) { state in
      makeRegistrarProbe(keyPath, state: state)
    }
    let value = project(keyPath, offset: MemoryLayout<State>.offset(of: keyPath))
    core.unlock()
    registrar.access(self, keyPath: unsafeDowncast(storeKeyPath, to: KeyPath<Store, Value>.self))
    return value
  }
}
