/// A parent reducer with an element reducer for each element of an `IdentifiedArray`. Made by
/// ``Reducer/forEach(_:action:element:fileID:line:)-(_,CasePath<Self.Action,(ElementState.ID,ElementAction)>,_,_,_)``.
public struct ForEachReducer<Parent: Reducer, Element: Reducer>: Reducer
where Element.State: Identifiable & Sendable, Element.State.ID: Sendable {
  /// An element's id and one of its actions.
  public typealias ElementAction = (id: Element.State.ID, action: Element.Action)

  // Safe: key paths are immutable; the captured subscript arguments are fixed at creation.
  @usableFromInline nonisolated(unsafe) let toElements:
    WritableKeyPath<Parent.State, IdentifiedArray<Element.State>>
  // Where the elements are stored in the parent state, if `toElements` is a stored property:
  // reached with pointer arithmetic rather than the key path runtime, on every action.
  @usableFromInline let elementsOffset: Int?
  @usableFromInline let toElementAction: ElementRoute
  // Static: a `body` makes its reducers anew for every action, and a `String` made from the
  // file's name would be an allocation each time.
  @usableFromInline let fileID: StaticString
  @usableFromInline let line: UInt
  @usableFromInline let addressOnly = AddressOnly()
  // Last: fields of generic types, whose offsets the generic value witnesses (which destroy a
  // `body`'s reducers after every action) compute from metadata; the fields above them have
  // fixed offsets.
  @usableFromInline let parent: Parent
  @usableFromInline let element: Element

  @inlinable
  init(
    parent: Parent, element: Element,
    toElements: WritableKeyPath<Parent.State, IdentifiedArray<Element.State>>,
    toElementAction: ElementRoute, fileID: StaticString, line: UInt
  ) {
    self.parent = parent
    self.element = element
    self.toElements = toElements
    self.elementsOffset = MemoryLayout<Parent.State>.offset(of: toElements)
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
  // Always inlined in the reducer above it: a level is a tag test and a few reads around the
  // call of its parent, which the caller's frame holds better than a frame of its own.
  @inlinable @inline(__always)
  public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action>
  {
    var elementEffect = Effect<Parent.Action>.none
    if let (id, elementAction) = toElementAction.extract(from: action) {
      switch reduceElement(id: id, action: elementAction, in: &state) {
      case nil: elementEffect = elementWithoutState(action, id: id)
      case let effect? where effect.isNotNone:
        elementEffect = mapElementEffect(effect, id: id, in: state)
      case _?: break
      }
    }
    let membershipBefore = membership(in: &state)
    let parentEffect = parent.reduce(into: &state, action: action)
    guard membership(in: &state).mayHaveLost(since: membershipBefore) else {
      return elementEffect.merge(with: parentEffect)
    }
    return cancellingRemoved(elementEffect, parentEffect, elements: state[keyPath: toElements])
  }

  /// Runs the element reducer on the element with `id` in the parent state at `state`, or
  /// returns `nil` if there is none.
  ///
  /// A method given a pointer, not a closure: a closure capturing the element reducer would
  /// copy it on every action. Not forced inline: inlined into `reduce`, it saved C3 about 30
  /// instructions but made the `body`s around it slower (P0, which never reaches it, about 7%).
  @inlinable
  func reduceElement(
    id: Element.State.ID, action: Element.Action, in state: UnsafeMutablePointer<Parent.State>
  ) -> Effect<Element.Action>? {
    guard let elementsOffset else {
      return reduceElementByKeyPath(id: id, action: action, in: state)
    }
    // A stored property at `elementsOffset`: its memory is bound to its type.
    let elements = UnsafeMutableRawPointer(state).advanced(by: elementsOffset)
      .assumingMemoryBound(to: IdentifiedArray<Element.State>.self)
    guard let position = IdentifiedArray.position(of: id, in: elements) else {
      return nil
    }
    return elements.pointee.updateElement(at: position, id: id) {
      element.reduce(into: &$0, action: action)
    }
  }

  /// `reduceElement` when the elements are not a stored property: through the key path, out of
  /// line (its frame would cost the common case one of its size).
  @inlinable @inline(never)
  func reduceElementByKeyPath(
    id: Element.State.ID, action: Element.Action, in state: UnsafeMutablePointer<Parent.State>
  ) -> Effect<Element.Action>? {
    guard let position = state.pointee[keyPath: toElements].index(id: id) else { return nil }
    return state.pointee[keyPath: toElements].updateElement(at: position, id: id) {
      element.reduce(into: &$0, action: action)
    }
  }

  /// The membership of the elements in the parent state at `state`.
  @inlinable @inline(__always)
  func membership(in state: UnsafeMutablePointer<Parent.State>) -> Membership {
    guard let elementsOffset else { return Membership(state.pointee[keyPath: toElements]) }
    // A stored property at `elementsOffset`: its memory is bound to its type.
    return Membership(
      UnsafeMutableRawPointer(state).advanced(by: elementsOffset)
        .assumingMemoryBound(to: IdentifiedArray<Element.State>.self))
  }

  /// What tells, in O(1), whether elements may have left the array between two moments.
  ///
  /// Elements left if ids were removed, or if the parent put back an earlier copy of the array
  /// (an undo), which lacks the elements added since. Additions alone (the same removal version
  /// and more elements) are told apart, so that they cancel nothing: the cancellation that
  /// follows a loss visits every running cancellation id of the store, which appends (a feed,
  /// a log) must not pay for. One case is not seen: putting back a copy that diverged from this
  /// one by additions only and holds more elements than it (a redo after new additions).
  @usableFromInline
  struct Membership {
    @usableFromInline let version: UInt64
    @usableFromInline let removalVersion: UInt64
    @usableFromInline let count: Int

    @inlinable
    init(_ elements: borrowing IdentifiedArray<Element.State>) {
      version = elements.membershipVersion
      removalVersion = elements.removalVersion
      count = elements.elements.count
    }

    @inlinable @inline(__always)
    init(_ elements: UnsafeMutablePointer<IdentifiedArray<Element.State>>) {
      version = elements.pointee.membershipVersion
      removalVersion = elements.pointee.removalVersion
      count = elements.pointee.elements.count
    }

    /// Whether elements that were in the array at `before` may be gone now.
    @inlinable
    func mayHaveLost(since before: Membership) -> Bool {
      guard version != before.version else { return false }
      return removalVersion != before.removalVersion || count <= before.count
    }
  }

  /// An element's effect that is not `.none`, mapped to parent actions and made cancellable
  /// with the element.
  @usableFromInline
  func mapElementEffect(
    _ effect: Effect<Element.Action>, id: Element.State.ID, in state: Parent.State
  ) -> Effect<Parent.Action> {
    let embed = toElementAction.embed
    let effects = ElementEffects(keyPath: toElements, id: id)
    // The row's own ids stay shared; those of the composition inside it are the row's.
    let child = NavigationChild<Parent.Action>(
      scope: nil, dismissAction: nil, compositionScope: EffectID(effects))
    let toElements = UncheckedSendable(toElements)
    return effect.map(
      { embed(id, $0) }, child: child,
      lift: {
        $0.lifted(from: Element.State.self, row: Self.row(id, of: toElements)) {
          (parent: Parent.State) in parent[keyPath: toElements.value][id: id]
        }
      }
    )
    .cancellable(id: effects)
    .watching(rowsWatch(membership: Membership(state[keyPath: toElements.value])))
  }

  /// The row with `id` of the collection at `toElements`, for the watches of the children
  /// inside it: the store checks them only after actions that wrote the row.
  static func row(
    _ id: Element.State.ID,
    of toElements: UncheckedSendable<WritableKeyPath<Parent.State, IdentifiedArray<Element.State>>>
  ) -> ChildWatch.Row {
    ChildWatch.Row(collection: EffectID(RowsWatch(keyPath: toElements.value)), id: EffectID(id)) {
      state in
      let elements = state.assumingMemoryBound(to: Parent.State.self).pointee[
        keyPath: toElements.value]
      return ChildWatch.RowWrites(
        version: elements.writeVersion, previousVersion: elements.previousWriteVersion,
        lastWrittenID: elements.lastWrittenID.map { EffectID($0) })
    }
  }

  /// The watch of the rows' effects: after an action, the rows that are gone, whichever reducer
  /// removed them, lose their effects. One per collection; it reads the collection's version
  /// counters (`Membership`) and visits the store's running ids only when rows may be gone.
  @usableFromInline
  func rowsWatch(membership: Membership) -> ChildWatch {
    let toElements = UncheckedSendable(toElements)
    let seen = SeenMembership(membership)
    let keyPath = UncheckedSendable<AnyKeyPath>(toElements.value)
    let allRows = ChildWatch.Cancellation.matching { id in
      (id as? ElementEffects)?.keyPath == keyPath.value
    }
    return ChildWatch(
      key: EffectID(RowsWatch(keyPath: toElements.value)), state: Parent.State.self,
      whenGone: [allRows]
    ) { state in
      let elements = state.pointee[keyPath: toElements.value]
      let now = Membership(elements)
      defer { seen.membership = now }
      guard now.mayHaveLost(since: seen.membership) else { return .unchanged }
      return ChildWatch.Verdict(
        cancellations: [
          .matching { id in
            guard let effects = id as? ElementEffects, effects.keyPath == keyPath.value
            else { return false }
            return !elements.contains(id: effects.id)
          }
        ])
    }
  }

  /// The membership a rows watch saw last.
  // Safe: a store checks its watches one at a time, under its effect runtime's lock.
  @usableFromInline
  final class SeenMembership: @unchecked Sendable {
    var membership: Membership

    init(_ membership: Membership) {
      self.membership = membership
    }
  }

  /// Identifies the watch of one collection's rows (scoped like the rows' ids).
  struct RowsWatch: ChildEffectsID, @unchecked Sendable {
    // Safe: a key path is immutable.
    let keyPath: AnyKeyPath
  }

  @usableFromInline
  func elementWithoutState(_ action: Parent.Action, id: Element.State.ID) -> Effect<Parent.Action> {
    .actionWithoutState(
      action, state: "the element with id \(id)", fileID: "\(fileID)", line: line)
  }

  /// The effects, merged with one that cancels the running effects of elements that are gone.
  /// This visits the store's running cancellation ids, not the elements.
  @usableFromInline
  func cancellingRemoved(
    _ elementEffect: Effect<Parent.Action>, _ parentEffect: Effect<Parent.Action>,
    elements: IdentifiedArray<Element.State>
  ) -> Effect<Parent.Action> {
    let keyPath = UncheckedSendable<AnyKeyPath>(toElements)
    let cancelRemoved = Effect<Parent.Action>(
      .cancelMatching { id in
        guard let effects = id as? ElementEffects, effects.keyPath == keyPath.value
        else { return false }
        return !elements.contains(id: effects.id)
      })
    return .merge(elementEffect, parentEffect, cancelRemoved)
  }

  /// How element actions are carried by parent actions: in a case whose payload is the pair,
  /// or in one whose payload is an `IdentifiedAction`. Two routes rather than one case path
  /// built around the other: that one's closures would be allocated each time a `body` makes
  /// the reducer, on every action.
  ///
  /// Two optionals, exactly one of them set, rather than an enum: a `body` destroys its
  /// reducers after every action, and a multi-payload enum of generic case paths is destroyed
  /// by an outlined switch.
  @usableFromInline
  struct ElementRoute: Sendable {
    @usableFromInline let pairs: CasePath<Parent.Action, ElementAction>?
    @usableFromInline let identified:
      CasePath<Parent.Action, IdentifiedAction<Element.State.ID, Element.Action>>?

    @inlinable
    init(
      pairs: CasePath<Parent.Action, ElementAction>?,
      identified: CasePath<Parent.Action, IdentifiedAction<Element.State.ID, Element.Action>>?
    ) {
      self.pairs = pairs
      self.identified = identified
    }

    /// Element actions in a case whose payload is the pair.
    @inlinable
    static func pairs(_ casePath: CasePath<Parent.Action, ElementAction>) -> Self {
      Self(pairs: casePath, identified: nil)
    }

    /// Element actions in a case whose payload is an `IdentifiedAction`.
    @inlinable
    static func identified(
      _ casePath: CasePath<Parent.Action, IdentifiedAction<Element.State.ID, Element.Action>>
    ) -> Self {
      Self(pairs: nil, identified: casePath)
    }

    // Inlined in the reducer, with the case path's tag test: an action for another reducer is
    // turned down without a call.
    @inlinable @inline(__always)
    func extract(from action: Parent.Action) -> ElementAction? {
      // Optional chaining borrows the case path; `if let` would copy it (retaining its
      // closures).
      if identified != nil {
        guard case .element(let id, let elementAction)? = identified?.extract(action) else {
          return nil
        }
        return (id, elementAction)
      }
      return pairs?.extract(action)
    }

    var embed: @Sendable (Element.State.ID, Element.Action) -> Parent.Action {
      if let identified {
        return { identified.embed(.element(id: $0, action: $1)) }
      }
      let pairs = pairs!
      return { pairs.embed(($0, $1)) }
    }
  }

  /// Identifies the effects of one element (scoped to the store, like all ids).
  struct ElementEffects: ChildEffectsID, @unchecked Sendable {
    // Safe: a key path is immutable; ids are Sendable.
    let keyPath: AnyKeyPath
    let id: Element.State.ID
  }
}
