/// A parent reducer with an element reducer for each element of an `IdentifiedArray`. Made by
/// ``Reducer/forEach(_:action:element:fileID:line:)-(_,CasePath<Self.Action,(ElementState.ID,ElementAction)>,_,_,_)``.
public struct ForEachReducer<Parent: Reducer, Element: Reducer>: Reducer
where Element.State: Identifiable & Sendable, Element.State.ID: Sendable {
  /// An element's id and one of its actions.
  public typealias ElementAction = (id: Element.State.ID, action: Element.Action)

  // Safe: key paths are immutable; the captured subscript arguments are fixed at creation.
  nonisolated(unsafe) let toElements: WritableKeyPath<Parent.State, IdentifiedArray<Element.State>>
  let toElementAction: CasePath<Parent.Action, ElementAction>
  let parent: Parent
  let element: Element
  let fileID: String
  let line: UInt

  init(
    parent: Parent, element: Element,
    toElements: WritableKeyPath<Parent.State, IdentifiedArray<Element.State>>,
    toElementAction: CasePath<Parent.Action, ElementAction>, fileID: String, line: UInt
  ) {
    self.parent = parent
    self.element = element
    self.toElements = toElements
    self.toElementAction = toElementAction
    self.fileID = fileID
    self.line = line
  }

  /// Runs the element reducer for element actions (on the element with that id), then the
  /// parent; cancels the effects of elements the parent removed.
  ///
  /// - Parameters:
  ///   - state: The current state, changed in place.
  ///   - action: The action to handle.
  /// - Returns: The effects to start once the new state is committed.
  public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action>
  {
    var elementEffect = Effect<Parent.Action>.none
    if let (id, elementAction) = toElementAction.extract(action) {
      if state[keyPath: toElements][id: id] != nil {
        let embed = toElementAction.embed
        elementEffect = element.reduce(
          into: &state[keyPath: toElements][id: id]!, action: elementAction
        )
        .map({ embed((id, $0)) }, child: NavigationChild(scope: nil, dismissAction: nil))
        .cancellable(id: ElementEffects(keyPath: toElements, id: id))
      } else {
        elementEffect = .actionWithoutState(
          action, state: "the element with id \(id)", fileID: fileID, line: line)
      }
    }
    let versionBefore = state[keyPath: toElements].removalVersion
    let parentEffect = parent.reduce(into: &state, action: action)
    let elements = state[keyPath: toElements]
    guard elements.removalVersion != versionBefore else {
      return elementEffect.merge(with: parentEffect)
    }
    // Something was removed: cancel the running effects of elements that are gone. This visits
    // the store's running cancellation ids, not the elements.
    let keyPath = UncheckedSendable<AnyKeyPath>(toElements)
    let cancelRemoved = Effect<Parent.Action>(
      .cancelMatching { id in
        guard let effects = id as? ElementEffects, effects.keyPath == keyPath.value
        else { return false }
        return !elements.contains(id: effects.id)
      })
    return .merge(elementEffect, parentEffect, cancelRemoved)
  }

  /// Identifies the effects of one element (scoped to the store, like all ids).
  struct ElementEffects: ChildEffectsID, @unchecked Sendable {
    // Safe: a key path is immutable; ids are Sendable.
    let keyPath: AnyKeyPath
    let id: Element.State.ID
  }
}
