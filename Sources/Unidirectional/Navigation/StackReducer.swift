/// A parent reducer with a reducer for each element of a ``StackState``. Made by
/// ``Reducer/forEach(_:action:destination:fileID:line:)``.
public struct StackReducer<Parent: Reducer, Destination: Reducer>: Reducer {
  // Safe: key paths are immutable; the captured subscript arguments are fixed at creation.
  @usableFromInline nonisolated(unsafe) let toStack:
    WritableKeyPath<Parent.State, StackState<Destination.State>>
  // Where the stack is stored in the parent state, if `toStack` is a stored property: reached
  // with pointer arithmetic rather than the key path runtime, several times per action.
  @usableFromInline let stackOffset: Int?
  @usableFromInline let toStackAction:
    CasePath<Parent.Action, StackAction<Destination.State, Destination.Action>>
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
    toStack: WritableKeyPath<Parent.State, StackState<Destination.State>>,
    toStackAction: CasePath<Parent.Action, StackAction<Destination.State, Destination.Action>>,
    fileID: StaticString, line: UInt
  ) {
    self.parent = parent
    self.destination = destination
    self.toStack = toStack
    self.stackOffset = MemoryLayout<Parent.State>.offset(of: toStack)
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
  // Always inlined in the reducer above it: a level is a tag test and a few reads around the
  // call of its parent, which the caller's frame holds better than a frame of its own.
  @inlinable @inline(__always)
  public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action>
  {
    // The ids are held to tell which elements were popped, if any were: when they are
    // consecutive (a stack only pushed onto, the usual case), by the lowest and the highest,
    // without the reference to the array (and its release) that other ids take.
    guard let idsBefore = consecutiveIDs(in: &state) else {
      return reduceHoldingIDs(into: &state, action: action)
    }
    return reduce(into: &state, action: action, idsBefore: idsBefore)
  }

  /// ``reduce(into:action:)`` for a stack whose ids are not consecutive, or that is not a
  /// stored property: the ids are held by a reference to the array.
  @inlinable @inline(never)
  func reduceHoldingIDs(into state: inout Parent.State, action: Parent.Action)
    -> Effect<Parent.Action>
  {
    // One reference: comparing the membership afterwards needs no second one.
    reduce(into: &state, action: action, idsBefore: ids(in: &state))
  }

  /// ``reduce(into:action:)``, with the stack's ids before the action.
  @inlinable @inline(__always)
  func reduce<IDs: StackIDsBefore>(
    into state: inout Parent.State, action: Parent.Action, idsBefore: IDs
  ) -> Effect<Parent.Action> {
    let stackAction = toStackAction.extract(action)
    let membershipBefore = membership(in: &state)
    var elementEffect = Effect<Parent.Action>.none
    switch stackAction {
    case .element(let id, let elementAction)?:
      switch reduceElement(id: id, action: elementAction, in: &state) {
      case nil: elementEffect = missing(action, id: id)
      case let effect? where effect.isNotNone:
        elementEffect = mapElementEffect(effect, id: id, stack: membershipBefore.identity)
      case _?: break
      }
    case .popFrom(let id)?:
      if !idsBefore.contains(id) { elementEffect = missing(action, id: id) }
    case .push(let id, _)?:
      elementEffect = checkingPush(action, id: id, in: state)
    case nil:
      break
    }
    let parentEffect = parent.reduce(into: &state, action: action)
    switch stackAction {
    case .popFrom?, .push?: popOrPush(stackAction, in: &state)
    default: break
    }
    guard membership(in: &state) != membershipBefore else {
      return elementEffect.merge(with: parentEffect)
    }
    let stackAfter = state[keyPath: toStack]
    return cancellingPopped(
      elementEffect, parentEffect, identityBefore: membershipBefore.identity,
      idsBefore: idsBefore.all, identityAfter: stackAfter.identity, idsAfter: stackAfter.ids)
  }

  // The accessors below read a stored stack by address, inlined in `reduce`; the way through the
  // key path is a function of its own, whose copies of the parent state would otherwise give
  // every call a large stack frame.

  /// The ids of the stack in the parent state at `state`.
  @inlinable @inline(__always)
  func ids(in state: UnsafeMutablePointer<Parent.State>) -> [StackElementID] {
    guard let stackOffset else { return idsThroughKeyPath(in: state) }
    return UnsafeMutableRawPointer(state).advanced(by: stackOffset)
      .assumingMemoryBound(to: StackState<Destination.State>.self).pointee.ids
  }

  /// The ids of the stack in the parent state at `state` if they are consecutive and the stack
  /// is a stored property; `nil` otherwise.
  @inlinable @inline(__always)
  func consecutiveIDs(in state: UnsafeMutablePointer<Parent.State>) -> ConsecutiveStackIDs? {
    guard let stackOffset else { return nil }
    return ConsecutiveStackIDs(
      UnsafeMutableRawPointer(state).advanced(by: stackOffset)
        .assumingMemoryBound(to: StackState<Destination.State>.self))
  }

  /// ``ids(in:)`` for a stack that is not a stored property.
  @inlinable @inline(never)
  func idsThroughKeyPath(in state: UnsafeMutablePointer<Parent.State>) -> [StackElementID] {
    state.pointee[keyPath: toStack].ids
  }

  /// The identity and membership version of the stack in the parent state at `state`: while
  /// both stay the same, so do the stack's ids.
  @inlinable @inline(__always)
  func membership(in state: UnsafeMutablePointer<Parent.State>)
    -> (identity: UInt64, version: UInt64)
  {
    guard let stackOffset else { return membershipThroughKeyPath(in: state) }
    // A stored property at `stackOffset`: its memory is bound to its type.
    let stack = UnsafeMutableRawPointer(state).advanced(by: stackOffset)
      .assumingMemoryBound(to: StackState<Destination.State>.self)
    return (stack.pointee.identity, stack.pointee.membershipVersion)
  }

  /// ``membership(in:)`` for a stack that is not a stored property.
  @inlinable @inline(never)
  func membershipThroughKeyPath(in state: UnsafeMutablePointer<Parent.State>)
    -> (identity: UInt64, version: UInt64)
  {
    (state.pointee[keyPath: toStack].identity, state.pointee[keyPath: toStack].membershipVersion)
  }

  /// Runs the destination on the element with `id` in the parent state at `state`, or returns
  /// `nil` if there is none.
  ///
  /// A method given a pointer, not a closure: a closure capturing the destination reducer would
  /// copy it on every action.
  @inlinable
  func reduceElement(
    id: StackElementID, action: Destination.Action, in state: UnsafeMutablePointer<Parent.State>
  ) -> Effect<Destination.Action>? {
    guard let stackOffset else {
      return reduceElementThroughKeyPath(id: id, action: action, in: state)
    }
    let stack = UnsafeMutableRawPointer(state).advanced(by: stackOffset)
      .assumingMemoryBound(to: StackState<Destination.State>.self)
    guard let position = stack.pointee.index(id: id) else { return nil }
    return destination.reduce(into: &stack.pointee.elements[position], action: action)
  }

  /// ``reduceElement(id:action:in:)`` for a stack that is not a stored property.
  @inlinable @inline(never)
  func reduceElementThroughKeyPath(
    id: StackElementID, action: Destination.Action, in state: UnsafeMutablePointer<Parent.State>
  ) -> Effect<Destination.Action>? {
    guard let position = state.pointee[keyPath: toStack].index(id: id) else { return nil }
    return destination.reduce(
      into: &state.pointee[keyPath: toStack].elements[position], action: action)
  }

  /// An element's effect that is not `.none`, mapped to parent actions, with `dismiss()`
  /// popping the element, and cancellable with it. The store watches the element from then on
  /// (see `ChildWatch`): whichever reducer pops it, its effects end with that action.
  @usableFromInline
  func mapElementEffect(_ effect: Effect<Destination.Action>, id: StackElementID, stack: UInt64)
    -> Effect<Parent.Action>
  {
    let embed = toStackAction.embed
    let effects = Effects(keyPath: toStack, stack: stack, id: id)
    let toStack = UncheckedSendable(toStack)
    return
      effect
      .map(
        { embed(.element(id: id, action: $0)) },
        child: NavigationChild(
          scope: EffectID(effects), dismissAction: { embed(.popFrom(id: id)) }),
        lift: {
          $0.lifted(from: Destination.State.self) { (parent: Parent.State) in
            parent[keyPath: toStack.value][id: id]
          }
        }
      )
      .cancellable(id: effects)
      .watching(
        ChildWatch(
          key: EffectID(effects), state: Parent.State.self, whenGone: [.id(EffectID(effects))]
        ) { state in
          let elements = state.pointee[keyPath: toStack.value]
          return elements.identity == stack && elements.index(id: id) != nil
            ? .unchanged : .gone([.id(EffectID(effects))])
        })
  }

  /// A push's id must not have been used: reports it if it was (the push is then ignored).
  @usableFromInline
  func checkingPush(_ action: Parent.Action, id: StackElementID, in state: Parent.State)
    -> Effect<Parent.Action>
  {
    let nextID = state[keyPath: toStack].nextID
    guard id < nextID else { return .none }
    return .actionWithoutState(
      action, state: "an unused id (\(id) was used; the next is \(nextID))",
      fileID: "\(fileID)", line: line)
  }

  /// Pops or pushes, after the parent has run.
  @usableFromInline
  func popOrPush(
    _ stackAction: StackAction<Destination.State, Destination.Action>?,
    in state: inout Parent.State
  ) {
    switch stackAction {
    case .popFrom(let id)?:
      state[keyPath: toStack].pop(from: id)
    case .push(let id, let element)? where id >= state[keyPath: toStack].nextID:
      state[keyPath: toStack].push(element, id: id)
    default:
      break
    }
  }

  /// Elements were popped (or the stack replaced): their effects end with them. Only theirs:
  /// a copy of this stack elsewhere (a duplicated tab) has the same identity, and its other
  /// elements' effects are not this stack's to cancel.
  @usableFromInline
  func cancellingPopped(
    _ elementEffect: Effect<Parent.Action>, _ parentEffect: Effect<Parent.Action>,
    identityBefore: UInt64, idsBefore: [StackElementID],
    identityAfter: UInt64, idsAfter: [StackElementID]
  ) -> Effect<Parent.Action> {
    let remaining = identityBefore == identityAfter ? Set(idsAfter) : []
    let cancels = idsBefore.filter { !remaining.contains($0) }.map {
      Effect<Parent.Action>.cancel(id: Effects(keyPath: toStack, stack: identityBefore, id: $0))
    }
    return .merge([elementEffect, parentEffect] + cancels)
  }

  @usableFromInline
  func missing(_ action: Parent.Action, id: StackElementID) -> Effect<Parent.Action> {
    .actionWithoutState(
      action, state: "the stack element with id \(id)", fileID: "\(fileID)", line: line)
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
  /// - The effects of an element are cancelled at the end of the action that takes it off the
  ///   stack, however it leaves and whichever reducer pops it: this one or another,
  ///   `.popFrom(id:)`, or the element calling `dismiss()` (see ``DismissEffect``). An action
  ///   those effects send afterwards is dropped, and reported if its sender was not cancelled
  ///   with them (see ``StoreIssue/Kind/actionFromDismissedChild(action:)``). Ids are never
  ///   reused within a stack.
  /// - An action for an id that is not on the stack, or a push with an id already used, is
  ///   ignored and reported.
  ///
  /// - Parameters:
  ///   - state: Where the stack lives.
  ///   - action: The action case that carries the stack's actions.
  ///   - destination: The element reducer.
  ///   - fileID: The file of the call, named in issues this produces (filled in for you).
  ///   - line: The line of the call (filled in for you).
  @inlinable
  public consuming func forEach<DestinationState, DestinationAction, Destination: Reducer>(
    _ state: WritableKeyPath<State, StackState<DestinationState>>,
    action: CasePath<Action, StackAction<DestinationState, DestinationAction>>,
    @ReducerBuilder<DestinationState, DestinationAction> destination: () -> Destination,
    fileID: StaticString = #fileID,
    line: UInt = #line
  ) -> StackReducer<Self, Destination>
  where DestinationState == Destination.State, DestinationAction == Destination.Action {
    StackReducer(
      parent: self, destination: destination(), toStack: state, toStackAction: action,
      fileID: fileID, line: line)
  }
}
