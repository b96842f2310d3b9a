import CaseStudySupport
import Unidirectional

// Reading each command's arguments against the state, with the message for each mistake.

extension TodosCommand {
  /// A command not available here: where it is available if anywhere, and what is valid here.
  static func unknown(_ command: Substring, on screen: Screen) -> Self {
    let valid = "valid here: \(usage(on: screen))"
    let word = String(command)
    if let other = Screen.allCases.first(where: {
      $0 != screen
        && usage(on: $0).split(separator: ",").contains {
          $0.trimmed.hasPrefix(word + " ") || $0.trimmed == word
        }
    }) {
      return .invalid(
        message: "'\(word)' is a command of \(other.name), not of \(screen.name); \(valid)")
    }
    return .invalid(message: "unknown command '\(command.truncatedForDisplay())'; \(valid)")
  }

  static func undo(_ state: Todos.State) -> Self {
    switch state.undo {
    case .available: .send(.undoTapped)
    case .expired(let title):
      .invalid(
        message: "nothing to undo: “\(title.truncatedForDisplay())” was deleted more than "
          + "\(seconds(Todos.undoWindow)) seconds ago")
    case nil: .invalid(message: "nothing to undo: no item was deleted")
    }
  }

  static func list(_ command: Substring, _ argument: Substring, _ state: Todos.State)
    throws(Invalid) -> Self?
  {
    switch command {
    case "add":
      if let problem = Title.problem(with: argument) {
        throw Invalid("cannot add: \(problem); e.g. 'add Buy milk'")
      }
      return .send(.addTapped(title: String(argument)))
    case "done", "reopen":
      let todo = try item(argument, in: state, example: "\(command) 1")
      return try completion(command, todo, name: "item \(argument)")
    case "delete":
      return .send(.deleteTapped(id: try item(argument, in: state, example: "delete 1").id))
    case "edit":
      return .send(.editTapped(id: try item(argument, in: state, example: "edit 1").id))
    case "open":
      return .send(.openTapped(id: try item(argument, in: state, example: "open 1").id))
    case "back":
      guard argument.isEmpty else { throw Invalid(noArgumentMessage(command, on: .list)) }
      throw Invalid("already at the list; 'quit' leaves the program")
    case "move":
      let parts = argument.split(whereSeparator: \.isWhitespace)
      let example = "move 3 1"
      guard parts.count == 2 else {
        throw Invalid(
          "'move' needs two item numbers: 'move N M' moves item N to position M, e.g. "
            + "'\(example)'")
      }
      let todo = try item(parts[0], in: state, example: example)
      let target = try item(parts[1], in: state, example: example)
      guard todo.id != target.id else {
        throw Invalid("item \(parts[0]) is already at position \(parts[1])")
      }
      return .send(.moveTapped(id: todo.id, toPositionOf: target.id))
    case "filter":
      let valid = Filter.allCases.map(\.rawValue).joined(separator: ", ")
      guard !argument.isEmpty else {
        throw Invalid("'filter' needs one of: \(valid); e.g. 'filter active'")
      }
      guard let filter = Filter(rawValue: argument.lowercased()) else {
        throw Invalid(
          "unknown filter '\(argument.truncatedForDisplay())'; valid filters: \(valid)")
      }
      guard filter != state.filter else {
        throw Invalid("the list already shows \(filter.rawValue) items")
      }
      return .send(.filterChanged(filter))
    default:
      return nil
    }
  }

  /// `done` or `reopen` of `todo`, unless it is already so.
  private static func completion(_ command: Substring, _ todo: Todo, name: String)
    throws(Invalid) -> Self
  {
    let isDone = command == "done"
    guard todo.isComplete != isDone else {
      throw Invalid("\(name) is already \(isDone ? "done" : "not done")")
    }
    return .send(.todos(.element(id: todo.id, action: .setCompleted(isDone))))
  }

  static func item(_ command: Substring, _ argument: Substring, _ state: Todos.State)
    throws(Invalid) -> Self?
  {
    guard let id = state.path.ids.last, let todo = state.modeTodo else { return nil }
    let commands: Set<Substring> = ["done", "reopen", "edit", "delete", "tags", "back"]
    guard commands.contains(command) else { return nil }
    guard argument.isEmpty else {
      throw Invalid(
        "'\(command)' takes no item number here: it applies to the open item "
          + "“\(todo.title.truncatedForDisplay())”; 'back' returns to the list")
    }
    switch command {
    case "done", "reopen": return try completion(command, todo, name: "this item")
    case "edit": return .send(.editTapped(id: todo.id))
    case "delete": return .send(.deleteTapped(id: todo.id))
    case "tags": return .send(.path(.element(id: id, action: .detail(.tagsTapped))))
    default: return .send(.path(.element(id: id, action: .detail(.backTapped))))
    }
  }

  static func tags(_ command: Substring, _ argument: Substring, _ state: Todos.State)
    throws(Invalid) -> Self?
  {
    guard let id = state.path.ids.last, let todo = state.modeTodo else { return nil }
    switch command {
    case "tag":
      let tag = Tag.normalized(argument)
      guard !argument.isEmpty else { throw Invalid("'tag' needs a name, e.g. 'tag home'") }
      if let problem = Tag.problem(with: tag) { throw Invalid("cannot tag: \(problem)") }
      guard !todo.tags.contains(tag) else {
        throw Invalid("“\(todo.title.truncatedForDisplay())” already has the tag '\(tag)'")
      }
      guard todo.tags.count < Tag.maximumCount else {
        throw Invalid(
          "an item can have at most \(Tag.maximumCount) tags; 'untag NAME' removes one")
      }
      return .send(.todos(.element(id: todo.id, action: .tagAdded(tag))))
    case "untag":
      guard !argument.isEmpty else { throw Invalid("'untag' needs a name, e.g. 'untag home'") }
      let tag = Tag.normalized(argument)
      guard todo.tags.contains(tag) else {
        let tags =
          todo.tags.isEmpty ? "it has none" : "its tags: \(todo.tags.joined(separator: ", "))"
        throw Invalid(
          "“\(todo.title.truncatedForDisplay())” has no tag '\(tag.truncatedForDisplay())'; \(tags)"
        )
      }
      return .send(.todos(.element(id: todo.id, action: .tagRemoved(tag))))
    case "back":
      guard argument.isEmpty else { throw Invalid(noArgumentMessage(command, on: .tags)) }
      return .send(.path(.element(id: id, action: .tags(.backTapped))))
    default:
      return nil
    }
  }

  static func editor(_ command: Substring, _ argument: Substring, _ state: Todos.State)
    throws(Invalid) -> Self?
  {
    guard let editor = state.editor else { return nil }
    switch command {
    case "title":
      // Any text: the editor checks it and shows what is wrong; 'save' refuses it.
      return .send(.editor(.presented(.titleChanged(String(argument)))))
    case "save":
      guard argument.isEmpty else { throw Invalid(noArgumentMessage(command, on: .editor)) }
      if let problem = Title.problem(with: editor.draft) {
        throw Invalid(
          "cannot save: \(problem); 'title TEXT' changes it, 'cancel' leaves the item as it was")
      }
      return .send(.editor(.presented(.saveTapped)))
    case "cancel", "back":
      guard argument.isEmpty else { throw Invalid(noArgumentMessage(command, on: .editor)) }
      return .send(.editor(.presented(.cancelTapped)))
    default:
      return nil
    }
  }

  /// The item shown at position `text` (from 1).
  ///
  /// - Throws: A message naming the bad number and the valid ones.
  static func item(_ text: Substring, in state: Todos.State, example: String)
    throws(Invalid) -> Todo
  {
    let visible = state.visibleTodos
    let range =
      visible.isEmpty
      ? "the list shows no items" : "valid numbers: 1-\(visible.count)"
    guard !text.isEmpty else {
      throw Invalid("an item number is missing, e.g. '\(example)'; \(range)")
    }
    guard let number = Int(text) else {
      throw Invalid("'\(text.truncatedForDisplay())' is not an item number; \(range)")
    }
    guard number >= 1, number <= visible.count else {
      throw Invalid("there is no item \(number); \(range)")
    }
    return visible[number - 1]
  }

  /// Why a line cannot be used.
  struct Invalid: Error {
    let message: String
    init(_ message: String) { self.message = message }
  }

  static func noArgument(_ command: Substring, on screen: Screen) -> Self {
    .invalid(message: noArgumentMessage(command, on: screen))
  }

  private static func noArgumentMessage(_ command: Substring, on screen: Screen) -> String {
    "'\(command)' takes no argument; valid here: \(usage(on: screen))"
  }

  static func seconds(_ duration: Duration) -> Int {
    Int(duration.components.seconds)
  }
}
