/// A parent reducer with a reducer for each element of a ``StackState``. Made by
/// ``Reducer/forEach(_:action:destination:fileID:line:)``.
public struct StackReducer<Parent: Reducer, Destination: Reducer>: Reducer {
  // Safe: key paths are immutable; the captured subscript arguments are fixed at creation.
  nonisolated(unsafe) let toStack: WritableKeyPath<Parent.State, StackState<Destination.State>>
  let toStackAction: CasePath<Parent.Action, StackAction<Destination.State, Destination.Action>>
  let parent: Parent
  let destination: Destination
  let fileID: String
  let line: UInt

  init(
    parent: Parent, destination: Destination,
    toStack: WritableKeyPath<Parent.State, StackState<Destination.State>>,
    toStackAction: CasePath<Parent.Action, StackAction<Destination.State, Destination.Action>>,
    fileID: String, line: UInt
  ) {
    self.parent = parent
    self.destination = destination
    self.toStack = toStack
    self.toStackAction = toStackAction
    self.fileID = fileID
    self.line = line
  }

  /// Runs the element reducer for element actions, then the parent; pops for `.popFrom(id:)`
  /// and pushes for `.push(id:state:)` (after the parent); cancels the effects of popped
  /// elements.
  ///
  /// - Parameters:
  ///   - state: The current state, changed in place.
  ///   - action: The action to handle.
  /// - Returns: The effects to start once the new state is committed.
  public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action>
  {
    let stackAction = toStackAction.extract(action)
    // The ids, not the stack: holding the elements would make the element's edit copy them.
    let identityBefore = state[keyPath: toStack].identity
    let idsBefore = state[keyPath: toStack].ids
    let nextIDBefore = state[keyPath: toStack].nextID
    var elementEffect = Effect<Parent.Action>.none
    switch stackAction {
    case .element(let id, let elementAction)?:
      let embed = toStackAction.embed
      let effects = Effects(keyPath: toStack, stack: identityBefore, id: id)
      let effect = state[keyPath: toStack].modify(id: id) {
        destination.reduce(into: &$0, action: elementAction)
      }
      if let effect {
        elementEffect =
          effect
          .map(
            { embed(.element(id: id, action: $0)) },
            child: NavigationChild(
              scope: EffectID(effects), dismissAction: { embed(.popFrom(id: id)) })
          )
          .cancellable(id: effects)
      } else {
        elementEffect = missing(action, id: id)
      }
    case .popFrom(let id)?:
      if !idsBefore.contains(id) { elementEffect = missing(action, id: id) }
    case .push(let id, _)? where id < nextIDBefore:
      elementEffect = .actionWithoutState(
        action, state: "an unused id (\(id) was used; the next is \(nextIDBefore))",
        fileID: fileID, line: line)
    case .push?, nil:
      break
    }
    let parentEffect = parent.reduce(into: &state, action: action)
    switch stackAction {
    case .popFrom(let id)?:
      state[keyPath: toStack].pop(from: id)
    case .push(let id, let element)? where id >= state[keyPath: toStack].nextID:
      state[keyPath: toStack].push(element, id: id)
    default:
      break
    }
    let identityAfter = state[keyPath: toStack].identity
    let idsAfter = state[keyPath: toStack].ids
    // `==` on the ids arrays is O(1) when nothing was pushed or popped (same buffer).
    guard identityBefore != identityAfter || idsBefore != idsAfter else {
      return elementEffect.merge(with: parentEffect)
    }
    // Elements were popped (or the stack replaced): their effects end with them.
    let remaining = identityBefore == identityAfter ? Set(idsAfter) : []
    let cancels = idsBefore.filter { !remaining.contains($0) }.map {
      Effect<Parent.Action>.cancel(id: Effects(keyPath: toStack, stack: identityBefore, id: $0))
    }
    return .merge([elementEffect, parentEffect] + cancels)
  }

  private func missing(_ action: Parent.Action, id: StackElementID) -> Effect<Parent.Action> {
    .actionWithoutState(
      action, state: "the stack element with id \(id)", fileID: fileID, line: line)
  }

  /// Identifies the effects of one stack element (scoped to the store, like all ids).
  struct Effects: ChildEffectsID, @unchecked Sendable {
    // Safe: a key path is immutable.
    let keyPath: AnyKeyPath
    let stack: UInt64
    let id: StackElementID
  }
}

extension Reducer {
  /// Adds a reducer for each element of a stack of child features: their states in a
  /// ``StackState``, their actions in a ``StackAction``.
  ///
  /// ```swift
  /// var body: some Reducer<State, Action> {
  ///   Reduce { state, action in … }
  ///     .forEach(\.path, action: .path) { Path() }
  /// }
  /// ```
  ///
  /// - `.element(id:action:)` runs the destination on that element, then this reducer.
  /// - `.popFrom(id:)` runs this reducer, then pops that element and those above it.
  /// - `.push(id:state:)` runs this reducer, then pushes the element with that id.
  /// - The effects of an element are cancelled when it leaves the stack, however it leaves:
  ///   this reducer pops it, `.popFrom(id:)` arrives, or the element calls `dismiss()` (see
  ///   ``DismissEffect``). An action those effects send afterwards is reported (see
  ///   ``StoreIssue/Kind/actionFromDismissedChild(action:)``).
  /// - An action for an id that is not on the stack, or a push with an id already used, is
  ///   ignored and reported.
  ///
  /// - Parameters:
  ///   - state: Where the stack lives.
  ///   - action: The action case that carries the stack's actions.
  ///   - destination: The element reducer.
  ///   - fileID: The file of the call, named in issues this produces (filled in for you).
  ///   - line: The line of the call (filled in for you).
  public func forEach<DestinationState, DestinationAction, Destination: Reducer>(
    _ state: WritableKeyPath<State, StackState<DestinationState>>,
    action: CasePath<Action, StackAction<DestinationState, DestinationAction>>,
    @ReducerBuilder<DestinationState, DestinationAction> destination: () -> Destination,
    fileID: StaticString = #fileID,
    line: UInt = #line
  ) -> StackReducer<Self, Destination>
  where DestinationState == Destination.State, DestinationAction == Destination.Action {
    StackReducer(
      parent: self, destination: destination(), toStack: state, toStackAction: action,
      fileID: "\(fileID)", line: line)
  }
}
