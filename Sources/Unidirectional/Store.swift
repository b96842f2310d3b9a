import Observation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The runtime of a feature: it holds the state, reduces actions one at a time, starts their
/// effects, and tells observers what changed.
///
/// ```swift
/// let store = Store(initialState: Counter.State()) { Counter() }
/// let token = store.observe { print("count:", store.count) }   // keep the token
/// store.send(.increment)   // prints "count: 1"
/// ```
///
/// ## Threading
///
/// A store is `Sendable` and may be used from any thread, task or actor. Actions are reduced
/// one at a time, in the order they were sent (FIFO). An action sent while another is being
/// processed, whether by an observer, an effect or another thread, is queued and never reduced
/// re-entrantly. Whoever finds the store idle does the work: ``send(_:)`` reduces the action,
/// starts its effects and runs the observers that it made stale on the calling thread, then
/// reduces whatever was queued meanwhile, before returning.
///
/// No lock is held while the store runs your code (reducers, dependencies, observers,
/// interceptors, deinits): reads from other threads wait only while an action is being reduced,
/// and see the state before or after it, never half of it. A reducer must not read its own
/// store; it sees its state through `inout state`.
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
  /// Work other threads hand to the thread that owns the store (see `StoreGate`).
  @usableFromInline
  struct Pending {
    @usableFromInline var actions = ActionQueue<Queued>()
    @usableFromInline var requests: [Request] = []

    @inlinable
    init() {}
  }

  /// A change of the observation graph asked for by a thread that does not own the store.
  @usableFromInline
  enum Request {
    /// A new observer, whose first run read the probes on the state of `generation`.
    case register(ObserverRecord, reads: [Probe], generation: UInt32)
    /// A cancelled observer to drop.
    case remove(ObserverRecord)
    /// A read made while Apple's Observation tracked, on `thread`, of the state of `generation`.
    case track(TrackedReads.Entry, thread: UInt, generation: UInt32)
  }

  /// Work the owner takes from `Pending`.
  @usableFromInline
  enum Work {
    case action(Queued)
    case requests([Request])
  }

  @usableFromInline
  struct Queued {
    @usableFromInline let action: Action
    @usableFromInline let pending: PendingStoreTask
    /// The effect task that sent the action, if an effect did.
    @usableFromInline let origin: EffectOrigin?

    @inlinable
    init(action: Action, pending: PendingStoreTask, origin: EffectOrigin?) {
      self.action = action
      self.pending = pending
      self.origin = origin
    }
  }

  /// Who works on the store.
  @usableFromInline let gate = StoreGate()
  /// The work other threads hand to the owner.
  ///
  /// `nonisolated(unsafe)` is safe: it is read and written only with the gate's mutex held.
  @usableFromInline nonisolated(unsafe) var pending = Pending()
  /// The state, at a stable address.
  ///
  /// `nonisolated(unsafe)` is safe because of how it is used: only the thread that owns the store
  /// writes it, between `beginReducing` and `endReducing`; other threads read it as readers of the
  /// gate, which keeps them out while it is written (see `StoreGate`).
  @usableFromInline nonisolated(unsafe) let statePointer: UnsafeMutablePointer<State>
  /// Which observers read what; used only by the thread that owns the store.
  @usableFromInline let graph: ObservationGraph
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
  /// The recorder of observer runs by the owner; only the owner uses it.
  @usableFromInline let drainRecorder: AccessRecorder
  /// Code run around each action (see ``StoreInterceptor``); empty for child stores.
  @usableFromInline let interceptors: [StoreInterceptor<State, Action>]
  /// The id of the next observer: ids give the order observers run in.
  let nextObserverID = Atomic<UInt64>(0)
  /// The key paths reported to the registrar for tracked reads, made once per read.
  let trackedKeyPaths = Locked<[TrackedReadKey: AnyKeyPath]>([:])

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
    effects.connect { [weak self] in self?.process($0, from: $1) ?? StoreTask(nil) }
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

  /// Creates a store for `TestStore`: it runs with the dependencies in force where each action
  /// is reduced (the test store binds its own around its reducer), and `interceptor` is told
  /// about every action, including when it is complete.
  package convenience init<R: Reducer>(
    testing initialState: State,
    reducer: R,
    interceptor: StoreInterceptor<State, Action>,
    onIssue: @escaping @Sendable (StoreIssue) -> Void
  ) where R.State == State, R.Action == Action {
    self.init(
      root: initialState, reducer: reducer, interceptors: [interceptor], onIssue: onIssue,
      dependencyBinding: .never)
    effects.connect { [weak self] in self?.process($0, from: $1) ?? StoreTask(nil) }
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
    self.statePointer = .allocate(capacity: 1)
    statePointer.initialize(to: initialState)
    self.graph = ObservationGraph(stateSize: MemoryLayout<State>.size)
    self.reducer = reducer
    self.dependencies = DependencyValues.current
    self.dependencyBinding =
      dependencyBinding ?? (dependencies.isDefault ? .whenOverridden : .always)
    self.effects = EffectRuntime(reportIssue: onIssue)
    self.drainRecorder = AccessRecorder(store: ObjectIdentifier(Self.self), isOwning: true)
    self.interceptors = interceptors
    drainRecorder.store = ObjectIdentifier(self)
  }

  /// Creates a child store: its own state and reducer stay unused, everything goes through
  /// `scope`.
  init(scope: some StoreScope<State, Action>, initialState: State) {
    self.scope = scope
    self.statePointer = .allocate(capacity: 1)
    statePointer.initialize(to: initialState)
    self.graph = ObservationGraph(stateSize: 0)
    self.reducer = EmptyReducer()
    self.dependencies = DependencyValues.current
    self.dependencyBinding = .never
    self.effects = EffectRuntime(reportIssue: StoreIssue.printToStandardError)
    self.drainRecorder = AccessRecorder(store: ObjectIdentifier(Self.self), isOwning: true)
    self.interceptors = []
  }

  deinit {
    effects.shutDown()
    // Nothing else can reach the store now, so the graph needs no owner. The closures are
    // released here, after the graph is empty: their captures may run code that calls back in.
    let bodies = graph.removeAll()
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
    if interceptors.isEmpty, gate.tryAcquireForReducing() {
      return StoreTask(reduceOwned(action))
    }
    return processSlowPath(action)
  }

  /// Reduces `action` on a store the caller has just taken for reducing, does everything the
  /// action causes, then the work queued meanwhile, and gives the store up.
  @inlinable
  func reduceOwned(_ action: Action) -> Task<Void, Never>? {
    let effect = reduce(action)
    if case .none = effect.operation, graph.isEmpty, gate.tryEndReducingAndRelease() {
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
  @inlinable
  func process(_ action: Action, from origin: EffectOrigin?) -> StoreTask {
    if interceptors.isEmpty, gate.tryAcquireForReducing() {
      return StoreTask(reduceOwned(action))
    }
    return processSlowPath(action, from: origin)
  }

  /// `process` when the store could not be taken at once: waits a moment for another thread's
  /// short reduce, then queues the action (and drains the store if it became idle meanwhile).
  @usableFromInline
  func processSlowPath(_ action: Action, from origin: EffectOrigin? = nil) -> StoreTask {
    if interceptors.isEmpty, !gate.isOwnedByCurrentThread {
      // Another thread holds the store for tens of nanoseconds per action: retrying, yielding
      // the processor and then sleeping while it reduces, is far cheaper than queueing behind it
      // (once actions are queued, the owner drains them, and senders that find it draining
      // would queue too: benchmark R1). A store that stays busy otherwise (running observers or
      // effects) gets the action queued after a few tries.
      retrying: for attempt in 0..<100 {
        if gate.tryAcquireForReducing() { return StoreTask(reduceOwned(action)) }
        switch gate.busyness {
        case .idle: continue
        case .reducing where attempt < 20: sched_yield()
        case .reducing: gate.waitWhileReducing()
        case .draining where attempt < 20: sched_yield()
        case .draining: break retrying
        }
      }
    } else if !gate.isOwnedByCurrentThread, gate.tryAcquire() {
      let task = reduceIntercepted(action)
      drain()
      return StoreTask(task)
    }
    let pending = PendingStoreTask()
    let queued = Queued(action: action, pending: pending, origin: origin)
    if gate.submit({ self.pending.actions.append(queued) }) {
      // The store was idle after all: the caller owns it, and its action is first in line.
      drain()
      if case .some(let task) = pending.resolvedTask { return StoreTask(task) }
    }
    return StoreTask(pending: pending)
  }

  /// Reduces one action on the owner's thread, with the state locked against readers.
  @inlinable
  func reduce(_ action: Action) -> Effect<Action> {
    withStoreDependencies {
      reducer.reduce(into: &statePointer.pointee, action: action)
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
    if !changes.observers.isEmpty {
      runObservers(changes.observers)
    }
    for post in changes.posts {
      post()
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
      case .action(let next) where next.origin.map(effects.wasCancelled) == true:
        // Its effect was cancelled while it waited: effects that were cancelled cannot change
        // state (a dismissed child's effect must not reach the child presented after it).
        // Asked before the sender resumes: once it ends, the runtime forgets it.
        let childWasDismissed = next.origin.map(effects.childWasDismissed) == true
        next.pending.resolve(nil)
        if childWasDismissed, let origin = next.origin {
          effects.reportIssue(
            StoreIssue(
              kind: .actionFromDismissedChild(action: ValueDump.line(next.action)),
              fileID: origin.site?.fileID ?? "an unknown file", line: origin.site?.line ?? 0))
        }
      case .action(let next):
        let task: Task<Void, Never>?
        if interceptors.isEmpty {
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
