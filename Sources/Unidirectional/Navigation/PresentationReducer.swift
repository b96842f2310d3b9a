/// A parent reducer with a reducer for a presented child feature. Made by
/// ``Reducer/ifLet(_:action:destination:fileID:line:)``.
public struct PresentationReducer<Parent: Reducer, Destination: Reducer>: Reducer {
  // Safe: key paths are immutable; the captured subscript arguments are fixed at creation.
  @usableFromInline nonisolated(unsafe) let toPresentation:
    WritableKeyPath<Parent.State, PresentationState<Destination.State>>
  @usableFromInline let toPresentationAction:
    CasePath<Parent.Action, PresentationAction<Destination.Action>>
  // Static: a `body` makes its reducers anew for every action, and a `String` made from the
  // file's name would be an allocation each time.
  @usableFromInline let fileID: StaticString
  @usableFromInline let line: UInt
  @usableFromInline let addressOnly = AddressOnly()
  // Last: fields of generic types, whose offsets the generic value witnesses (which destroy a
  // `body`'s reducers after every action) compute from metadata; the fields above them have
  // fixed offsets.
  @usableFromInline let parent: Parent
  @usableFromInline let destination: Destination

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
  // Always inlined in the reducer above it: a level is a tag test and a few reads around the
  // call of its parent, which the caller's frame holds better than a frame of its own.
  @inlinable @inline(__always)
  public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action>
  {
    let presentationAction = toPresentationAction.extract(action)
    // Resolved once per key path, then a table look-up: see `PresentationField`.
    let offset = PresentationField.offset(of: toPresentation, probing: &state)
    let idBefore: UInt64?
    var destinationEffect = Effect<Parent.Action>.none
    switch presentationAction {
    case .presented(let destinationAction)?:
      var effect = Effect<Destination.Action>.none
      idBefore = reduceDestination(destinationAction, into: &effect, in: &state, at: offset)
      if let id = idBefore {
        if effect.isNotNone {
          destinationEffect = mapDestinationEffect(effect, presentation: id, in: &state)
        }
      } else {
        destinationEffect = destinationWithoutState(action)
      }
    case .dismiss?:
      idBefore = presentationID(in: &state, at: offset)
      if idBefore == nil { destinationEffect = destinationWithoutState(action) }
    case nil:
      idBefore = presentationID(in: &state, at: offset)
    }
    let parentEffect = parent.reduce(into: &state, action: action)
    let idAfter = presentationID(in: &state, at: offset)
    if case .dismiss? = presentationAction, let idBefore, idAfter == idBefore {
      // The parent saw the dismissal and did not present something else in its place.
      state[keyPath: toPresentation].wrappedValue = nil
    } else if idAfter == idBefore {
      return destinationEffect.merge(with: parentEffect)
    }
    guard let idBefore else { return destinationEffect.merge(with: parentEffect) }
    return endingPresentation(idBefore, destinationEffect, parentEffect)
  }

  /// The identity of the presentation in the parent state at `state`: read at `offset` when
  /// the presentation is known to be stored there, through the key path otherwise.
  @inlinable
  func presentationID(in state: UnsafeMutablePointer<Parent.State>, at offset: Int?) -> UInt64? {
    guard let offset else { return state.pointee[keyPath: toPresentation].presentationID }
    // A stored property of this type at `offset` (see `PresentationField`).
    return UnsafeMutableRawPointer(state).advanced(by: offset)
      .assumingMemoryBound(to: PresentationState<Destination.State>.self).pointee.presentationID
  }

  /// Runs the destination on the presented state in the parent state at `state`, if any, and
  /// returns the presentation's id.
  ///
  /// A method given a pointer, not a closure: a closure capturing the destination reducer would
  /// copy it on every action.
  @inlinable
  func reduceDestination(
    _ action: Destination.Action, into effect: inout Effect<Destination.Action>,
    in state: UnsafeMutablePointer<Parent.State>, at offset: Int?
  ) -> UInt64? {
    guard let offset else {
      return Self.reduce(
        &state.pointee[keyPath: toPresentation], destination, action, into: &effect)
    }
    let presentation = UnsafeMutableRawPointer(state).advanced(by: offset)
      .assumingMemoryBound(to: PresentationState<Destination.State>.self)
    return Self.reduce(&presentation.pointee, destination, action, into: &effect)
  }

  /// Runs `destination` on the presented state, if any, and returns the presentation's id.
  ///
  /// The state is written through its storage, so the destination cannot end the presentation
  /// here; a destination that changes its own identity (its `Identifiable` id, its enum case)
  /// is a new child all the same: the presentation's watch ends its effects at the end of the
  /// action (see `mapDestinationEffect`).
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
  ///
  /// The store watches the presentation from then on (see `ChildWatch`): whichever reducer ends
  /// it, its effects end with that action.
  ///
  /// The watch remembers the child's identity (its `Identifiable` id and enum case) too: a child
  /// that changes its own is a new child, as in TCA, and the old one's effects end at the end of
  /// that action (the presentation reducer writes the child through the storage and cannot
  /// notice it without reading the id on every action).
  @usableFromInline
  func mapDestinationEffect(
    _ effect: Effect<Destination.Action>, presentation id: UInt64,
    in state: UnsafeMutablePointer<Parent.State>
  ) -> Effect<Parent.Action> {
    let embed = toPresentationAction.embed
    let effects = Effects(keyPath: toPresentation, presentation: id)
    let toPresentation = UncheckedSendable(toPresentation)
    let child = state.pointee[keyPath: toPresentation.value].wrappedValue
      .map(PresentationState<Destination.State>.identity(of:))
    return effect.map(
      { embed(.presented($0)) },
      child: NavigationChild(scope: EffectID(effects), dismissAction: { embed(.dismiss) }),
      lift: {
        $0.lifted(from: Destination.State.self) { (parent: Parent.State) in
          parent[keyPath: toPresentation.value].wrappedValue
        }
      }
    )
    .cancellable(id: effects)
    .watching(
      ChildWatch(
        key: EffectID(effects), state: Parent.State.self, whenGone: [.id(EffectID(effects))]
      ) { state in
        let presentation = state.pointee[keyPath: toPresentation.value]
        guard presentation.presentationID == id,
          presentation.wrappedValue.map(PresentationState<Destination.State>.identity(of:))
            == child
        else { return .gone([.id(EffectID(effects))]) }
        return .unchanged
      })
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
  /// - The effects of a presentation are cancelled at the end of the action that ends it,
  ///   however it ends and whichever reducer ends it: this reducer or another one (combined
  ///   before or after this one, or above it) sets the state to `nil` or presents another
  ///   child in its place, `.dismiss` arrives, or the child calls `dismiss()` (see
  ///   ``DismissEffect``). An action those effects send afterwards is dropped, and reported if
  ///   its sender was not cancelled with them (see
  ///   ``StoreIssue/Kind/actionFromDismissedChild(action:)``).
  /// - An action for the child while nothing is presented is ignored and reported.
  ///
  /// - Parameters:
  ///   - state: Where the presentation lives: the projected value of a `@PresentationState`
  ///     property, `\.$editor`, or a stored `PresentationState` property. (A computed property
  ///     must read and write one stored `PresentationState` property of this state, as
  ///     `\.$editor` does: the reducer finds that property once and then reaches it directly.)
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
