extension Reducer {
  /// Adds a child reducer for an optional child state.
  ///
  /// For a child action, the child runs first, while the child state exists; then this reducer
  /// runs. When this reducer sets the child state to `nil`, the child's running effects are
  /// cancelled. A child action that arrives while the child state is `nil` is ignored and
  /// reported to the store's issue handler (see ``StoreIssue``).
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
      fileID: "\(fileID)", line: line)
  }

  /// Adds an element reducer for each element of an `IdentifiedArray`.
  ///
  /// An element action `(id, action)` runs the element reducer on the element with that id,
  /// then this reducer runs. When this reducer removes elements, their running effects are
  /// cancelled. An action for an id that is not present is ignored and reported to the store's
  /// issue handler.
  ///
  /// - Parameters:
  ///   - state: Where the elements live.
  ///   - action: The action case that carries an element id and an element action.
  ///   - element: The element reducer.
  ///   - fileID: The file of the call, named in issues this produces (filled in for you).
  ///   - line: The line of the call (filled in for you).
  public func forEach<ElementState, ElementAction, Element: Reducer>(
    _ state: WritableKeyPath<State, IdentifiedArray<ElementState>>,
    action: CasePath<Action, (id: ElementState.ID, action: ElementAction)>,
    @ReducerBuilder<ElementState, ElementAction> element: () -> Element,
    fileID: StaticString = #fileID,
    line: UInt = #line
  ) -> ForEachReducer<Self, Element>
  where ElementState == Element.State, ElementAction == Element.Action {
    ForEachReducer(
      parent: self, element: element(), toElements: state, toElementAction: action,
      fileID: "\(fileID)", line: line)
  }
}
