/// The screen the user is on, which decides the commands they can type and the prompt.
public enum Screen: Equatable, Sendable, CaseIterable {
  /// The list of items.
  case list
  /// One item (the item mode).
  case item
  /// One item's tags (the tags mode).
  case tags
  /// The title editor, presented over the list or an item.
  case editor

  /// The screen's name in messages.
  public var name: String {
    switch self {
    case .list: "the list"
    case .item: "the item mode"
    case .tags: "the tags mode"
    case .editor: "the editor"
    }
  }
}

extension Todos.State {
  /// The screen shown for this state: the editor if presented, else the top mode, else the list.
  public var screen: Screen {
    if editor != nil { return .editor }
    switch path.last {
    case .detail: return .item
    case .tags: return .tags
    case nil: return .list
    }
  }

  /// The item of the top mode, if a mode is open and its item still exists.
  public var modeTodo: Todo? {
    path.last.flatMap { todos[id: $0.todoID] }
  }
}
