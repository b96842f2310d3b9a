/// What a navigation reducer (`ifLet`, `ifCaseLet`, presentation `ifLet`, stack and row
/// `forEach`) adds to its child's effects as it maps them to parent actions (see `Effect.map(_:child:)`).
///
/// - `dismiss()` in the child's effects sends the parent `dismissAction`, through the parent's
///   `Send`, which only this mapping layer holds: hence a task-local installed around the
///   child's operations, rather than a dependency value the reducer could set.
/// - Its ids are scoped to the child (`scope`, `compositionScope`).
///
/// Actions the child's effects send after the child is gone are dropped by the `Send` their task
/// was given, which knows the child's life (see `ChildLifetime`).
struct NavigationChild<ParentAction>: Sendable {
  /// The child's identity, which the cancellation ids its effects use are scoped to (a
  /// presented child's, a stack element's; see `ScopedEffectID`), or `nil` to leave them as
  /// they are (`ifLet`, `ifCaseLet` and `forEach` rows, as in TCA).
  let scope: EffectID?

  /// Makes the parent action that dismisses the child (`.dismiss`, `.popFrom(id:)`), or `nil`
  /// if the child cannot dismiss itself (a plain `ifLet` or `ifCaseLet` child).
  let dismissAction: (@Sendable () -> ParentAction)?

  /// For a child whose other ids are left as they are (a `forEach` row, an `ifLet` or
  /// `ifCaseLet` child): its identity, which only the ids of the composition inside it are
  /// scoped to (the `ChildEffectsID`s of its own `forEach`, `ifLet` or stack). Two rows of a
  /// list of lists hold their inner lists at one key path; without it, a removal in one row's
  /// inner list cancelled the other rows' inner rows' effects. The ids the child's own code
  /// uses stay shared, as documented.
  var compositionScope: EffectID? = nil

  /// Runs the child's `operation` with `dismiss()` reaching this child's parent.
  ///
  /// - Parameter parentSend: The parent-level `Send` the mapped operation was given.
  func run(
    parentSend: Send<ParentAction>, _ operation: () async throws -> Void
  ) async rethrows {
    guard let scope else { return try await runDismissing(parentSend: parentSend, operation) }
    try await EffectIDScopes.$current.withValue(EffectIDScopes.current + [scope]) {
      try await runDismissing(parentSend: parentSend, operation)
    }
  }

  private func runDismissing(
    parentSend: Send<ParentAction>, _ operation: () async throws -> Void
  ) async rethrows {
    guard let dismissAction else { return try await operation() }
    let handler = DismissEffect.Handler { await parentSend(dismissAction()) }
    try await DismissEffect.$handler.withValue(handler, operation: operation)
  }
}

/// How the cancellation ids of a child's effects are scoped as they are mapped to its parent:
/// every id to a navigation child's identity (`scope`), or only the ids of the composition
/// inside the child (`ChildEffectsID`s) to the child's place (`compositionScope`: a `forEach`
/// row's identity, a `Scope`'s key path), or none.
struct EffectIDScoping: Sendable {
  var scope: EffectID?
  var compositionScope: EffectID?

  init(scope: EffectID? = nil, compositionScope: EffectID? = nil) {
    self.scope = scope
    self.compositionScope = compositionScope
  }

  init<Action>(_ child: NavigationChild<Action>?) {
    self.init(scope: child?.scope, compositionScope: child?.compositionScope)
  }

  /// `id` as the parent's effects use it.
  func scoped(_ id: EffectID) -> EffectID {
    if let scope { return id.scoped(to: scope) }
    if let compositionScope, id.isChildEffects { return id.scoped(to: compositionScope) }
    return id
  }
}

/// The navigation context of the running task: the id scopes and the dismissal that
/// ``NavigationChild`` installs around a child's effect code.
enum NavigationContext {
  /// Whether the current task runs inside a navigation child's effect code.
  static var isInsideChild: Bool {
    !EffectIDScopes.current.isEmpty || DismissEffect.handler != nil
  }

  /// `operation` as the store's root would run it: with no child's id scopes or dismissal.
  ///
  /// A top-level effect can start on a child's effect task: an action the child's effect sent is
  /// reduced on that task when the store is idle, and tasks inherit task-locals. Such an effect
  /// belongs to the reducer that returned it, not to the child (a parent's effect must not
  /// dismiss the child, nor cancel the child's ids in place of its own).
  static func outsideChildren(
    _ operation: @escaping @Sendable () async -> Void
  ) -> @Sendable () async -> Void {
    {
      await EffectIDScopes.$current.withValue([]) {
        await DismissEffect.$handler.withValue(nil, operation: operation)
      }
    }
  }
}
