/// The actions of a stack of child features (a ``StackState``), as their parent's action carries
/// them. Drive the stack with ``Reducer/forEach(_:action:destination:fileID:line:)``.
///
/// ```swift
/// enum Action: Sendable {
///   case path(StackAction<Path.State, Path.Action>)
/// }
/// ```
public enum StackAction<State, Action> {
  /// An action of the element with id `id`. Sent while no element has that id, it is ignored
  /// and reported (see ``StoreIssue``).
  case element(id: StackElementID, action: Action)

  /// Pops the element with id `id` and every element above it, after the parent reduced this
  /// action. A stack element's `dismiss()` sends it.
  case popFrom(id: StackElementID)

  /// Pushes `state` with id `id`, after the parent reduced this action. `id` must not have been
  /// used in the stack yet (the next one is the stack's ``StackState/nextID``); otherwise the
  /// push is ignored and reported.
  case push(id: StackElementID, state: State)
}

extension StackAction: Sendable where State: Sendable, Action: Sendable {}
extension StackAction: Equatable where State: Equatable, Action: Equatable {}
extension StackAction: Hashable where State: Hashable, Action: Hashable {}
