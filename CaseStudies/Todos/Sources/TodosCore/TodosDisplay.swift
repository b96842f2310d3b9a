import Unidirectional
import UnidirectionalTerminal

/// What the to-do program shows, one concern per observer: each is redrawn only when the values
/// it read changed.
public enum TodosDisplay {
  /// The output concerns, in the order they are drawn after an action.
  public static let concerns: [DisplayConcern<Todos.State, Todos.Action>] = [
    DisplayConcern("list", showsInitialValue: true) { store, styler in
      guard store.screen == .list else { return nil }
      return list(filter: store.filter, todos: store.todos, styler: styler)
    },
    DisplayConcern("item") { store, styler in
      guard store.screen == .item, let id = store.path.last?.todoID,
        let todo = store[\.todos, id: id]
      else { return nil }
      return item(todo, styler: styler)
    },
    DisplayConcern("tags") { store, styler in
      guard store.screen == .tags, let id = store.path.last?.todoID,
        let todo = store[\.todos, id: id]
      else { return nil }
      return tags(of: todo, styler: styler)
    },
    DisplayConcern("editor") { store, styler in
      store.editor.map { editor(of: $0, styler: styler) }
    },
    DisplayConcern("undo") { store, styler in
      switch store.undo {
      case .available(let todo, _):
        "Deleted “\(todo.title)”. Type 'undo' within \(seconds(Todos.undoWindow)) seconds to "
          + "restore it."
      case .expired(let title):
        styler.styled("“\(title)” can no longer be restored.", .dim)
      case nil:
        nil
      }
    },
  ]

  /// The error concerns, drawn as error lines.
  public static let errorConcerns: [DisplayConcern<Todos.State, Todos.Action>] = [
    DisplayConcern("save error") { store, _ in
      store.saveError.map { "the list was not saved: \($0)" }
    }
  ]

  /// The list screen: a header, then the items the filter shows, numbered from 1.
  public static func list(filter: Filter, todos: IdentifiedArray<Todo>, styler: Styler)
    -> String
  {
    let done = todos.count(where: \.isComplete)
    var lines = [
      styler.styled("To do", .bold) + ": \(todos.count) item\(todos.count == 1 ? "" : "s"), "
        + "\(done) done · showing \(filter.rawValue)"
    ]
    let visible = todos.filter { filter.shows($0) }
    for (offset, todo) in visible.enumerated() {
      lines.append(row(todo, number: offset + 1, styler: styler))
    }
    if visible.isEmpty {
      lines.append(
        styler.styled(
          todos.isEmpty
            ? "  (nothing yet: 'add TITLE' adds an item)"
            : "  (no \(filter.rawValue) items; 'filter all' shows every item)", .dim))
    }
    return lines.joined(separator: "\n")
  }

  /// The item mode: the item's title, status and tags.
  public static func item(_ todo: Todo, styler: Styler) -> String {
    """
    \(styler.styled("Item", .bold)): \(todo.title)
      status: \(todo.isComplete ? styler.styled("done", .green) : "not done")
      tags: \(tagList(todo, styler: styler))
    """
  }

  /// The tags mode: the item's tags.
  public static func tags(of todo: Todo, styler: Styler) -> String {
    styler.styled("Tags", .bold) + " of “\(todo.title)”: " + tagList(todo, styler: styler)
  }

  /// The editor: what is edited, the draft, and what is wrong with it.
  public static func editor(of editor: Editor.State, styler: Styler) -> String {
    var lines = [
      styler.styled("Editing", .bold) + " “\(editor.original)” ('title TEXT', then 'save' or "
        + "'cancel')",
      "  new title: " + (editor.draft.isEmpty ? styler.styled("(empty)", .dim) : editor.draft),
    ]
    if let problem = editor.problem {
      lines.append("  " + styler.styled("problem: \(problem)", .red))
    }
    return lines.joined(separator: "\n")
  }

  private static func tagList(_ todo: Todo, styler: Styler) -> String {
    todo.tags.isEmpty
      ? styler.styled("none", .dim)
      : todo.tags.map { styler.styled("#" + $0, .cyan) }.joined(separator: " ")
  }

  /// One item as a line of the list: `  2. [x] Call Ann  #work`.
  public static func row(_ todo: Todo, number: Int, styler: Styler) -> String {
    let box = todo.isComplete ? styler.styled("[x]", .green) : "[ ]"
    let title = todo.isComplete ? styler.styled(todo.title, .dim) : todo.title
    let tags = todo.tags.map { styler.styled("#" + $0, .cyan) }.joined(separator: " ")
    let number = String(number)
    let padding = String(repeating: " ", count: max(0, 3 - number.count))
    return padding + number + ". " + box + " " + title + (tags.isEmpty ? "" : "  " + tags)
  }

  /// The current screen drawn in full, for the `show` command.
  public static func screen(of store: Store<Todos.State, Todos.Action>, styler: Styler)
    -> String
  {
    let state = store.state
    switch state.screen {
    case .list: return list(filter: state.filter, todos: state.todos, styler: styler)
    case .item: return state.modeTodo.map { item($0, styler: styler) } ?? ""
    case .tags: return state.modeTodo.map { tags(of: $0, styler: styler) } ?? ""
    case .editor: return state.editor.map { editor(of: $0, styler: styler) } ?? ""
    }
  }

  /// The prompt shown on `screen`.
  public static func prompt(on screen: Screen) -> String {
    switch screen {
    case .list: "todos> "
    case .item: "todos/item> "
    case .tags: "todos/item/tags> "
    case .editor: "todos/edit> "
    }
  }

  static func seconds(_ duration: Duration) -> Int {
    Int(duration.components.seconds)
  }
}
