/// The actions of a presented child feature, as its parent's action carries them: the child's
/// own actions while it is presented, and its dismissal.
///
/// ```swift
/// enum Action: Sendable {
///   case editor(PresentationAction<Editor.Action>)
/// }
/// ```
public enum PresentationAction<Action> {
  /// An action of the presented child. Sent while nothing is presented, it is ignored and
  /// reported (see ``StoreIssue``).
  case presented(Action)

  /// Dismisses the child: the parent reduces it first, then the presentation ends (its state
  /// becomes `nil` and its effects are cancelled). The child's `dismiss()` sends it.
  case dismiss
}

extension PresentationAction: Sendable where Action: Sendable {}
extension PresentationAction: Equatable where Action: Equatable {}
extension PresentationAction: Hashable where Action: Hashable {}
