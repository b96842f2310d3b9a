extension Effect {
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
  /// with `dismiss()` reaching the parent, and its ids are scoped (see ``NavigationChild``).
  /// `child` is made only for an effect that is not `.none` (a generic metadata look-up, on
  /// every action otherwise). `lift` lifts the watches of the child's own navigation children
  /// to the parent's state (see ``ChildWatch``).
  func map<NewAction>(
    _ transform: @escaping @Sendable (Action) -> NewAction,
    child: @autoclosure () -> NavigationChild<NewAction>?,
    lift: @escaping @Sendable (ChildWatch) -> ChildWatch?
  ) -> Effect<NewAction> {
    guard isNotNone else { return .none }
    let child = child()
    return mapping(transform, child: child, ids: EffectIDScoping(child), lift: lift)
  }

  /// `map`, for the effects of a child at one place of its parent (a `Scope`'s key path): the
  /// ids of the composition inside it (`ChildEffectsID`s) are scoped to `compositionScope`, so
  /// that two instances of one feature in a store keep their element effects apart. Other ids
  /// and operations are mapped as by `map(_:)`.
  @usableFromInline
  func mapping<NewAction>(
    _ transform: @escaping @Sendable (Action) -> NewAction, compositionScope: EffectID?,
    lift: @escaping @Sendable (ChildWatch) -> ChildWatch?
  ) -> Effect<NewAction> {
    mapping(
      transform, child: nil, ids: EffectIDScoping(scope: nil, compositionScope: compositionScope),
      lift: lift)
  }

  /// - Parameter lift: Lifts a watch to the parent's state, or `nil` when the parent's state is
  ///   the child's (`map(_:)`): watches then pass unchanged.
  private func mapping<NewAction>(
    _ transform: @escaping @Sendable (Action) -> NewAction,
    child: NavigationChild<NewAction>?, ids: EffectIDScoping = EffectIDScoping(),
    lift: (@Sendable (ChildWatch) -> ChildWatch?)? = nil
  ) -> Effect<NewAction> {
    switch operation {
    case .none:
      return .none
    case .send(let action):
      return .send(transform(action))
    case .run(let run):
      let operation = run.operation
      let operationMap: @Sendable (Send<NewAction>) async throws -> Void = { send in
        let childSend = Self.send(send, transform)
        guard let child else { return try await operation(childSend) }
        try await child.run(parentSend: send) { try await operation(childSend) }
      }
      var handlerMap: (@Sendable (any Error, Send<NewAction>) async -> Void)?
      if let handler = run.handler {
        handlerMap = { error, send in
          let childSend = Self.send(send, transform)
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
        .merge(effects.map { $0.mapping(transform, child: child, ids: ids, lift: lift) }))
    case .concatenate(let effects):
      return Effect<NewAction>(
        .concatenate(effects.map { $0.mapping(transform, child: child, ids: ids, lift: lift) }))
    case .cancellable(let id, let cancelInFlight, let effect):
      return Effect<NewAction>(
        .cancellable(
          id: ids.scoped(id), cancelInFlight: cancelInFlight,
          effect.mapping(transform, child: child, ids: ids, lift: lift)))
    case .cancel(let id):
      return Effect<NewAction>(.cancel(id: ids.scoped(id)))
    case .issue(let issue):
      return Effect<NewAction>(.issue(issue))
    case .cancelMatching(let predicate):
      // Its predicates match composition ids (`ChildEffectsID`s), which a composition scope
      // scopes too.
      return Effect<NewAction>(.cancelMatching(ids.scoped(predicate)))
    case .watch(let watch):
      guard let lifted = lift.map({ $0(watch) }) ?? watch else { return .none }
      return Effect<NewAction>(.watch(lifted.scoped(ids)))
    case .throttle(let id, let interval, let clock, let latest, let effect):
      return Effect<NewAction>(
        .throttle(
          id: ids.scoped(id), interval: interval, clock: clock, latest: latest,
          effect.mapping(transform, child: child, ids: ids, lift: lift)))
    }
  }

  /// The `Send` a mapped operation gets: it transforms actions and passes them to `send` (which
  /// knows the effect task it belongs to, and so the children it runs for).
  private static func send<NewAction>(
    _ send: Send<NewAction>, _ transform: @escaping @Sendable (Action) -> NewAction
  ) -> Send<Action> {
    Send(deliver: { send.deliver(transform($0), $1) }, origin: send.origin)
  }
}
