/// The action of one element of a collection of child features, addressed by the element's id:
/// the row action of
/// ``Reducer/forEach(_:action:element:fileID:line:)-(_,CasePath<Self.Action,IdentifiedAction<ElementState.ID,ElementAction>>,_,_,_)``.
///
/// ```swift
/// enum Action: Sendable {
///   case rows(IdentifiedActionOf<Row>)
/// }
/// …
///   .forEach(\.rows, action: .rows) { Row() }
/// ```
public enum IdentifiedAction<ID: Hashable & Sendable, Action> {
  /// The action `action` of the element with id `id`.
  case element(id: ID, action: Action)
}

extension IdentifiedAction: Sendable where Action: Sendable {}
extension IdentifiedAction: Equatable where Action: Equatable {}
extension IdentifiedAction: Hashable where Action: Hashable {}

/// The ``IdentifiedAction`` of the elements a reducer runs on: `IdentifiedActionOf<Row>`.
public typealias IdentifiedActionOf<R: Reducer> = IdentifiedAction<R.State.ID, R.Action>
where R.State: Identifiable, R.State.ID: Sendable

extension Reducer {
  /// Adds an element reducer for each element of an `IdentifiedArray`, its actions carried as
  /// ``IdentifiedAction/element(id:action:)``.
  ///
  /// The same as the form taking `(id:action:)` pairs: an element action runs the element
  /// reducer on the element with that id, then this reducer; elements this reducer removes have
  /// their running effects cancelled; an action for an id that is not present is ignored and
  /// reported to the store's issue handler.
  ///
  /// - Parameters:
  ///   - state: Where the elements live.
  ///   - action: The action case that carries the elements' actions.
  ///   - element: The element reducer.
  ///   - fileID: The file of the call, named in issues this produces (filled in for you).
  ///   - line: The line of the call (filled in for you).
  @inlinable
  public consuming func forEach<ElementState, ElementAction, Element: Reducer>(
    _ state: WritableKeyPath<State, IdentifiedArray<ElementState>>,
    action: CasePath<Action, IdentifiedAction<ElementState.ID, ElementAction>>,
    @ReducerBuilder<ElementState, ElementAction> element: () -> Element,
    fileID: StaticString = #fileID,
    line: UInt = #line
  ) -> ForEachReducer<Self, Element>
  where ElementState == Element.State, ElementAction == Element.Action {
    ForEachReducer(
      parent: self, element: element(), toElements: state, toElementAction: .identified(action),
      fileID: fileID, line: line)
  }
}
