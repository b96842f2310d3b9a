/// What a child store (made by `Store.scope`) does instead of owning state: it reads from,
/// sends to and observes through its root store.
@usableFromInline
protocol StoreScope<State, Action>: Sendable {
  associatedtype State
  associatedtype Action

  func read<Value>(_ keyPath: KeyPath<State, Value>) -> Value
  func send(_ action: Action) -> StoreTask
  func observe(_ body: @escaping @Sendable () -> Void) -> ObservationToken
  func scope<ChildState: Sendable, ChildAction: Sendable>(
    state: ScopePath<State, ChildState>, action: @escaping @Sendable (ChildAction) -> Action
  ) -> Store<ChildState, ChildAction>?
}

/// Where a child state lives in its parent state: always there, or there while non-`nil`.
@usableFromInline
enum ScopePath<Parent, Child>: @unchecked Sendable {
  // Safe: key paths are immutable; their captured subscript arguments are fixed at creation.
  case required(KeyPath<Parent, Child>)
  case optional(KeyPath<Parent, Child?>)

  /// The child state in `store` now, or `nil` if it is absent.
  func current<Action>(in store: Store<Parent, Action>) -> Child? {
    switch self {
    case .required(let keyPath): store.peek(keyPath)
    case .optional(let keyPath): store.peek(keyPath)
    }
  }

  /// This path followed by `next`.
  func appending<Next>(_ next: ScopePath<Child, Next>) -> ScopePath<Parent, Next> {
    switch (self, next) {
    case (.required(let first), .required(let second)):
      .required(first.appending(path: second))
    case (.required(let first), .optional(let second)):
      .optional(first.appending(path: second))
    case (.optional(let first), .required(let second)):
      .optional(first.appending(path: \Child?.[unwrapping: second]))
    case (.optional(let first), .optional(let second)):
      .optional(first.appending(path: \Child?.[flattening: second]))
    }
  }
}

extension Optional {
  /// The value at `keyPath` of the wrapped value, if any: lets key paths go through optionals.
  subscript<Value>(unwrapping keyPath: KeyPath<Wrapped, Value>) -> Value? {
    map { $0[keyPath: keyPath] }
  }

  /// The optional value at `keyPath` of the wrapped value, if any.
  subscript<Value>(flattening keyPath: KeyPath<Wrapped, Value?>) -> Value? {
    flatMap { $0[keyPath: keyPath] }
  }
}

/// A child store's link to its root store.
final class ScopedStore<
  RootState: Sendable, RootAction: Sendable, State: Sendable, Action: Sendable
>:
  StoreScope, @unchecked Sendable
{
  // Safe: `root` and the closures are immutable and Sendable; `toState` is an immutable key
  // path; the mutable caches are behind locks.

  let root: Store<RootState, RootAction>
  let toState: ScopePath<RootState, State>
  let embed: @Sendable (Action) -> RootAction
  let fileID: String
  let line: UInt

  /// The child state when last seen present, answering reads once it is gone.
  private let lastKnown: Locked<State>

  /// Root key paths for the child key paths read so far.
  private let paths = Locked<[AnyKeyPath: AnyKeyPath]>([:])

  /// For the store of one element of an `IdentifiedArray`: that element, so the root's graph
  /// refreshes this store's probes only when the element was written (see `ElementGroup`).
  let element: ElementScope?

  /// An element of an `IdentifiedArray` in the root state.
  struct ElementScope: Sendable {
    let array: UncheckedSendable<AnyKeyPath>
    let id: UncheckedSendable<AnyHashable>
    let readWrites: ElementWritesReader
  }

  init(
    root: Store<RootState, RootAction>, toState: ScopePath<RootState, State>, initialState: State,
    embed: @escaping @Sendable (Action) -> RootAction, fileID: String, line: UInt,
    element: ElementScope? = nil
  ) {
    self.root = root
    self.toState = toState
    self.embed = embed
    self.lastKnown = Locked(initialState)
    self.fileID = fileID
    self.line = line
    self.element = element
  }

  deinit {
    guard element != nil else { return }
    let registered = paths.withLock { Array($0.values) }
    root.core.withLock { core in
      for path in registered { core.graph.unregisterElementPath(path) }
    }
  }

  func read<Value>(_ keyPath: KeyPath<State, Value>) -> Value {
    switch toState {
    case .required(let toState):
      return root.read(rootPath(of: keyPath) { toState.appending(path: keyPath) })
    case .optional(let toState):
      let value = root.read(
        rootPath(of: keyPath) { toState.appending(path: \State?.[unwrapping: keyPath]) })
      if let value { return value }
      return lastKnown.withLock { $0[keyPath: keyPath] }
    }
  }

  private func rootPath<Path: AnyKeyPath>(of keyPath: AnyKeyPath, make: () -> Path) -> Path {
    if let path = paths.withLock({ $0[keyPath] }) {
      // Stored under this child key path by the line below, so always a `Path`.
      return unsafeDowncast(path, to: Path.self)
    }
    let path = make()
    let isNew = paths.withLock { paths in
      guard paths[keyPath] == nil else { return false }
      paths[keyPath] = path
      return true
    }
    if isNew, let element {
      root.core.withLock { core in
        core.graph.registerElementPath(
          path, array: element.array.value, id: element.id.value, readWrites: element.readWrites)
      }
    }
    return path
  }

  func send(_ action: Action) -> StoreTask {
    guard let present = toState.current(in: root) else {
      root.effects.reportIssue(
        StoreIssue(
          kind: .actionWithoutState(
            action: "\(action)",
            state: "the state of a child store of \(String(reflecting: State.self))"),
          fileID: fileID, line: line))
      return StoreTask(nil)
    }
    lastKnown.withLock { $0 = present }
    let task = root.send(embed(action))
    if let after = toState.current(in: root) {
      lastKnown.withLock { $0 = after }
    }
    return task
  }

  func observe(_ body: @escaping @Sendable () -> Void) -> ObservationToken {
    root.observe(body)
  }

  func scope<ChildState: Sendable, ChildAction: Sendable>(
    state: ScopePath<State, ChildState>, action: @escaping @Sendable (ChildAction) -> Action
  ) -> Store<ChildState, ChildAction>? {
    let embed = self.embed
    let path = toState.appending(state)
    let childEmbed: @Sendable (ChildAction) -> RootAction = { embed(action($0)) }
    if let store = root.makeScope(state: path, action: childEmbed, fileID: fileID, line: line) {
      return store
    }
    // This store's own state is gone. A required child still gets a store, which answers from
    // the last state it had, as this one does; an optional child has none.
    guard case .required(let keyPath) = state else { return nil }
    let initialState = lastKnown.withLock { $0[keyPath: keyPath] }
    return Store(
      scope: ScopedStore<RootState, RootAction, ChildState, ChildAction>(
        root: root, toState: path, initialState: initialState, embed: childEmbed, fileID: fileID,
        line: line),
      initialState: initialState)
  }
}
