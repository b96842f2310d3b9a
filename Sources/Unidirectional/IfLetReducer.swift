/// A parent reducer with a child reducer for an optional child state. Made by
/// ``Reducer/ifLet(_:action:then:fileID:line:)``.
public struct IfLetReducer<Parent: Reducer, Child: Reducer>: Reducer
where Child.State: Sendable {
  // Safe: key paths are immutable; the captured subscript arguments are fixed at creation.
  nonisolated(unsafe) let toChildState: WritableKeyPath<Parent.State, Child.State?>
  let toChildAction: CasePath<Parent.Action, Child.Action>
  let parent: Parent
  let child: Child
  let fileID: String
  let line: UInt

  init(
    parent: Parent, child: Child, toChildState: WritableKeyPath<Parent.State, Child.State?>,
    toChildAction: CasePath<Parent.Action, Child.Action>, fileID: String, line: UInt
  ) {
    self.parent = parent
    self.child = child
    self.toChildState = toChildState
    self.toChildAction = toChildAction
    self.fileID = fileID
    self.line = line
  }

  /// Runs the child first (for child actions, while the child state exists), then the parent;
  /// cancels the child's effects if the parent set the child state to `nil`.
  public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action>
  {
    let cancelID = ChildEffects(keyPath: toChildState)
    var childEffect = Effect<Parent.Action>.none
    if let childAction = toChildAction.extract(action) {
      if state[keyPath: toChildState] != nil {
        childEffect = child.reduce(into: &state[keyPath: toChildState]!, action: childAction)
          .map(toChildAction.embed)
          .cancellable(id: cancelID)
      } else {
        childEffect = .actionWithoutState(
          action, state: "the optional \(ValueDump.typeName(Child.State.self))", fileID: fileID,
          line: line)
      }
    }
    let wasPresent = state[keyPath: toChildState] != nil
    let parentEffect = parent.reduce(into: &state, action: action)
    let dismissed = wasPresent && state[keyPath: toChildState] == nil
    return .merge(childEffect, parentEffect, dismissed ? .cancel(id: cancelID) : .none)
  }

  /// Identifies the effects of the child at one key path (scoped to the store, like all ids).
  struct ChildEffects: ChildEffectsID, @unchecked Sendable {
    // Safe: a key path is immutable.
    let keyPath: AnyKeyPath
  }
}
