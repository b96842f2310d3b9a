/// Runs a child reducer on part of the parent's state, for the parent's actions that carry a
/// child action.
///
/// ```swift
/// var body: some Reducer<State, Action> {
///   Scope(state: \.login, action: .login) { Login() }     // a child struct in the state
///   Scope(state: .playing, action: .game) { Game() }     // one case of an enum state
///   Reduce { state, action in … }
/// }
/// ```
///
/// Other actions pass through untouched. The child's effects are mapped back to parent actions.
/// For an enum state, a child action that arrives while the state is in another case is
/// ignored and reported to the store's issue handler.
public struct Scope<ParentState, ParentAction, Child: Reducer>: Reducer {
  enum StatePath: @unchecked Sendable {
    // Safe: key paths are immutable; the captured subscript arguments are fixed at creation.
    case keyPath(WritableKeyPath<ParentState, Child.State>)
    case casePath(CasePath<ParentState, Child.State>)
  }

  let state: StatePath
  let action: CasePath<ParentAction, Child.Action>
  let child: Child
  let fileID: String
  let line: UInt

  /// Scopes to a child state stored at a key path.
  ///
  /// - Parameters:
  ///   - state: Where the child state lives in the parent state.
  ///   - action: The parent action case that carries child actions.
  ///   - child: The child reducer.
  ///   - fileID: The file of the call, named in issues this produces (filled in for you).
  ///   - line: The line of the call (filled in for you).
  public init<ChildState, ChildAction>(
    state: WritableKeyPath<ParentState, ChildState>,
    action: CasePath<ParentAction, ChildAction>,
    @ReducerBuilder<ChildState, ChildAction> child: () -> Child,
    fileID: StaticString = #fileID,
    line: UInt = #line
  ) where ChildState == Child.State, ChildAction == Child.Action {
    self.init(state: .keyPath(state), action: action, child: child(), fileID: fileID, line: line)
  }

  /// Scopes to one case of an enum state: the child runs only while the state is that case.
  ///
  /// - Parameters:
  ///   - state: The case of the parent state that holds the child state.
  ///   - action: The parent action case that carries child actions.
  ///   - child: The child reducer.
  ///   - fileID: The file of the call, named in issues this produces (filled in for you).
  ///   - line: The line of the call (filled in for you).
  public init<ChildState, ChildAction>(
    state: CasePath<ParentState, ChildState>,
    action: CasePath<ParentAction, ChildAction>,
    @ReducerBuilder<ChildState, ChildAction> child: () -> Child,
    fileID: StaticString = #fileID,
    line: UInt = #line
  ) where ChildState == Child.State, ChildAction == Child.Action {
    self.init(state: .casePath(state), action: action, child: child(), fileID: fileID, line: line)
  }

  private init(
    state: StatePath, action: CasePath<ParentAction, Child.Action>, child: Child,
    fileID: StaticString, line: UInt
  ) {
    self.state = state
    self.action = action
    self.child = child
    self.fileID = "\(fileID)"
    self.line = line
  }

  /// Runs the child on the child state for child actions.
  ///
  /// - Parameters:
  ///   - parent: The parent state; its child part is changed in place.
  ///   - action: The parent action.
  /// - Returns: The child's effects, their actions embedded in parent actions.
  public func reduce(into parent: inout ParentState, action: ParentAction) -> Effect<ParentAction> {
    guard let childAction = self.action.extract(action) else { return .none }
    switch state {
    case .keyPath(let keyPath):
      return child.reduce(into: &parent[keyPath: keyPath], action: childAction)
        .map(self.action.embed)
    case .casePath(let casePath):
      guard var childState = casePath.extract(parent) else {
        let state =
          "case \(ValueDump.typeName(Child.State.self)) of \(ValueDump.typeName(ParentState.self))"
        return .actionWithoutState(action, state: state, fileID: fileID, line: line)
      }
      let effect = child.reduce(into: &childState, action: childAction)
      parent = casePath.embed(childState)
      return effect.map(self.action.embed)
    }
  }
}
