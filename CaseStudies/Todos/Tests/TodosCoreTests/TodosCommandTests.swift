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
    #expect(TodosCommand(" \t ", state: state) == .nothing)
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
}
