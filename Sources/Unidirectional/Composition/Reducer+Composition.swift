extension Reducer {
  /// Adds a child reducer for an optional child state.
  ///
  /// For a child action, the child runs first, while the child state exists; then this reducer
  /// runs. When the child state becomes `nil`, at the end of that action, whichever reducer set
  /// it (this one, or another combined before, after or above it), the child's running effects
  /// are cancelled; an action they send afterwards is dropped, and reported if its sender was
  /// not cancelled with them (see ``StoreIssue/Kind/actionFromDismissedChild(action:)``). A
  /// child action that arrives while
  /// the child state is `nil` is ignored and reported to the store's issue handler (see
  /// ``StoreIssue``). For an `Identifiable` child state, an overload also treats a child with a
  /// new id as a new child.
  ///
  /// - Parameters:
  ///   - state: Where the optional child state lives.
  ///   - action: The action case that carries child actions.
  ///   - child: The child reducer.
  ///   - fileID: The file of the call, named in issues this produces (filled in for you).
  ///   - line: The line of the call (filled in for you).
  public func ifLet<ChildState, ChildAction, Child: Reducer>(
    _ state: WritableKeyPath<State, ChildState?>,
    action: CasePath<Action, ChildAction>,
    @ReducerBuilder<ChildState, ChildAction> then child: () -> Child,
    fileID: StaticString = #fileID,
    line: UInt = #line
  ) -> IfLetReducer<Self, Child> where ChildState == Child.State, ChildAction == Child.Action {
    IfLetReducer(
      parent: self, child: child(), toChildState: state, toChildAction: action,
      childIdentity: nil, fileID: "\(fileID)", line: line)
  }

  /// Adds a child reducer for an optional, `Identifiable` child state: a child replaced by one
  /// with another id is a new child.
  ///
  /// As the other `ifLet` (``Reducer/ifLet(_:action:then:fileID:line:)-2842b``), and besides: when
  /// the child state is replaced by one with a different `id` (by any reducer, or by the child
  /// changing its own id), the running effects of the child it replaced are cancelled, while
  /// those of the new child run. An action those old effects send afterwards is never applied
  /// to the new child: it is dropped, as is one sent after the child became `nil`.
  ///
  /// - Parameters:
  ///   - state: Where the optional child state lives.
  ///   - action: The action case that carries child actions.
  ///   - child: The child reducer.
  ///   - fileID: The file of the call, named in issues this produces (filled in for you).
  ///   - line: The line of the call (filled in for you).
  public func ifLet<ChildState, ChildAction, Child: Reducer>(
    _ state: WritableKeyPath<State, ChildState?>,
    action: CasePath<Action, ChildAction>,
    @ReducerBuilder<ChildState, ChildAction> then child: () -> Child,
    fileID: StaticString = #fileID,
    line: UInt = #line
  ) -> IfLetReducer<Self, Child>
  where
    ChildState == Child.State, ChildAction == Child.Action, ChildState: Identifiable,
    ChildState.ID: Sendable
  {
    IfLetReducer(
      parent: self, child: child(), toChildState: state, toChildAction: action,
      childIdentity: { EffectID($0.id) }, fileID: "\(fileID)", line: line)
  }

  /// Adds an element reducer for each element of an `IdentifiedArray`.
  ///
  /// An element action `(id, action)` runs the element reducer on the element with that id,
  /// then this reducer runs. When elements are removed, their running effects are cancelled at
  /// the end of that action, whichever reducer removed them, also when an earlier copy of the
  /// array is put back (an undo) that lacks elements added since. Not seen: putting back a copy that diverged from the current one by
  /// additions only and holds more elements (a redo after new additions); remove the dropped
  /// elements first, or cancel their effects. An action for an id that is not present is
  /// ignored and reported to the store's issue handler.
  ///
  /// Element effects belong to their array where the array is reached through `Scope` at a key
  /// path, `ifLet`, `ifCaseLet`, the rows of an outer `forEach` (a list of lists), or a
  /// presented child or stack element: two instances of a feature (two panels of a split view)
  /// never cancel each other's element effects. Not kept apart: instances a feature reaches
  /// through one `Scope` whose computed key path leads to a different instance over time (the
  /// selected tab), or by calling a child reducer by hand.
  ///
  /// - Parameters:
  ///   - state: Where the elements live.
  ///   - action: The action case that carries an element id and an element action.
  ///   - element: The element reducer.
  ///   - fileID: The file of the call, named in issues this produces (filled in for you).
  ///   - line: The line of the call (filled in for you).
  @inlinable
  public consuming func forEach<ElementState, ElementAction, Element: Reducer>(
    _ state: WritableKeyPath<State, IdentifiedArray<ElementState>>,
    action: CasePath<Action, (id: ElementState.ID, action: ElementAction)>,
    @ReducerBuilder<ElementState, ElementAction> element: () -> Element,
    fileID: StaticString = #fileID,
    line: UInt = #line
  ) -> ForEachReducer<Self, Element>
  where ElementState == Element.State, ElementAction == Element.Action {
    ForEachReducer(
      parent: self, element: element(), toElements: state, toElementAction: .pairs(action),
      fileID: fileID, line: line)
  }
}
