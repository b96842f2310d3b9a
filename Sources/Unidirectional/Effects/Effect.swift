/// Work a reducer asks the store to do once the new state is committed: feed actions back,
/// run asynchronous operations, or cancel earlier work.
///
/// Effects are values: building one does nothing. The ``Store`` starts an action's effect right
/// after it commits that action's state. Asynchronous parts run as Swift concurrency `Task`s,
/// and actions they send are reduced like any other, in FIFO order.
///
/// ```swift
/// case .factButtonTapped:
///   return .run { [count = state.count] send in
///     let fact = try await numberFact(count)
///     await send(.factResponse(fact))
///   }
/// ```
public struct Effect<Action> {
  // Indirect: every case but `.none` is boxed, so an effect is one pointer-sized value that
  // specialized code copies with a retain (and `.none` with nothing) instead of calling
  // generic value witnesses of a multi-payload enum on every action.
  @usableFromInline
  indirect enum Operation {
    case none
    case send(Action)
    case run(Run)
    case merge([Effect])
    case concatenate([Effect])
    case cancellable(id: EffectID, cancelInFlight: Bool, Effect)
    case cancel(id: EffectID)
    /// Reports a problem to the store's issue handler (reducers cannot reach the store).
    case issue(StoreIssue)
    /// Cancels the running effects whose cancellation id matches (`forEach` uses it to cancel
    /// the effects of removed elements; it visits running ids only).
    case cancelMatching(@Sendable (any Hashable & Sendable) -> Bool)
    /// Runs `effect` at most once per `interval` per id (see `throttle(id:for:clock:latest:)`).
    case throttle(
      id: EffectID, interval: Duration, clock: any Clock<Duration>, latest: Bool, Effect)
  }

  @usableFromInline
  struct Run: Sendable {
    let priority: TaskPriority?
    let operation: @Sendable (Send<Action>) async throws -> Void
    let handler: (@Sendable (any Error, Send<Action>) async -> Void)?
    /// The dependencies in force where the effect was created, if some may be overridden there;
    /// the effect runs with them.
    let dependencies: DependencyValues?
    let fileID: String
    let line: UInt
  }

  @usableFromInline
  let operation: Operation

  @usableFromInline
  init(_ operation: Operation) {
    self.operation = operation
  }
}

extension Effect.Operation: Sendable where Action: Sendable {}
extension Effect: Sendable where Action: Sendable {}

extension Effect {
  /// An effect that does nothing.
  ///
  /// Returning `.none` costs no allocation and starts no task.
  @inlinable
  public static var none: Self {
    Self(.none)
  }

  /// An effect that feeds `action` back into the store at once.
  ///
  /// The action is queued as soon as the effect starts, behind actions already waiting, and is
  /// reduced before the `send` that produced this effect returns (unless another thread is
  /// draining the store, in which case that thread reduces it).
  ///
  /// - Parameter action: The action to send.
  @inlinable
  public static func send(_ action: Action) -> Self {
    Self(.send(action))
  }

  /// An effect that runs an asynchronous operation in a new `Task`.
  ///
  /// - Parameters:
  ///   - priority: The priority of the task, or `nil` for the default.
  ///   - operation: The work to do. Call `send` to feed actions back; sends made after the effect
  ///     is cancelled are dropped. It runs with the dependencies in force where the effect is
  ///     created, so a `withDependencies` scope around `.run` in a reducer reaches it.
  ///   - handler: Called with any error the operation throws that is not a cancellation. Without
  ///     a handler, such an error is reported to the store's issue handler (see
  ///     ``StoreIssue``), never swallowed.
  ///   - fileID: The file that created the effect, for reports. Leave the default.
  ///   - line: The line that created the effect, for reports. Leave the default.
  public static func run(
    priority: TaskPriority? = nil,
    operation: @escaping @Sendable (_ send: Send<Action>) async throws -> Void,
    catch handler: (@Sendable (_ error: any Error, _ send: Send<Action>) async -> Void)? = nil,
    fileID: StaticString = #fileID,
    line: UInt = #line
  ) -> Self {
    Self(
      .run(
        Run(
          priority: priority,
          operation: operation,
          handler: handler,
          dependencies: DependencyValues.mayBeOverridden ? DependencyValues.current : nil,
          fileID: "\(fileID)",
          line: line
        )
      )
    )
  }

  /// An effect that runs the given effects at the same time.
  ///
  /// Synchronous parts (``send(_:)``, ``cancel(id:)``) happen in the order given.
  ///
  /// - Parameter effects: The effects to run.
  public static func merge(_ effects: Self...) -> Self {
    merge(effects)
  }

  /// An effect that runs the given effects at the same time.
  ///
  /// - Parameter effects: The effects to run.
  public static func merge(_ effects: some Sequence<Self>) -> Self {
    let effects = effects.filter(\.isNotNone)
    switch effects.count {
    case 0: return .none
    case 1: return effects[0]
    default: return Self(.merge(effects))
    }
  }

  /// An effect that runs the given effects one after another: each starts when the previous
  /// one has finished.
  ///
  /// - Parameter effects: The effects to run in order.
  public static func concatenate(_ effects: Self...) -> Self {
    concatenate(effects)
  }

  /// An effect that runs the given effects one after another.
  ///
  /// - Parameter effects: The effects to run in order.
  public static func concatenate(_ effects: some Sequence<Self>) -> Self {
    let effects = effects.filter(\.isNotNone)
    switch effects.count {
    case 0: return .none
    case 1: return effects[0]
    default: return Self(.concatenate(effects))
    }
  }

  /// Merges this effect with another: both run at the same time.
  ///
  /// - Parameter other: The other effect.
  @inlinable
  public func merge(with other: Self) -> Self {
    if case .none = operation { return other }
    if case .none = other.operation { return self }
    return Self(.merge([self, other]))
  }

  /// Runs this effect, then `other` once this one has finished.
  ///
  /// - Parameter other: The effect to run afterwards.
  public func concatenate(with other: Self) -> Self {
    .concatenate([self, other])
  }

  /// Transforms the actions this effect sends.
  ///
  /// - Parameter transform: Applied to every action the effect sends.
  @inlinable
  public func map<NewAction>(
    _ transform: @escaping @Sendable (Action) -> NewAction
  ) -> Effect<NewAction> {
    // `.none` first, inlined: composition maps every child effect, and the rest, unspecialized,
    // costs generic metadata look-ups (`NavigationChild<NewAction>?` among them).
    guard isNotNone else { return .none }
    return mapping(transform)
  }

  /// `map` past its `.none` check, which inlines where the effect's action type is known.
  @usableFromInline
  func mapping<NewAction>(
    _ transform: @escaping @Sendable (Action) -> NewAction
  ) -> Effect<NewAction> {
    mapping(transform, child: nil)
  }

  /// `map`, for the effects of a navigation child when `child` gives one: its operations run
  /// with `dismiss()` reaching the parent, and actions they send after the child is gone are
  /// reported (see ``NavigationChild``). `child` is made only for an effect that is not `.none`
  /// (a generic metadata look-up, on every action otherwise).
  func map<NewAction>(
    _ transform: @escaping @Sendable (Action) -> NewAction,
    child: @autoclosure () -> NavigationChild<NewAction>?
  ) -> Effect<NewAction> {
    guard isNotNone else { return .none }
    let child = child()
    return mapping(transform, child: child, ids: EffectIDScoping(child))
  }

  /// `map`, for the effects of a child at one place of its parent (a `Scope`'s key path): the
  /// ids of the composition inside it (`ChildEffectsID`s) are scoped to `compositionScope`, so
  /// that two instances of one feature in a store keep their element effects apart. Other ids
  /// and operations are mapped as by `map(_:)`.
  @usableFromInline
  func mapping<NewAction>(
    _ transform: @escaping @Sendable (Action) -> NewAction, compositionScope: EffectID
  ) -> Effect<NewAction> {
    mapping(
      transform, child: nil, ids: EffectIDScoping(scope: nil, compositionScope: compositionScope))
  }

  private func mapping<NewAction>(
    _ transform: @escaping @Sendable (Action) -> NewAction,
    child: NavigationChild<NewAction>?, ids: EffectIDScoping = EffectIDScoping()
  ) -> Effect<NewAction> {
    switch operation {
    case .none:
      return .none
    case .send(let action):
      return .send(transform(action))
    case .run(let run):
      let operation = run.operation
      let (fileID, line) = (run.fileID, run.line)
      let operationMap: @Sendable (Send<NewAction>) async throws -> Void = { send in
        let childSend = Self.send(send, transform, child: child, fileID: fileID, line: line)
        guard let child else { return try await operation(childSend) }
        try await child.run(parentSend: send) { try await operation(childSend) }
      }
      var handlerMap: (@Sendable (any Error, Send<NewAction>) async -> Void)?
      if let handler = run.handler {
        handlerMap = { error, send in
          let childSend = Self.send(send, transform, child: child, fileID: fileID, line: line)
          guard let child else { return await handler(error, childSend) }
          await child.run(parentSend: send) { await handler(error, childSend) }
        }
      }
      let mapped = Effect<NewAction>.Run(
        priority: run.priority,
        operation: operationMap,
        handler: handlerMap,
        dependencies: run.dependencies,
        fileID: run.fileID,
        line: run.line
      )
      return Effect<NewAction>(.run(mapped))
    case .merge(let effects):
      return Effect<NewAction>(
        .merge(effects.map { $0.mapping(transform, child: child, ids: ids) }))
    case .concatenate(let effects):
      return Effect<NewAction>(
        .concatenate(effects.map { $0.mapping(transform, child: child, ids: ids) }))
    case .cancellable(let id, let cancelInFlight, let effect):
      return Effect<NewAction>(
        .cancellable(
          id: ids.scoped(id), cancelInFlight: cancelInFlight,
          effect.mapping(transform, child: child, ids: ids)))
    case .cancel(let id):
      return Effect<NewAction>(.cancel(id: ids.scoped(id)))
    case .issue(let issue):
      return Effect<NewAction>(.issue(issue))
    case .cancelMatching(let predicate):
      // Its predicates match composition ids (`ChildEffectsID`s), which a composition scope
      // scopes too.
      guard let scope = ids.scope ?? ids.compositionScope else {
        return Effect<NewAction>(.cancelMatching(predicate))
      }
      return Effect<NewAction>(
        .cancelMatching { id in
          guard let scoped = id as? ScopedEffectID, scoped.scope == scope else { return false }
          return predicate(scoped.id.base)
        })
    case .throttle(let id, let interval, let clock, let latest, let effect):
      return Effect<NewAction>(
        .throttle(
          id: ids.scoped(id), interval: interval, clock: clock, latest: latest,
          effect.mapping(transform, child: child, ids: ids)))
    }
  }

  /// The `Send` a mapped operation gets: it transforms actions and passes them to `send`.
  /// Actions dropped from a cancelled task are reported if `child` is gone, or else passed on
  /// to `send`'s own `dropped` (an enclosing navigation child may be the one that is gone).
  private static func send<NewAction>(
    _ send: Send<NewAction>, _ transform: @escaping @Sendable (Action) -> NewAction,
    child: NavigationChild<NewAction>?, fileID: String, line: UInt
  ) -> Send<Action> {
    let deliver: @Sendable (Action) -> StoreTask = { send.deliver(transform($0)) }
    let parentDropped = send.dropped
    // No closure to allocate on the plain path (no navigation child anywhere above).
    guard child != nil || parentDropped != nil else { return Send(deliver: deliver) }
    return Send(
      deliver: deliver,
      dropped: { action in
        if let child, child.reportIfGone(action, fileID: fileID, line: line) { return }
        parentDropped?(transform(action))
      })
  }

  /// Reports, through the store's issue handler, an action that arrived for child state that
  /// is absent; the composition reducers return it instead of reducing.
  @usableFromInline
  static func actionWithoutState(
    _ action: Any, state: String, fileID: String, line: UInt
  ) -> Self {
    Self(
      .issue(
        StoreIssue(
          kind: .actionWithoutState(action: ValueDump.line(action), state: state),
          fileID: fileID, line: line))
    )
  }

  @inlinable
  var isNotNone: Bool {
    if case .none = operation { return false }
    return true
  }
}
