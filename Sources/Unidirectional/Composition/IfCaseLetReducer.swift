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
  /// cancels the case's effects if the state left the case.
  ///
  /// - Parameters:
  ///   - state: The current state, changed in place.
  ///   - action: The action to handle.
  /// - Returns: The effects to start once the new state is committed.
  public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action>
  {
    // A case path has no identity of its own: the call site and the case's type name the case
    // (one `ifCaseLet` line per case).
    let effects = CaseEffects(
      fileID: fileID, line: line, caseState: ObjectIdentifier(Case.State.self))
    var childEffect = Effect<Parent.Action>.none
    var wasInCase = false
    if let caseAction = toCaseAction.extract(action) {
      if var caseState = toCaseState.extract(state) {
        wasInCase = true
        childEffect = child.reduce(into: &caseState, action: caseAction)
          .map(
            toCaseAction.embed,
            child: NavigationChild(
              scope: nil, dismissAction: nil, compositionScope: EffectID(effects))
          )
          .cancellable(id: effects)
        state = toCaseState.embed(caseState)
      } else {
        childEffect = .actionWithoutState(
          action,
          state:
            "case \(ValueDump.typeName(Case.State.self)) of \(ValueDump.typeName(Parent.State.self))",
          fileID: fileID, line: line)
      }
    } else {
      wasInCase = toCaseState.extract(state) != nil
    }
    let parentEffect = parent.reduce(into: &state, action: action)
    guard wasInCase, toCaseState.extract(state) == nil else {
      return childEffect.merge(with: parentEffect)
    }
    // The state left the case: the case's effects end with it.
    return .merge(childEffect, parentEffect, .cancel(id: effects))
  }

  /// Identifies the effects of one case (scoped to the store, like all ids).
  struct CaseEffects: ChildEffectsID {
    let fileID: String
    let line: UInt
    let caseState: ObjectIdentifier
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
  /// reducer runs. When the state leaves the case (to another case, whoever changes it), the
  /// case's running effects are cancelled, and an action they send afterwards is reported (see
  /// ``StoreIssue/Kind/actionFromDismissedChild(action:)``). A case action that arrives while the
  /// state is another case is ignored and reported to the store's issue handler.
  ///
  /// The case's effects are identified by the case's state type and this call's file and line.
  /// The state returning to the case later, with new effects, is the same case: an action an old
  /// effect sends after that is still dropped, but no longer reported.
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
