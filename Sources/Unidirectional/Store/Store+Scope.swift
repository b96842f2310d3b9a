#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

extension Store {
  /// A store of a child feature that reads its state from this store and sends its actions
  /// through it.
  ///
  /// ```swift
  /// let loginStore = appStore.scope(state: \.login, action: AppAction.login)
  /// ```
  ///
  /// The child store is a full `Store`: observers registered on it are tracked by the root
  /// store at the child's precision (an observer that read `child.title` re-runs only when that
  /// title changes), and `send` goes through every parent reducer.
  ///
  /// - Parameters:
  ///   - state: Where the child state lives.
  ///   - action: Embeds a child action in an action of this store.
  ///   - fileID: The file of the call, named in issues this produces (filled in for you).
  ///   - line: The line of the call (filled in for you).
  public func scope<ChildState: Sendable, ChildAction: Sendable>(
    state: KeyPath<State, ChildState> & Sendable,
    action: @escaping @Sendable (ChildAction) -> Action,
    fileID: StaticString = #fileID,
    line: UInt = #line
  ) -> Store<ChildState, ChildAction> {
    // Never nil for a required path: a root store always has the value, and a child store
    // whose state is gone answers from its last state (see `ScopedStore.scope`).
    scopeAny(state: .required(state), action: action, fileID: "\(fileID)", line: line)!
  }

  /// A store of a child feature whose state is optional here (an `ifLet` child, a `forEach`
  /// element such as `\.rows[id: id]`, an enum case), or `nil` if the state is absent now.
  ///
  /// The child store keeps working while its state exists. Once it is gone, reads return the
  /// last state it had, and `send` does nothing but report the action to the store's issue
  /// handler: it never crashes and never reaches another element.
  ///
  /// - Parameters:
  ///   - state: Where the optional child state lives.
  ///   - action: Embeds a child action in an action of this store (for an element, with its id).
  ///   - fileID: The file of the call, named in issues this produces (filled in for you).
  ///   - line: The line of the call (filled in for you).
  public func scope<ChildState: Sendable, ChildAction: Sendable>(
    state: KeyPath<State, ChildState?> & Sendable,
    action: @escaping @Sendable (ChildAction) -> Action,
    fileID: StaticString = #fileID,
    line: UInt = #line
  ) -> Store<ChildState, ChildAction>? {
    scopeAny(state: .optional(state), action: action, fileID: "\(fileID)", line: line)
  }

  /// A store of one element of an `IdentifiedArray` (a `forEach` row), or `nil` if no element
  /// has this id now.
  ///
  /// ```swift
  /// let row = listStore.scope(state: \.rows, id: 42) { ListAction.row(id: 42, action: $0) }
  /// ```
  ///
  /// It behaves like `scope(state: \.rows[id: id], action:)`, but its observers cost less:
  /// after an action, the root store checks the array once and refreshes only the observers of
  /// the element that was written, instead of every row's observers. Prefer it for lists whose
  /// rows each have a child store.
  ///
  /// - Parameters:
  ///   - state: Where the array lives.
  ///   - id: The element's id.
  ///   - action: Embeds a child action in an action of this store (with the element's id).
  ///   - fileID: The file of the call, named in issues this produces (filled in for you).
  ///   - line: The line of the call (filled in for you).
  @inlinable
  public func scope<Element: Identifiable & Sendable, ChildAction: Sendable>(
    state: KeyPath<State, IdentifiedArray<Element>> & Sendable,
    id: Element.ID,
    action: @escaping @Sendable (ChildAction) -> Action,
    fileID: StaticString = #fileID,
    line: UInt = #line
  ) -> Store<Element, ChildAction>? where Element.ID: Sendable {
    // Inlined, so that these closures are specialized for `State` and `Element`: the child's
    // observers read through them (see `ElementAccess`). Only for a root store's array at a
    // fixed offset; a child store's own child goes through the general path.
    let parts = MemoryLayout<State>.offset(of: state).map { offset in
      ElementAccessParts<Element>(
        locate: { state in
          let array = (state + offset).assumingMemoryBound(to: IdentifiedArray<Element>.self)
          // The element buffer stays where it is while the state is neither written nor
          // released, which is as long as the caller may use the address. Its address is
          // taken without `withUnsafeBufferPointer`, whose closure (it may throw) is a call of
          // its own on every refresh of a row's probe. The buffer is contiguous: `elements` is
          // a native array, built by appends (never bridged).
          let count = array.pointee.elements.count
          guard count > 0, let elements = array.pointee.elements._baseAddressIfContiguous
          else { return nil }
          // The last updated position first (a row is read after it was written): a look-up by
          // id costs a hash.
          let hinted = array.pointee.lastUpdatedPosition
          if hinted < count, elements[hinted].id == id {
            return UnsafeRawPointer(elements + hinted)
          }
          guard let position = array.pointee.positions[id] else { return nil }
          return UnsafeRawPointer(elements + position)
        },
        readWrites: IdentifiedArray<Element>.writesReader(atOffset: offset),
        keep: { access in
          guard let recorder = access.ownerRecorder else { return false }
          let element = recorder._withUnsafeGuaranteedRef { access.keeperRead(by: $0) }
          if let element { ElementAccess.remember(element, in: access.lastKnown) }
          return true
        })
    }
    return scopeElement(
      state: state, id: id, action: action, fileID: "\(fileID)", line: line, parts: parts)
  }

  @usableFromInline
  func scopeElement<Element: Identifiable & Sendable, ChildAction: Sendable>(
    state: KeyPath<State, IdentifiedArray<Element>> & Sendable, id: Element.ID,
    action: @escaping @Sendable (ChildAction) -> Action, fileID: String, line: UInt,
    parts: ElementAccessParts<Element>?
  ) -> Store<Element, ChildAction>? where Element.ID: Sendable {
    let elementPath = state.appending(path: \IdentifiedArray<Element>.[id: id])
    // A child store's own child goes through the general path.
    guard scope == nil else {
      return scopeAny(state: .optional(elementPath), action: action, fileID: fileID, line: line)
    }
    guard let initialState = peek(elementPath) else { return nil }
    let reader = ChildReader(
      toState: .optional(elementPath),
      element: IdentifiedElementLink(array: UncheckedSendable(state), id: id),
      initialState: initialState)
    let access = parts.map { parts in
      IdentifiedElementAccess(
        root: ObjectIdentifier(self), graph: graph, rootRecorder: drainRecorder,
        state: UnsafeMutableRawPointer(statePointer),
        reader: reader.id, lastKnown: reader.lastKnown, array: state, id: id,
        locate: parts.locate, readWrites: parts.readWrites)
    }
    let keep = access.map { access in
      let keep = parts!.keep
      return { @Sendable in keep(access) }
    }
    return Store<Element, ChildAction>(
      scope: ScopedStore(
        root: self, reader: reader, embed: action, fileID: fileID, line: line, keep: keep),
      initialState: initialState, elementAccess: access)
  }

  /// A store of a child feature, with actions embedded by a case path.
  ///
  /// ```swift
  /// let login = store.scope(state: \.login, action: .login)
  /// ```
  ///
  /// - Parameters:
  ///   - state: Where the child state lives in this store's state.
  ///   - action: The case of this store's actions that carries the child's actions.
  ///   - fileID: The file of the call, named in issues this produces (filled in for you).
  ///   - line: The line of the call (filled in for you).
  public func scope<ChildState: Sendable, ChildAction: Sendable>(
    state: KeyPath<State, ChildState> & Sendable,
    action: CasePath<Action, ChildAction>,
    fileID: StaticString = #fileID,
    line: UInt = #line
  ) -> Store<ChildState, ChildAction> {
    scope(state: state, action: action.embed, fileID: fileID, line: line)
  }

  func scopeAny<ChildState: Sendable, ChildAction: Sendable>(
    state: ScopePath<State, ChildState>, action: @escaping @Sendable (ChildAction) -> Action,
    fileID: String, line: UInt
  ) -> Store<ChildState, ChildAction>? {
    if let scope {
      return scope.scope(state: state, action: action)
    }
    return makeScope(state: state, action: action, fileID: fileID, line: line)
  }

  /// Makes a child store of this root store.
  ///
  /// - Parameter element: For the store of one element of an `IdentifiedArray` of this store,
  ///   how to read it by id.
  func makeScope<ChildState: Sendable, ChildAction: Sendable>(
    state: ScopePath<State, ChildState>, action: @escaping @Sendable (ChildAction) -> Action,
    fileID: String, line: UInt
  ) -> Store<ChildState, ChildAction>? {
    guard let initialState = state.current(in: self) else { return nil }
    return Store<ChildState, ChildAction>(
      scope: ScopedStore(
        root: self,
        reader: ChildReader(toState: state, element: nil, initialState: initialState),
        embed: action, fileID: fileID, line: line),
      initialState: initialState)
  }

  /// The current state, read without recording it for any observer or registrar.
  package var untrackedState: State { peek(\.self) }

  /// The number of effect tasks of this store still running.
  package var runningEffectCount: Int { effects.runningCount }

  /// The test executor this store's effects run on, if it was given one.
  package var effectTestExecutor: TestExecutor? { effects.testExecutor }

  /// Cancels every effect of this store that is running.
  package func cancelAllEffects() {
    effects.cancelAll()
  }

  /// Whether actions are waiting for the thread draining this root store.
  package var hasQueuedActions: Bool { gate.withLock { !pending.actions.isEmpty } }

}

/// What a store's observation machinery holds now, for tests that check that reads leave
/// nothing behind and that cancelled observers are gone.
package struct ObservationFootprint: Equatable, Sendable, CustomStringConvertible {
  /// Registered observers (not counting those the store registers for itself, such as a child
  /// store's keeper of its last state).
  package var observers: Int
  /// Values watched for those observers (one per distinct read).
  package var probes: Int
  /// Reads remembered for Apple's Observation (`withObservationTracking`, `Observations`).
  package var trackedReads: Int

  package init(observers: Int, probes: Int, trackedReads: Int) {
    self.observers = observers
    self.probes = probes
    self.trackedReads = trackedReads
  }

  package var description: String {
    "\(observers) observers, \(probes) probes, \(trackedReads) tracked reads"
  }
}

extension Store {
  /// What the root store's observation machinery holds now (see ``ObservationFootprint``).
  ///
  /// The graph belongs to the thread that owns the store, so this waits until it can take the
  /// store (or is called by its owner).
  package var observationFootprint: ObservationFootprint {
    if gate.isOwnedByCurrentThread { return graph.footprint }
    while !gate.tryAcquire() { sched_yield() }
    let footprint = graph.footprint
    drain()
    return footprint
  }
}
