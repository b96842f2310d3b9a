import CaseStudySupport
import Unidirectional
import UnidirectionalTerminal

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
    // The program reads lines in a loop of its own, not a `REPL`: it refuses an escape sequence
    // (an arrow key, a paste) the way a `REPL` does, before anything could store or echo it.
    if let problem = InputLine.controlCharacterProblem(in: line) {
      self = .invalid(message: problem)
      return
    }
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
}
