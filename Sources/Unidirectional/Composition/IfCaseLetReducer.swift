/// A parent reducer with a child reducer for one case of its enum state. Made by
/// ``Reducer/ifCaseLet(_:action:then:fileID:line:)``.
public struct IfCaseLetReducer<Parent: Reducer, Case: Reducer>: Reducer {
  let toCaseState: CasePath<Parent.State, Case.State>
  let toCaseAction: CasePath<Parent.Action, Case.Action>
  let parent: Parent
  let child: Case
  let fileID: String
  let line: UInt

  init(
    parent: Parent, child: Case, toCaseState: CasePath<Parent.State, Case.State>,
    toCaseAction: CasePath<Parent.Action, Case.Action>, fileID: String, line: UInt
  ) {
    self.parent = parent
    self.child = child
    self.toCaseState = toCaseState
    self.toCaseAction = toCaseAction
    self.fileID = fileID
    self.line = line
  }

  /// Runs the child first (for case actions, while the state is the case), then the parent;
  /// cancels the case's effects if the state left the case, or holds a child of another id.
  ///
  /// - Parameters:
  ///   - state: The current state, changed in place.
  ///   - action: The action to handle.
  /// - Returns: The effects to start once the new state is committed.
  public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action>
  {
    let site = CaseSite(fileID: fileID, line: line, caseState: ObjectIdentifier(Case.State.self))
    var childEffect = Effect<Parent.Action>.none
    let before: CaseEffects?
    if let caseAction = toCaseAction.extract(action) {
      if var caseState = toCaseState.extract(state) {
        let effects = CaseEffects(site: site, id: Self.childID(state, caseState))
        before = effects
        childEffect = child.reduce(into: &caseState, action: caseAction)
          .map(
            toCaseAction.embed,
            child: NavigationChild(
              scope: nil, dismissAction: nil, compositionScope: EffectID(effects)),
            lift: { [toCaseState] in
              $0.lifted(from: Case.State.self) { toCaseState.extract($0) }
            }
          )
          .cancellable(id: effects)
        if childEffect.isNotNone { childEffect = childEffect.watching(watch(effects)) }
        state = toCaseState.embed(caseState)
      } else {
        before = nil
        childEffect = .actionWithoutState(
          action,
          state:
            "case \(ValueDump.typeName(Case.State.self)) of \(ValueDump.typeName(Parent.State.self))",
          fileID: fileID, line: line)
      }
    } else {
      before = Self.identity(in: state, site: site, toCaseState: toCaseState)
    }
    let parentEffect = parent.reduce(into: &state, action: action)
    guard let before, Self.identity(in: state, site: site, toCaseState: toCaseState) != before
    else {
      return childEffect.merge(with: parentEffect)
    }
    // The state left the case, or holds another child: the case's effects end with it.
    return .merge(childEffect, parentEffect, .cancel(id: before))
  }

  /// The child's identity: the parent enum's id if it is `Identifiable`, else the payload's if
  /// it is (as TCA does), else none.
  private static func childID(_ state: Parent.State, _ caseState: Case.State) -> EffectID? {
    EffectID.identity(of: state) ?? EffectID.identity(of: caseState)
  }

  /// The identity of the child in `state`, or `nil` if the state is not the case.
  private static func identity(
    in state: Parent.State, site: CaseSite, toCaseState: CasePath<Parent.State, Case.State>
  ) -> CaseEffects? {
    guard let caseState = toCaseState.extract(state) else { return nil }
    return CaseEffects(site: site, id: childID(state, caseState))
  }

  /// The watch that ends the effects of the child `child` when it is gone, whichever reducer
  /// changed the state.
  private func watch(_ child: CaseEffects) -> ChildWatch {
    let toCaseState = toCaseState
    return ChildWatch(
      key: EffectID(child), state: Parent.State.self, whenGone: [.id(EffectID(child))]
    ) { state in
      Self.identityMatches(state.pointee, child, toCaseState)
        ? .unchanged : .gone([.id(EffectID(child))])
    }
  }

  private static func identityMatches(
    _ state: Parent.State, _ child: CaseEffects, _ toCaseState: CasePath<Parent.State, Case.State>
  ) -> Bool {
    identity(in: state, site: child.site, toCaseState: toCaseState) == child
  }

  /// A case path has no identity of its own: the call site and the case's type name the case
  /// (one `ifCaseLet` line per case).
  struct CaseSite: Hashable, Sendable {
    let fileID: String
    let line: UInt
    let caseState: ObjectIdentifier
  }

  /// Identifies the effects of one child in the case (scoped to the store, like all ids).
  struct CaseEffects: ChildEffectsID {
    let site: CaseSite
    /// The child's id, if it has one (see `childID`).
    let id: EffectID?
  }
}

extension Reducer {
  /// Adds a child reducer for one case of an enum state.
  ///
  /// ```swift
  /// var body: some Reducer<State, Action> {
  ///   Reduce { state, action in … }
  ///     .ifCaseLet(.editing, action: .editor) { Editor() }
  /// }
  /// ```
  ///
  /// For an action of the case, the child runs first, while the state is that case; then this
  /// reducer runs. When the state leaves the case, or holds a child of another id (see below),
  /// at the end of that action, whichever reducer changed it, the child's running effects are
  /// cancelled; an action they send afterwards is dropped, and reported if its sender was not
  /// cancelled with them (see ``StoreIssue/Kind/actionFromDismissedChild(action:)``). A case
  /// action that arrives while the state is another case is ignored and reported to the
  /// store's issue handler.
  ///
  /// The child's identity is the case (this call's file and line, and the case's state type) and
  /// an id: the state's own if the enum is `Identifiable`, else the case's payload's if it is. A
  /// child of another id in the same case is another child: the effects of the one it replaced
  /// end, whichever reducer replaced it, and its actions never reach the new one.
  ///
  /// - Parameters:
  ///   - state: The case of the state that holds the child state.
  ///   - action: The action case that carries the child's actions.
  ///   - child: The child reducer.
  ///   - fileID: The file of the call, named in issues this produces (filled in for you).
  ///   - line: The line of the call (filled in for you).
  public func ifCaseLet<CaseState, CaseAction, Case: Reducer>(
    _ state: CasePath<State, CaseState>,
    action: CasePath<Action, CaseAction>,
    @ReducerBuilder<CaseState, CaseAction> then child: () -> Case,
    fileID: StaticString = #fileID,
    line: UInt = #line
  ) -> IfCaseLetReducer<Self, Case> where CaseState == Case.State, CaseAction == Case.Action {
    IfCaseLetReducer(
      parent: self, child: child(), toCaseState: state, toCaseAction: action,
      fileID: "\(fileID)", line: line)
  }
}
