/// The screen the user is on, which decides the commands they can type and the prompt.
public enum Screen: Equatable, Sendable {
  /// The list of items.
  case list
}

extension Todos.State {
  /// The screen shown for this state.
  public var screen: Screen {
    .list
  }
}
