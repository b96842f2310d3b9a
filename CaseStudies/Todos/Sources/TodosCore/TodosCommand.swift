import CaseStudySupport
import Unidirectional

/// One line of user input to the to-do program, parsed for the screen it was typed on.
///
/// Input that cannot apply now (an item number that is not shown, a move onto itself, `undo`
/// with nothing to restore) is `invalid` with a message that names the bad part and the valid
/// forms, so the state never changes on bad input. A command means the same on every screen
/// that has it (`back`, `help`, `show`, `quit`, `undo` everywhere; `done`, `edit`, `delete`
/// act on item N on the list and on the shown item in item mode).
public enum TodosCommand: Equatable, Sendable {
  /// Send this action to the store.
  case send(Todos.Action)
  /// Show the current screen again.
  case show
  /// Show the commands of the current screen.
  case help
  /// Leave the program.
  case quit
  /// Nothing to do (an empty or all-blank line).
  case nothing
  /// The line cannot be used now; `message` says why and what is allowed.
  case invalid(message: String)

  /// The commands of each screen, for help and error messages.
  public static func usage(on screen: Screen) -> String {
    switch screen {
    case .list:
      "add TITLE, edit N, done N, reopen N, delete N, undo, move N M, "
        + "filter all|active|completed, open N, show, help, quit"
    case .item: "done, reopen, edit, delete, tags, back, show, help, quit"
    case .tags: "tag NAME, untag NAME, back, show, help, quit"
    case .editor: "title TEXT, save, cancel, back, show, help, quit"
    }
  }

  /// What each command of a screen does, one per line.
  public static func commandList(on screen: Screen) -> String {
    switch screen {
    case .list:
      """
      add TITLE        add an item at the end (1 to \(Title.maximumLength) characters)
      edit N           change the title of item N in the editor
      done N           mark item N done
      reopen N         mark item N not done
      delete N         delete item N ('undo' restores it for \(seconds(Todos.undoWindow)) seconds)
      undo             restore the item deleted last
      move N M         move item N to position M
      filter F         show all, active or completed items (N counts the items shown)
      open N           open item N: its status and tags
      show             show the list again
      help             these commands
      quit, exit       leave (so does the end of input); the list is saved after every change
      """
    case .item:
      """
      done             mark this item done
      reopen           mark this item not done
      edit             change its title in the editor
      delete           delete it and return to the list ('undo' there restores it)
      tags             add or remove its tags
      back             return to the list
      show             show the item again
      help             these commands
      quit, exit       leave the program
      """
    case .tags:
      """
      tag NAME         add a tag (letters a-z, digits and '-', up to \(Tag.maximumLength) characters;
                       at most \(Tag.maximumCount) tags)
      untag NAME       remove a tag
      back             return to the item
      show             show the tags again
      help             these commands
      quit, exit       leave the program
      """
    case .editor:
      """
      title TEXT       the new title (checked at once: 1 to \(Title.maximumLength) characters)
      save             save the new title and close the editor
      cancel, back     close the editor without saving
      show             show the editor again
      help             these commands
      quit, exit       leave the program (the title is not saved)
      """
    }
  }

  /// Parses one line typed on the screen of `state`.
  ///
  /// - Parameters:
  ///   - line: The line, without its newline.
  ///   - state: The program's state when the line is read.
  public init(_ line: String, state: Todos.State) {
    let (command, argument) = line.commandAndArgument
    let screen = state.screen
    switch command {
    case "":
      self = .nothing
      return
    case "help", "show", "quit", "exit":
      guard argument.isEmpty else {
        self = Self.noArgument(command, on: screen)
        return
      }
      self = command == "help" ? .help : command == "show" ? .show : .quit
      return
    case "undo":
      guard argument.isEmpty else {
        self = Self.noArgument(command, on: screen)
        return
      }
      guard screen == .list else {
        self = .invalid(
          message: "'undo' works on the list; type 'back' to return to it, then 'undo'")
        return
      }
      self = Self.undo(state)
      return
    default:
      break
    }
    do {
      let parsed: Self?
      switch screen {
      case .list: parsed = try Self.list(command, argument, state)
      case .item: parsed = try Self.item(command, argument, state)
      case .tags: parsed = try Self.tags(command, argument, state)
      case .editor: parsed = try Self.editor(command, argument, state)
      }
      self = parsed ?? Self.unknown(command, on: screen)
    } catch {
      self = .invalid(message: error.message)
    }
  }

  /// A command not available here: where it is available if anywhere, and what is valid here.
  private static func unknown(_ command: Substring, on screen: Screen) -> Self {
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

  private static func undo(_ state: Todos.State) -> Self {
    switch state.undo {
    case .available: .send(.undoTapped)
    case .expired(let title):
      .invalid(
        message: "nothing to undo: “\(title.truncatedForDisplay())” was deleted more than "
          + "\(seconds(Todos.undoWindow)) seconds ago")
    case nil: .invalid(message: "nothing to undo: no item was deleted")
    }
  }

  private static func list(_ command: Substring, _ argument: Substring, _ state: Todos.State)
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

  private static func item(_ command: Substring, _ argument: Substring, _ state: Todos.State)
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

  private static func tags(_ command: Substring, _ argument: Substring, _ state: Todos.State)
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

  private static func editor(_ command: Substring, _ argument: Substring, _ state: Todos.State)
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
  private static func item(_ text: Substring, in state: Todos.State, example: String)
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

  private static func noArgument(_ command: Substring, on screen: Screen) -> Self {
    .invalid(message: noArgumentMessage(command, on: screen))
  }

  private static func noArgumentMessage(_ command: Substring, on screen: Screen) -> String {
    "'\(command)' takes no argument; valid here: \(usage(on: screen))"
  }

  private static func seconds(_ duration: Duration) -> Int {
    Int(duration.components.seconds)
  }
}
