import Testing
import TodosCore
import Unidirectional

/// Lines typed on the list: each valid one is an action, each bad one a message naming the bad
/// part and the valid forms.
@Suite struct TodosCommandTests {
  let state = Todos.State(todos: items("A", "B"))
  let a = uuid(100)
  let b = uuid(101)

  func invalid(_ line: String) -> String? {
    guard case .invalid(let message) = TodosCommand(line, state: state) else { return nil }
    return message
  }

  @Test func listCommands() {
    #expect(TodosCommand("  add  Buy milk ", state: state) == .send(.addTapped(title: "Buy milk")))
    #expect(
      TodosCommand("done 2", state: state)
        == .send(.todos(.element(id: b, action: .setCompleted(true)))))
    #expect(TodosCommand("delete 1", state: state) == .send(.deleteTapped(id: a)))
    #expect(TodosCommand("move 2 1", state: state) == .send(.moveTapped(id: b, toPositionOf: a)))
    #expect(TodosCommand("filter Completed", state: state) == .send(.filterChanged(.completed)))
    #expect(TodosCommand("help", state: state) == .help)
    #expect(TodosCommand("show", state: state) == .show)
    #expect(TodosCommand("quit", state: state) == .quit)
    #expect(TodosCommand("exit", state: state) == .quit)
    #expect(TodosCommand(" \t ", state: state) == .nothing)
  }

  /// The program reads lines itself, not through a `REPL`: its parser refuses control
  /// characters the same way, before any command is read.
  @Test func aLineWithAControlCharacterIsRefused() {
    #expect(
      invalid("help\u{1B}[A")
        == #"the line 'help\u{1B}[A' contains a control character (\u{1B}); type plain text"#)
    #expect(
      invalid("add \u{9B}2JBuy")
        == #"the line 'add \u{9B}2JBuy' contains a control character (\u{9B}); type plain text"#)
  }

  @Test func badLinesNameTheBadPartAndTheValidForms() {
    #expect(
      invalid("add")
        == "cannot add: the title is empty; write at least one character; e.g. 'add Buy milk'")
    #expect(
      invalid("add " + String(repeating: "x", count: 81))
        == "cannot add: the title is 81 characters long; the limit is 80; e.g. 'add Buy milk'")
    #expect(invalid("done") == "an item number is missing, e.g. 'done 1'; valid numbers: 1-2")
    #expect(invalid("done 3") == "there is no item 3; valid numbers: 1-2")
    #expect(invalid("done x") == "'x' is not an item number; valid numbers: 1-2")
    #expect(invalid("reopen 1") == "item 1 is already not done")
    #expect(
      invalid("move 1")
        == "'move' needs two item numbers: 'move N M' moves item N to position M, e.g. 'move 3 1'"
    )
    #expect(invalid("move 1 9") == "there is no item 9; valid numbers: 1-2")
    #expect(invalid("move 2 2") == "item 2 is already at position 2")
    #expect(
      invalid("filter") == "'filter' needs one of: all, active, completed; e.g. 'filter active'")
    #expect(
      invalid("filter done") == "unknown filter 'done'; valid filters: all, active, completed")
    #expect(invalid("filter all") == "the list already shows all items")
    #expect(invalid("undo") == "nothing to undo: no item was deleted")
    #expect(
      invalid("help me") == "'help' takes no argument; valid here: \(TodosCommand.usage(on: .list))"
    )
    #expect(
      invalid("frobnicate")
        == "unknown command 'frobnicate'; valid here: \(TodosCommand.usage(on: .list))")
    let empty = Todos.State()
    #expect(
      TodosCommand("delete 1", state: empty)
        == .invalid(message: "there is no item 1; the list shows no items"))
  }

  @Test func itemModeCommandsApplyToTheOpenItem() {
    var state = state
    state.path.append(.detail(Detail.State(todoID: b)))
    #expect(
      TodosCommand("done", state: state)
        == .send(.todos(.element(id: b, action: .setCompleted(true)))))
    #expect(TodosCommand("edit", state: state) == .send(.editTapped(id: b)))
    #expect(TodosCommand("delete", state: state) == .send(.deleteTapped(id: b)))
    #expect(
      TodosCommand("tags", state: state)
        == .send(.path(.element(id: 0, action: .detail(.tagsTapped)))))
    #expect(
      TodosCommand("back", state: state)
        == .send(.path(.element(id: 0, action: .detail(.backTapped)))))
    #expect(
      TodosCommand("done 1", state: state)
        == .invalid(
          message: "'done' takes no item number here: it applies to the open item “B”; "
            + "'back' returns to the list"))
    #expect(
      TodosCommand("reopen", state: state) == .invalid(message: "this item is already not done"))
    #expect(
      TodosCommand("add X", state: state)
        == .invalid(
          message: "'add' is a command of the list, not of the item mode; valid here: "
            + TodosCommand.usage(on: .item)))
    #expect(
      TodosCommand("undo", state: state)
        == .invalid(message: "'undo' works on the list; type 'back' to return to it, then 'undo'"))
  }

  @Test func tagsModeCommands() {
    var state = state
    state.todos[id: a]?.tags = ["home"]
    state.path.append(.detail(Detail.State(todoID: a)))
    state.path.append(.tags(TagsMode.State(todoID: a)))
    #expect(
      TodosCommand("tag  Work ", state: state)
        == .send(.todos(.element(id: a, action: .tagAdded("work")))))
    #expect(
      TodosCommand("untag HOME", state: state)
        == .send(.todos(.element(id: a, action: .tagRemoved("home")))))
    #expect(
      TodosCommand("back", state: state)
        == .send(.path(.element(id: 1, action: .tags(.backTapped)))))
    #expect(
      TodosCommand("tag home", state: state) == .invalid(message: "“A” already has the tag 'home'"))
    #expect(
      TodosCommand("tag", state: state) == .invalid(message: "'tag' needs a name, e.g. 'tag home'"))
    #expect(
      TodosCommand("tag a b", state: state)
        == .invalid(
          message: "cannot tag: the tag 'a b' contains ' '; use letters a-z, digits and '-'"))
    let long = String(repeating: "t", count: 21)
    #expect(
      TodosCommand("tag " + long, state: state)
        == .invalid(message: "cannot tag: the tag '\(long)' is 21 characters long; the limit is 20")
    )
    #expect(
      TodosCommand("untag work", state: state)
        == .invalid(message: "“A” has no tag 'work'; its tags: home"))
    state.todos[id: a]?.tags = (0..<Tag.maximumCount).map { "t\($0)" }
    #expect(
      TodosCommand("tag more", state: state)
        == .invalid(message: "an item can have at most 10 tags; 'untag NAME' removes one"))
  }

  @Test func editorCommands() {
    var state = state
    state.editor = Editor.State(id: a, original: "A", draft: "")
    #expect(
      TodosCommand("title  New ", state: state) == .send(.editor(.presented(.titleChanged("New")))))
    // Any draft is sent: the editor itself says what is wrong with it.
    #expect(TodosCommand("title", state: state) == .send(.editor(.presented(.titleChanged("")))))
    #expect(
      TodosCommand("save", state: state)
        == .invalid(
          message: "cannot save: the title is empty; write at least one character; "
            + "'title TEXT' changes it, 'cancel' leaves the item as it was"))
    #expect(TodosCommand("cancel", state: state) == .send(.editor(.presented(.cancelTapped))))
    #expect(TodosCommand("back", state: state) == .send(.editor(.presented(.cancelTapped))))
    state.editor?.draft = "New"
    #expect(TodosCommand("save", state: state) == .send(.editor(.presented(.saveTapped))))
    #expect(
      TodosCommand("done 1", state: state)
        == .invalid(
          message: "'done' is a command of the list, not of the editor; valid here: "
            + TodosCommand.usage(on: .editor)))
  }
}
