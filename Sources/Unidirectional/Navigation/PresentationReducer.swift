/// A parent reducer with a reducer for a presented child feature. Made by
/// ``Reducer/ifLet(_:action:destination:fileID:line:)``.
public struct PresentationReducer<Parent: Reducer, Destination: Reducer>: Reducer {
  // Safe: key paths are immutable; the captured subscript arguments are fixed at creation.
  @usableFromInline nonisolated(unsafe) let toPresentation:
    WritableKeyPath<Parent.State, PresentationState<Destination.State>>
  @usableFromInline let toPresentationAction:
    CasePath<Parent.Action, PresentationAction<Destination.Action>>
  @usableFromInline let parent: Parent
  @usableFromInline let destination: Destination
  // Static: a `body` makes its reducers anew for every action, and a `String` made from the
  // file's name would be an allocation each time.
  @usableFromInline let fileID: StaticString
  @usableFromInline let line: UInt
  @usableFromInline let addressOnly = AddressOnly()

  @inlinable
  init(
    parent: Parent, destination: Destination,
    toPresentation: WritableKeyPath<Parent.State, PresentationState<Destination.State>>,
    toPresentationAction: CasePath<Parent.Action, PresentationAction<Destination.Action>>,
    fileID: StaticString, line: UInt
  ) {
    self.parent = parent
    self.destination = destination
    self.toPresentation = toPresentation
    self.toPresentationAction = toPresentationAction
    self.fileID = fileID
    self.line = line
  }

  /// Runs the destination for `.presented` actions, then the parent; ends the presentation for
  /// `.dismiss` (after the parent); cancels the effects of a presentation that ended.
  ///
  /// - Parameters:
  ///   - state: The current state, changed in place.
  ///   - action: The action to handle.
  /// - Returns: The effects to start once the new state is committed.
  @inlinable
  public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action>
  {
    let presentationAction = toPresentationAction.extract(action)
    let idBefore: UInt64?
    var destinationEffect = Effect<Parent.Action>.none
    switch presentationAction {
    case .presented(let destinationAction)?:
      // One access through the key path (often computed, `\.$destination`, and then evaluated
      // by the runtime) both reads the presentation's id and runs the destination.
      var effect = Effect<Destination.Action>.none
      idBefore = Self.reduce(
        &state[keyPath: toPresentation], destination, destinationAction, into: &effect)
      if let id = idBefore {
        if effect.isNotNone { destinationEffect = mapDestinationEffect(effect, presentation: id) }
      } else {
        destinationEffect = destinationWithoutState(action)
      }
    case .dismiss?:
      idBefore = state[keyPath: toPresentation].presentationID
      if idBefore == nil { destinationEffect = destinationWithoutState(action) }
    case nil:
      idBefore = state[keyPath: toPresentation].presentationID
    }
    let parentEffect = parent.reduce(into: &state, action: action)
    if case .dismiss? = presentationAction, let idBefore,
      state[keyPath: toPresentation].presentationID == idBefore
    {
      // The parent saw the dismissal and did not present something else in its place.
      state[keyPath: toPresentation].wrappedValue = nil
    }
    guard let idBefore, state[keyPath: toPresentation].presentationID != idBefore else {
      return destinationEffect.merge(with: parentEffect)
    }
    return endingPresentation(idBefore, destinationEffect, parentEffect)
  }

  /// Runs `destination` on the presented state, if any, and returns the presentation's id.
  ///
  /// The state is written through its storage: the destination cannot start a new
  /// presentation.
  @inlinable
  static func reduce(
    _ presentation: inout PresentationState<Destination.State>, _ destination: Destination,
    _ action: Destination.Action, into effect: inout Effect<Destination.Action>
  ) -> UInt64? {
    guard let id = presentation.presentationID else { return nil }
    effect = destination.reduce(into: &presentation.value!, action: action)
    return id
  }

  /// A destination's effect that is not `.none`, mapped to parent actions, with `dismiss()`
  /// reaching the parent, and cancellable with the presentation.
  @usableFromInline
  func mapDestinationEffect(_ effect: Effect<Destination.Action>, presentation id: UInt64)
    -> Effect<Parent.Action>
  {
    let embed = toPresentationAction.embed
    let effects = Effects(keyPath: toPresentation, presentation: id)
    return effect.map(
      { embed(.presented($0)) },
      child: NavigationChild(scope: EffectID(effects), dismissAction: { embed(.dismiss) })
    )
    .cancellable(id: effects)
  }

  @usableFromInline
  func destinationWithoutState(_ action: Parent.Action) -> Effect<Parent.Action> {
    .actionWithoutState(
      action, state: "the presented \(ValueDump.typeName(Destination.State.self))",
      fileID: "\(fileID)", line: line)
  }

  /// The presentation ended (dismissed, or replaced by another): its effects end with it.
  @usableFromInline
  func endingPresentation(
    _ id: UInt64, _ destinationEffect: Effect<Parent.Action>, _ parentEffect: Effect<Parent.Action>
  ) -> Effect<Parent.Action> {
    .merge(
      destinationEffect, parentEffect,
      .cancel(id: Effects(keyPath: toPresentation, presentation: id)))
  }

  /// Identifies the effects of one presentation (scoped to the store, like all ids).
  struct Effects: ChildEffectsID, @unchecked Sendable {
    // Safe: a key path is immutable.
    let keyPath: AnyKeyPath
    let presentation: UInt64
  }
}

extension Reducer {
  /// Adds a reducer for a presented child feature: its state in a ``PresentationState``, its
  /// actions in a ``PresentationAction``.
  ///
  /// ```swift
  /// var body: some Reducer<State, Action> {
  ///   Reduce { state, action in … }
  ///     .ifLet(\.$editor, action: .editor) { Editor() }
  /// }
  /// ```
  ///
  /// - `.presented(action)` runs the destination on the presented state, then this reducer.
  /// - `.dismiss` runs this reducer, then sets the presented state to `nil` (unless this
  ///   reducer presented something else meanwhile).
  /// - The effects of a presentation are cancelled when it ends, however it ends: this reducer
  ///   sets the state to `nil` or presents another child in its place, `.dismiss` arrives, or
  ///   the child calls `dismiss()` (see ``DismissEffect``). An action those effects send
  ///   afterwards is reported (see ``StoreIssue/Kind/actionFromDismissedChild(action:)``).
  /// - An action for the child while nothing is presented is ignored and reported.
  ///
  /// - Parameters:
  ///   - state: Where the presentation lives: the projected value of a `@PresentationState`
  ///     property, `\.$editor`.
  ///   - action: The action case that carries the child's presentation actions.
  ///   - destination: The child reducer.
  ///   - fileID: The file of the call, named in issues this produces (filled in for you).
  ///   - line: The line of the call (filled in for you).
  @inlinable
  public consuming func ifLet<DestinationState, DestinationAction, Destination: Reducer>(
    _ state: WritableKeyPath<State, PresentationState<DestinationState>>,
    action: CasePath<Action, PresentationAction<DestinationAction>>,
    @ReducerBuilder<DestinationState, DestinationAction> destination: () -> Destination,
    fileID: StaticString = #fileID,
    line: UInt = #line
  ) -> PresentationReducer<Self, Destination>
  where DestinationState == Destination.State, DestinationAction == Destination.Action {
    PresentationReducer(
      parent: self, destination: destination(), toPresentation: state,
      toPresentationAction: action, fileID: fileID, line: line)
  }
}
