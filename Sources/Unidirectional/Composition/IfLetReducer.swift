/// A parent reducer with a child reducer for an optional child state. Made by `ifLet`
/// (``Reducer/ifLet(_:action:then:fileID:line:)-2842b``, and its overload for an `Identifiable`
/// child).
///
/// A child's effects are identified by the key path, and for an `Identifiable` child state by
/// its id too: a child replaced by one with another id is a new child, and the effects of the
/// one it replaced are cancelled.
public struct IfLetReducer<Parent: Reducer, Child: Reducer>: Reducer
where Child.State: Sendable {
  // Safe: key paths are immutable; the captured subscript arguments are fixed at creation.
  nonisolated(unsafe) let toChildState: WritableKeyPath<Parent.State, Child.State?>
  let toChildAction: CasePath<Parent.Action, Child.Action>
  /// The identity of a child state (its id) when it is `Identifiable`; `nil` otherwise.
  let childIdentity: (@Sendable (Child.State) -> EffectID)?
  let parent: Parent
  let child: Child
  let fileID: String
  let line: UInt

  init(
    parent: Parent, child: Child, toChildState: WritableKeyPath<Parent.State, Child.State?>,
    toChildAction: CasePath<Parent.Action, Child.Action>,
    childIdentity: (@Sendable (Child.State) -> EffectID)?, fileID: String, line: UInt
  ) {
    self.parent = parent
    self.childIdentity = childIdentity
    self.child = child
    self.toChildState = toChildState
    self.toChildAction = toChildAction
    self.fileID = fileID
    self.line = line
  }

  /// Runs the child first (for child actions, while the child state exists), then the parent;
  /// cancels the child's effects if the child state became `nil` or another child (another id).
  ///
  /// - Parameters:
  ///   - state: The current state, changed in place.
  ///   - action: The action to handle.
  /// - Returns: The effects to start once the new state is committed.
  public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action>
  {
    let before = identity(in: state)
    var childEffect = Effect<Parent.Action>.none
    if let childAction = toChildAction.extract(action) {
      if let before {
        let toChildState = UncheckedSendable(toChildState)
        childEffect = child.reduce(into: &state[keyPath: toChildState.value]!, action: childAction)
          .map(
            toChildAction.embed,
            child: NavigationChild(
              scope: nil, dismissAction: nil, compositionScope: EffectID(before)),
            lift: {
              $0.lifted(from: Child.State.self) { (parent: Parent.State) in
                parent[keyPath: toChildState.value]
              }
            }
          )
          .cancellable(id: before)
        if childEffect.isNotNone { childEffect = childEffect.watching(watch(before)) }
      } else {
        childEffect = .actionWithoutState(
          action, state: "the optional \(ValueDump.typeName(Child.State.self))", fileID: fileID,
          line: line)
      }
    }
    let parentEffect = parent.reduce(into: &state, action: action)
    guard let before, identity(in: state) != before else {
      return childEffect.merge(with: parentEffect)
    }
    // The child is gone, or replaced by another one: its effects end with it.
    return .merge(childEffect, parentEffect, .cancel(id: before))
  }

  /// The cancellation id of the child's effects, or `nil` if there is no child.
  private func identity(in state: Parent.State) -> ChildEffects? {
    Self.identity(in: state, at: UncheckedSendable(toChildState), childIdentity: childIdentity)
  }

  private static func identity(
    in state: Parent.State,
    at toChildState: UncheckedSendable<WritableKeyPath<Parent.State, Child.State?>>,
    childIdentity: (@Sendable (Child.State) -> EffectID)?
  ) -> ChildEffects? {
    guard let childState = state[keyPath: toChildState.value] else { return nil }
    return ChildEffects(keyPath: toChildState.value, id: childIdentity?(childState))
  }

  /// The watch that ends the effects of the child `child` when it is gone, whichever reducer
  /// removed it.
  private func watch(_ child: ChildEffects) -> ChildWatch {
    let toChildState = UncheckedSendable(toChildState)
    let childIdentity = childIdentity
    return ChildWatch(
      key: EffectID(child), state: Parent.State.self, whenGone: [.id(EffectID(child))]
    ) {
      state in
      Self.identity(in: state.pointee, at: toChildState, childIdentity: childIdentity) == child
        ? .unchanged : .gone([.id(EffectID(child))])
    }
  }

  /// Identifies the effects of the child at one key path (scoped to the store, like all ids).
  struct ChildEffects: ChildEffectsID, @unchecked Sendable {
    // Safe: a key path is immutable.
    let keyPath: AnyKeyPath
    /// The child's id, if its state is `Identifiable`.
    let id: EffectID?
  }
}
