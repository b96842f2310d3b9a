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
    @usableFromInline var requests: [ObservationRequest] = []
    /// The store's subscriptions to the shared values its reducer receives (see
    /// `Store+Shared`), kept for its life: empty, and costing nothing, for most stores.
    @usableFromInline var sharedSubscriptions: [ObservationToken] = []

    @inlinable
    init() {}
  }

  /// Work the owner takes from `Pending`.
  @usableFromInline
  enum Work {
    case action(Queued)
    case requests([ObservationRequest])
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
  // The reducer, called through a closure made where its type is known (a `Store.init`
  // inlined into the caller): through `any Reducer`, a generic reducer type (any composition)
  // would run unspecialized, paying generic metadata look-ups on every action.
  @usableFromInline let reducer: @Sendable (inout State, Action) -> Effect<Action>
  @usableFromInline let effects: EffectRuntime<Action>
  @usableFromInline let registrar = ObservationRegistrar()
  /// For a child store made by `scope`: the link through which it reads, sends and observes.
  /// `nil` for a root store, which owns its state.
  @usableFromInline let scope: (any StoreScope<State, Action>)?
  /// For the store of one element of a root store's `IdentifiedArray`: how its observers' reads
  /// reach the element without going through `scope` (see `ElementAccess`). `nil` otherwise.
  @usableFromInline let elementAccess: ElementAccess<State>?
  /// `elementAccess`, unretained, for the reads of observers: a read through it takes no
  /// reference (`elementAccess` holds it for the store's life).
  @usableFromInline let lentElementAccess: Unmanaged<ElementAccess<State>>?

  /// The dependencies in force when the store was created: its reducer and effects use them.
  @usableFromInline let dependencies: DependencyValues
  /// When `dependencies` are bound around the reducer and effects.
  @usableFromInline let dependencyBinding: DependencyBinding
  /// The recorder of observer runs by the owner; only the owner uses it.
  @usableFromInline let drainRecorder: AccessRecorder
  /// Code run around each action (see ``StoreInterceptor``); empty for child stores.
  @usableFromInline let interceptors: [StoreInterceptor<State, Action>]
  /// `!interceptors.isEmpty`, kept: in generic code that is not specialized (a child store
  /// sending to its root), asking the array costs two metadata look-ups per action.
  @usableFromInline let isIntercepted: Bool
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
  ///   - effectExecutor: The executor the store's effects prefer (SE-0417): their code, and
  ///     the structured work inside them, runs there. By default `nil`: the global concurrent
  ///     executor. A server can pin a store's effects to a thread of its own; a test can give
  ///     a ``TestExecutor`` and drain it (see "Pinning effects to an executor" in
  ///     <doc:EffectsAndCancellation>).
  @inlinable
  public convenience init<R: Reducer>(
    initialState: State,
    reducer: R,
    interceptors: [StoreInterceptor<State, Action>] = [],
    onIssue: @escaping @Sendable (StoreIssue) -> Void = StoreIssue.printToStandardError,
    effectExecutor: (any TaskExecutor)? = nil
  ) where R.State == State, R.Action == Action {
    self.init(
      root: initialState, reduce: { reducer.reduce(into: &$0, action: $1) },
      interceptors: interceptors, onIssue: onIssue, dependencyBinding: nil,
      effectExecutor: effectExecutor)
    // Effects ask for a task so that `await send(action)` can wait while the action is queued.
    effects.connect { [weak self] in self?.process($0, from: $1) ?? StoreTask(nil) }
    subscribeToSharedValues(of: reducer)
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
  ///   - effectExecutor: The executor the store's effects prefer; by default the global one
  ///     (see ``init(initialState:reducer:interceptors:onIssue:effectExecutor:)``).
  ///   - reducer: Builds the reducer.
  @inlinable
  public convenience init<R: Reducer>(
    initialState: State,
    interceptors: [StoreInterceptor<State, Action>] = [],
    onIssue: @escaping @Sendable (StoreIssue) -> Void = StoreIssue.printToStandardError,
    effectExecutor: (any TaskExecutor)? = nil,
    @ReducerBuilder<State, Action> reducer: () -> R
  ) where R.State == State, R.Action == Action {
    self.init(
      initialState: initialState, reducer: reducer(), interceptors: interceptors,
      onIssue: onIssue, effectExecutor: effectExecutor)
  }

  /// Creates a store for `TestStore`: it runs with the dependencies in force where each action
  /// is reduced (the test store binds its own around its reducer), and `interceptor` is told
  /// about every action, including when it is complete.
  package convenience init<R: Reducer>(
    testing initialState: State,
    reducer: R,
    interceptor: StoreInterceptor<State, Action>,
    onIssue: @escaping @Sendable (StoreIssue) -> Void,
    effectExecutor: TestExecutor
  ) where R.State == State, R.Action == Action {
    self.init(
      root: initialState, reduce: { reducer.reduce(into: &$0, action: $1) },
      interceptors: [interceptor], onIssue: onIssue, dependencyBinding: .never,
      effectExecutor: effectExecutor)
    effects.connect { [weak self] in self?.process($0, from: $1) ?? StoreTask(nil) }
  }

  /// Creates a root store, which owns its state, with the dependencies in force now. Its effects
  /// are connected by the caller.
  ///
  /// - Parameters:
  ///   - dependencyBinding: When to bind the dependencies; by default, always if they differ
  ///     from the defaults.
  ///   - effectExecutor: The executor effects prefer, if any. A ``TestExecutor`` is attached
  ///     to the test clocks among the dependencies, so that they drain it.
  @usableFromInline
  init(
    root initialState: State,
    reduce: @escaping @Sendable (inout State, Action) -> Effect<Action>,
    interceptors: [StoreInterceptor<State, Action>],
    onIssue: @escaping @Sendable (StoreIssue) -> Void,
    dependencyBinding: DependencyBinding?,
    effectExecutor: (any TaskExecutor)?
  ) {
    self.scope = nil
    self.elementAccess = nil
    self.lentElementAccess = nil
    self.statePointer = .allocate(capacity: 1)
    statePointer.initialize(to: initialState)
    self.graph = ObservationGraph(stateSize: MemoryLayout<State>.size)
    self.reducer = reduce
    self.dependencies = DependencyValues.current
    self.dependencyBinding =
      dependencyBinding ?? (dependencies.isDefault ? .whenOverridden : .always)
    self.effects = EffectRuntime(
      executor: effectExecutor, rootState: State.self, reportIssue: onIssue)
    if let testExecutor = effectExecutor as? TestExecutor {
      for case let clock as TestClock in dependencies.overriddenValues {
        clock.attach(testExecutor)
      }
    }
    self.drainRecorder = AccessRecorder(store: ObjectIdentifier(Self.self), isOwning: true)
    self.interceptors = interceptors
    self.isIntercepted = !interceptors.isEmpty
    drainRecorder.store = ObjectIdentifier(self)
  }

  /// Creates a child store: its own state and reducer stay unused, everything goes through
  /// `scope` (or, for reads by its observers, `elementAccess`).
  init(
    scope: some StoreScope<State, Action>, initialState: State,
    elementAccess: ElementAccess<State>? = nil
  ) {
    self.scope = scope
    self.elementAccess = elementAccess
    self.lentElementAccess = elementAccess.map { Unmanaged.passUnretained($0) }
    self.statePointer = .allocate(capacity: 1)
    statePointer.initialize(to: initialState)
    self.graph = ObservationGraph(stateSize: 0)
    self.reducer = { _, _ in .none }
    self.dependencies = DependencyValues.current
    self.dependencyBinding = .never
    self.effects = EffectRuntime(
      rootState: State.self, reportIssue: StoreIssue.printToStandardError)
    self.drainRecorder = AccessRecorder(store: ObjectIdentifier(Self.self), isOwning: true)
    self.interceptors = []
    self.isIntercepted = false
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
}
