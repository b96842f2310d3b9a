import CaseStudySupport
import Foundation
import Testing
import TodosCore
import Unidirectional
import UnidirectionalTerminal
import UnidirectionalTesting

/// The UUID `.incrementing` gives at step `n`: `00000000-0000-0000-0000-00000000000n`.
func uuid(_ n: Int) -> UUID {
  let hex = String(n, radix: 16, uppercase: true)
  return UUID(
    uuidString: "00000000-0000-0000-0000-" + String(repeating: "0", count: 12 - hex.count) + hex)!
}

/// Items with ids 100, 101… (so they never collide with ids `.incrementing` gives new items).
func items(_ titles: String...) -> IdentifiedArray<Todo> {
  IdentifiedArray(
    uniqueElements: titles.enumerated().map { Todo(id: uuid(100 + $0.offset), title: $0.element) })
}

/// Where a test's list file lives: in memory, in the test's own `SharedStorage`.
let listPath = "/todos/list.json"

/// A state whose list is kept in the test's list file (``listPath``), starting as `todos`.
func stateWithFile(_ todos: IdentifiedArray<Todo>) -> Todos.State {
  Todos.State(list: TodoFile(path: listPath).sharedList(default: todos))
}

/// The list saved in `storage`'s list file, once every save so far has finished; `nil` if
/// nothing was saved.
func savedList(in storage: SharedStorage) async -> IdentifiedArray<Todo>? {
  await storage.saved()
  return storage.file(listPath).map { try! TodoFile.decode($0, path: listPath) }
}

/// A test store of the whole program whose named observers are the program's own output
/// concerns, with its own shared storage, a test clock and incrementing UUIDs.
func makeStore(
  _ state: @autoclosure () -> Todos.State = Todos.State(),
  clock: TestClock = TestClock(),
  storage: SharedStorage = SharedStorage()
) -> TestStore<Todos.State, Todos.Action> {
  let store = TestStore(initialState: state()) {
    Todos()
  } withDependencies: {
    $0.continuousClock = clock
    $0.uuid = .incrementing
    $0.sharedStorage = storage
  }
  for concern in TodosDisplay.concerns + TodosDisplay.errorConcerns {
    store.observe(concern.name) { _ = concern.render($0, .plain) }
  }
  return store
}

/// Registers an observer named `name` that reads one row the way a row view would: by id, from
/// the root store.
func observeRow(_ name: String, id: Todo.ID, of store: TestStore<Todos.State, Todos.Action>) {
  store.observe(name) { _ = $0[\.todos, id: id] }
}

/// Parses `line` on the store's current screen, failing the test unless it is an action.
func action(_ line: String, _ state: Todos.State) -> Todos.Action? {
  guard case .send(let action) = TodosCommand(line, state: state) else {
    Issue.record("'\(line)' did not parse to an action: \(TodosCommand(line, state: state))")
    return nil
  }
  return action
}
