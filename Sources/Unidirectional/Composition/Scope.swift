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
  @usableFromInline
  enum StatePath: Sendable {
    case keyPath(FieldPath<ParentState, Child.State>)
    case casePath(CasePath<ParentState, Child.State>)
  }

  // Inlinable, with what it reads: specialized in the module that composes the feature, a
  // level costs a few instructions; unspecialized, tens of generic metadata look-ups.
  @usableFromInline let state: StatePath
  /// Where the child state is stored in the parent state, if `state` is a key path to a stored
  /// property: the common case, taken without looking into `state`.
  @usableFromInline let stateOffset: Int?
  @usableFromInline let action: CasePath<ParentAction, Child.Action>
  // Static: a `body` makes its reducers anew for every action, and a `String` made from the
  // file's name would be an allocation each time.
  @usableFromInline let fileID: StaticString
  @usableFromInline let line: UInt
  @usableFromInline let addressOnly = AddressOnly()
  // Last: fields of generic types, whose offsets the generic value witnesses (which destroy a
  // `body`'s reducers after every action) compute from metadata; the fields above them have
  // fixed offsets.
  @usableFromInline let child: Child

  /// Scopes to a child state stored at a key path.
  ///
  /// - Parameters:
  ///   - state: Where the child state lives in the parent state.
  ///   - action: The parent action case that carries child actions.
  ///   - child: The child reducer.
  ///   - fileID: The file of the call, named in issues this produces (filled in for you).
  ///   - line: The line of the call (filled in for you).
  @inlinable
  public init<ChildState, ChildAction>(
    state: WritableKeyPath<ParentState, ChildState>,
    action: CasePath<ParentAction, ChildAction>,
    @ReducerBuilder<ChildState, ChildAction> child: () -> Child,
    fileID: StaticString = #fileID,
    line: UInt = #line
  ) where ChildState == Child.State, ChildAction == Child.Action {
    self.init(
      state: .keyPath(FieldPath(state)), action: action, child: child(), fileID: fileID, line: line)
  }

  /// Scopes to one case of an enum state: the child runs only while the state is that case.
  ///
  /// - Parameters:
  ///   - state: The case of the parent state that holds the child state.
  ///   - action: The parent action case that carries child actions.
  ///   - child: The child reducer.
  ///   - fileID: The file of the call, named in issues this produces (filled in for you).
  ///   - line: The line of the call (filled in for you).
  @inlinable
  public init<ChildState, ChildAction>(
    state: CasePath<ParentState, ChildState>,
    action: CasePath<ParentAction, ChildAction>,
    @ReducerBuilder<ChildState, ChildAction> child: () -> Child,
    fileID: StaticString = #fileID,
    line: UInt = #line
  ) where ChildState == Child.State, ChildAction == Child.Action {
    self.init(state: .casePath(state), action: action, child: child(), fileID: fileID, line: line)
  }

  @inlinable
  init(
    state: StatePath, action: CasePath<ParentAction, Child.Action>, child: Child,
    fileID: StaticString, line: UInt
  ) {
    self.state = state
    if case .keyPath(let path) = state { stateOffset = path.offset } else { stateOffset = nil }
    self.action = action
    self.child = child
    self.fileID = fileID
    self.line = line
  }

  /// Runs the child on the child state for child actions.
  ///
  /// - Parameters:
  ///   - parent: The parent state; its child part is changed in place.
  ///   - action: The parent action.
  /// - Returns: The child's effects, their actions embedded in parent actions.
  // Always inlined: a level is a tag test and a call of the child, which the caller's frame
  // holds better than a frame of its own.
  @inlinable @inline(__always)
  public func reduce(into parent: inout ParentState, action: ParentAction) -> Effect<ParentAction> {
    guard let childAction = self.action.extract(action) else { return .none }
    let effect: Effect<Child.Action>
    if let stateOffset {
      effect = reduceChild(at: stateOffset, in: &parent, action: childAction)
    } else {
      effect = reduceAtPath(&parent, action: action, childAction: childAction)
    }
    // `.none` is the common case: no closure to form for it.
    guard effect.isNotNone else { return .none }
    return mapChildEffect(effect)
  }

  /// The child's effect, its actions embedded in parent actions. For a child at a key path, the
  /// ids of the composition inside it (its `forEach`, `ifLet` and stack ids) are scoped to that
  /// key path: two instances of one feature in a store (two panels of a split view) then keep
  /// their element effects apart. The ids the child's own code uses stay as they are.
  ///
  /// The watches of navigation children inside the child are lifted to the parent's state (see
  /// `ChildWatch`): a parent that leaves the case, or replaces the child state, ends them.
  @usableFromInline
  func mapChildEffect(_ effect: Effect<Child.Action>) -> Effect<ParentAction> {
    switch state {
    case .keyPath(let path):
      return effect.mapping(
        action.embed, compositionScope: EffectID(ScopeEffects(keyPath: path.keyPath)),
        lift: {
          $0.lifted(from: Child.State.self) { (parent: ParentState) in parent[keyPath: path.keyPath]
          }
        })
    case .casePath(let casePath):
      return effect.mapping(
        action.embed, compositionScope: nil,
        lift: {
          $0.lifted(from: Child.State.self) { (parent: ParentState) in casePath.extract(parent) }
        })
    }
  }

  @inlinable
  func reduceAtPath(
    _ parent: inout ParentState, action: ParentAction, childAction: Child.Action
  ) -> Effect<Child.Action> {
    let effect: Effect<Child.Action>
    switch state {
    case .keyPath(let path):
      effect = child.reduce(into: &parent[keyPath: path.keyPath], action: childAction)
    case .casePath(let casePath):
      guard var childState = casePath.extract(parent) else {
        return actionWithoutState(action)
      }
      effect = child.reduce(into: &childState, action: childAction)
      parent = casePath.embed(childState)
    }
    return effect
  }

  /// Runs the child on the child state stored at `offset` in the parent state `parent` points
  /// to (a stored property, whose memory is bound to `Child.State`).
  ///
  /// Why a method and a pointer: a closure around `withUnsafeMutablePointer` that captures the
  /// child reducer, or passing the child as an argument, copies it, and a reducer holds every
  /// reducer below it, so each level would copy the whole tree under it on every action.
  @inlinable @inline(__always)
  func reduceChild(
    at offset: Int, in parent: UnsafeMutablePointer<ParentState>, action: Child.Action
  ) -> Effect<Child.Action> {
    child.reduce(
      into: &UnsafeMutableRawPointer(parent).advanced(by: offset)
        .assumingMemoryBound(to: Child.State.self).pointee,
      action: action)
  }

  @usableFromInline
  func actionWithoutState(_ action: ParentAction) -> Effect<Child.Action> {
    let state =
      "case \(ValueDump.typeName(Child.State.self)) of \(ValueDump.typeName(ParentState.self))"
    return .actionWithoutState(action, state: state, fileID: "\(fileID)", line: line)
  }
}

/// The place of a `Scope`'s child in its parent, which the ids of the composition inside the
/// child are scoped to (see `Scope.mapChildEffect`).
struct ScopeEffects: Hashable, @unchecked Sendable {
  // Safe: key paths are immutable.
  let keyPath: AnyKeyPath
}
