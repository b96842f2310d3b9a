import CaseStudySupport
import Unidirectional

/// What the to-do program shows, one concern per observer: each is redrawn only when the values
/// it read changed.
public enum TodosDisplay {
  /// The output concerns, in the order they are drawn after an action.
  public static let concerns: [DisplayConcern<Todos.State, Todos.Action>] = [
    DisplayConcern("list", showsInitialValue: true) { store, terminal in
      guard store.screen == .list else { return nil }
      return list(filter: store.filter, todos: store.todos, terminal: terminal)
    },
    DisplayConcern("item") { store, terminal in
      guard store.screen == .item, let id = store.path.last?.todoID,
        let todo = store[\.todos, id: id]
      else { return nil }
      return item(todo, terminal: terminal)
    },
    DisplayConcern("tags") { store, terminal in
      guard store.screen == .tags, let id = store.path.last?.todoID,
        let todo = store[\.todos, id: id]
      else { return nil }
      return tags(of: todo, terminal: terminal)
    },
    DisplayConcern("editor") { store, terminal in
      store.editor.map { editor(of: $0, terminal: terminal) }
    },
    DisplayConcern("undo") { store, terminal in
      switch store.undo {
      case .available(let todo, _):
        "Deleted “\(todo.title)”. Type 'undo' within \(seconds(Todos.undoWindow)) seconds to "
          + "restore it."
      case .expired(let title):
        terminal.styled("“\(title)” can no longer be restored.", .dim)
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
  public static func list(filter: Filter, todos: IdentifiedArray<Todo>, terminal: Terminal)
    -> String
  {
    let done = todos.count(where: \.isComplete)
    var lines = [
      terminal.styled("To do", .bold) + ": \(todos.count) item\(todos.count == 1 ? "" : "s"), "
        + "\(done) done · showing \(filter.rawValue)"
    ]
    let visible = todos.filter { filter.shows($0) }
    for (offset, todo) in visible.enumerated() {
      lines.append(row(todo, number: offset + 1, terminal: terminal))
    }
    if visible.isEmpty {
      lines.append(
        terminal.styled(
          todos.isEmpty
            ? "  (nothing yet: 'add TITLE' adds an item)"
            : "  (no \(filter.rawValue) items; 'filter all' shows every item)", .dim))
    }
    return lines.joined(separator: "\n")
  }

  /// The item mode: the item's title, status and tags.
  public static func item(_ todo: Todo, terminal: Terminal) -> String {
    """
    \(terminal.styled("Item", .bold)): \(todo.title)
      status: \(todo.isComplete ? terminal.styled("done", .green) : "not done")
      tags: \(tagList(todo, terminal: terminal))
    """
  }

  /// The tags mode: the item's tags.
  public static func tags(of todo: Todo, terminal: Terminal) -> String {
    terminal.styled("Tags", .bold) + " of “\(todo.title)”: " + tagList(todo, terminal: terminal)
  }

  /// The editor: what is edited, the draft, and what is wrong with it.
  public static func editor(of editor: Editor.State, terminal: Terminal) -> String {
    var lines = [
      terminal.styled("Editing", .bold) + " “\(editor.original)” ('title TEXT', then 'save' or "
        + "'cancel')",
      "  new title: " + (editor.draft.isEmpty ? terminal.styled("(empty)", .dim) : editor.draft),
    ]
    if let problem = editor.problem {
      lines.append("  " + terminal.styled("problem: \(problem)", .red))
    }
    return lines.joined(separator: "\n")
  }

  private static func tagList(_ todo: Todo, terminal: Terminal) -> String {
    todo.tags.isEmpty
      ? terminal.styled("none", .dim)
      : todo.tags.map { terminal.styled("#" + $0, .cyan) }.joined(separator: " ")
  }

  /// One item as a line of the list: `  2. [x] Call Ann  #work`.
  public static func row(_ todo: Todo, number: Int, terminal: Terminal) -> String {
    let box = todo.isComplete ? terminal.styled("[x]", .green) : "[ ]"
    let title = todo.isComplete ? terminal.styled(todo.title, .dim) : todo.title
    let tags = todo.tags.map { terminal.styled("#" + $0, .cyan) }.joined(separator: " ")
    let number = String(number)
    let padding = String(repeating: " ", count: max(0, 3 - number.count))
    return padding + number + ". " + box + " " + title + (tags.isEmpty ? "" : "  " + tags)
  }

  /// The current screen drawn in full, for the `show` command.
  public static func screen(of store: Store<Todos.State, Todos.Action>, terminal: Terminal)
    -> String
  {
    let state = store.state
    switch state.screen {
    case .list: return list(filter: state.filter, todos: state.todos, terminal: terminal)
    case .item: return state.modeTodo.map { item($0, terminal: terminal) } ?? ""
    case .tags: return state.modeTodo.map { tags(of: $0, terminal: terminal) } ?? ""
    case .editor: return state.editor.map { editor(of: $0, terminal: terminal) } ?? ""
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
