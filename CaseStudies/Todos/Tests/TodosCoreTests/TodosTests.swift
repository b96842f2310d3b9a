import Foundation
import Testing
import TodosCore
import Unidirectional
import UnidirectionalTesting

/// The list: every step asserts the state, the actions effects fed back, which parts of the
/// output were redrawn, and what was saved.
@Suite struct TodosTests {
  let a = uuid(100)
  let b = uuid(101)
  let c = uuid(102)

  @Test func addAppendsATrimmedItemAndSavesTheList() async {
    let storage = SharedStorage()
    let store = makeStore(stateWithFile([]), storage: storage)
    await store.send(.addTapped(title: "  Buy milk "), fires: ["list"]) {
      $0.todos.append(Todo(id: uuid(0), title: "Buy milk"))
    }
    await store.send(.addTapped(title: "Call Ann"), fires: ["list"]) {
      $0.todos.append(Todo(id: uuid(1), title: "Call Ann"))
    }
    #expect(await savedList(in: storage)?.map(\.title) == ["Buy milk", "Call Ann"])
    await store.finish()
  }

  @Test func anInvalidTitleAddsNothingAndSavesNothing() async {
    let storage = SharedStorage()
    let store = makeStore(stateWithFile([]), storage: storage)
    await store.send(.addTapped(title: "   "))
    await store.send(.addTapped(title: String(repeating: "x", count: Title.maximumLength + 1)))
    await store.send(.addTapped(title: "tab\u{7}bell"))
    #expect(await savedList(in: storage) == nil)
    await store.finish()
  }

  @Test func completingOneRowDoesNotFireAnotherRowsObserver() async {
    let storage = SharedStorage()
    let store = makeStore(stateWithFile(items("A", "B")), storage: storage)
    observeRow("row A", id: a, of: store)
    observeRow("row B", id: b, of: store)

    await store.send(
      .todos(.element(id: a, action: .setCompleted(true))), fires: ["list", "row A"]
    ) {
      $0.todos[id: a]?.isComplete = true
    }
    await store.send(
      .todos(.element(id: b, action: .setCompleted(true))), fires: ["list", "row B"]
    ) {
      $0.todos[id: b]?.isComplete = true
    }
    await store.send(
      .todos(.element(id: a, action: .setCompleted(false))), fires: ["list", "row A"]
    ) {
      $0.todos[id: a]?.isComplete = false
    }
    #expect(await savedList(in: storage)?.map(\.isComplete) == [false, true])
    await store.finish()
  }

  @Test func deleteThenUndoWithinTheWindowRestoresTheItemWhereItWas() async {
    let clock = TestClock()
    let storage = SharedStorage()
    let store = makeStore(stateWithFile(items("A", "B", "C")), clock: clock, storage: storage)
    observeRow("row B", id: b, of: store)
    observeRow("row C", id: c, of: store)

    await store.send(.deleteTapped(id: b), fires: ["list", "undo", "row B"]) {
      $0.todos.remove(id: b)
      $0.undo = .available(Todo(id: b, title: "B"), index: 1)
    }
    #expect(await savedList(in: storage)?.map(\.title) == ["A", "C"])
    await clock.advance(by: .seconds(4))
    await store.send(.undoTapped, fires: ["list", "undo", "row B"]) {
      $0.todos.insert(Todo(id: b, title: "B"), at: 1)
      $0.undo = nil
    }
    #expect(await savedList(in: storage)?.map(\.title) == ["A", "B", "C"])
    // The timer was cancelled: nothing expires later.
    await clock.advance(by: .seconds(10))
    await store.finish()
  }

  @Test func theUndoExpiresAfterItsWindow() async {
    let clock = TestClock()
    let store = makeStore(Todos.State(todos: items("A", "B")), clock: clock)

    await store.send(.deleteTapped(id: a), fires: ["list", "undo"]) {
      $0.todos.remove(id: a)
      $0.undo = .available(Todo(id: a, title: "A"), index: 0)
    }
    await clock.advance(by: Todos.undoWindow - .milliseconds(1))
    await clock.advance(by: .milliseconds(1))
    await store.receive(.undoExpired, fires: ["undo"]) {
      $0.undo = .expired(title: "A")
    }
    // Too late: the command is refused with a message, and the action changes nothing.
    #expect(
      TodosCommand("undo", state: store.state)
        == .invalid(message: "nothing to undo: “A” was deleted more than 5 seconds ago"))
    await store.send(.undoTapped)
    await store.finish()
  }

  @Test func aSecondDeleteReplacesTheUndoAndRestartsItsTimer() async {
    let clock = TestClock()
    let store = makeStore(Todos.State(todos: items("A", "B")), clock: clock)

    await store.send(.deleteTapped(id: a), fires: ["list", "undo"]) {
      $0.todos.remove(id: a)
      $0.undo = .available(Todo(id: a, title: "A"), index: 0)
    }
    await clock.advance(by: .seconds(3))
    await store.send(.deleteTapped(id: b), fires: ["list", "undo"]) {
      $0.todos.remove(id: b)
      $0.undo = .available(Todo(id: b, title: "B"), index: 0)
    }
    await clock.advance(by: .seconds(3))
    await clock.advance(by: .seconds(2))
    await store.receive(.undoExpired, fires: ["undo"]) {
      $0.undo = .expired(title: "B")
    }
    await store.finish()
  }

  @Test func exitingStopsTheUndoTimer() async {
    let store = makeStore(Todos.State(todos: items("A")))
    await store.send(.deleteTapped(id: a), fires: ["list", "undo"]) {
      $0.todos.remove(id: a)
      $0.undo = .available(Todo(id: a, title: "A"), index: 0)
    }
    await store.send(.exiting)
    await store.finish()
  }

  @Test func moveReordersWithoutRedrawingAnyRow() async {
    let storage = SharedStorage()
    let store = makeStore(stateWithFile(items("A", "B", "C")), storage: storage)
    observeRow("row A", id: a, of: store)
    observeRow("row C", id: c, of: store)

    // Down: A takes C's place, after it.
    await store.send(.moveTapped(id: a, toPositionOf: c), fires: ["list"]) {
      $0.todos = IdentifiedArray(uniqueElements: [
        Todo(id: b, title: "B"), Todo(id: c, title: "C"), Todo(id: a, title: "A"),
      ])
    }
    // Up: A takes B's place, before it.
    await store.send(.moveTapped(id: a, toPositionOf: b), fires: ["list"]) {
      $0.todos = IdentifiedArray(uniqueElements: [
        Todo(id: a, title: "A"), Todo(id: b, title: "B"), Todo(id: c, title: "C"),
      ])
    }
    #expect(await savedList(in: storage)?.map(\.title) == ["A", "B", "C"])
    await store.finish()
  }

  @Test func filterChangesWhatIsShownAndWhatNumbersMean() async {
    var list = items("A", "B", "C")
    list[id: b]?.isComplete = true
    let storage = SharedStorage()
    let store = makeStore(stateWithFile(list), storage: storage)

    await store.send(.filterChanged(.active), fires: ["list"]) { $0.filter = .active }
    #expect(store.state.visibleTodos.map(\.title) == ["A", "C"])
    // "done 2" under the active filter is C, the second shown item.
    #expect(action("done 2", store.state) == .todos(.element(id: c, action: .setCompleted(true))))
    await store.send(.filterChanged(.completed), fires: ["list"]) { $0.filter = .completed }
    #expect(store.state.visibleTodos.map(\.title) == ["B"])
    #expect(
      TodosCommand("done 2", state: store.state)
        == .invalid(message: "there is no item 2; valid numbers: 1-1"))
    // The filter is not part of the file.
    #expect(await savedList(in: storage) == nil)
    await store.finish()
  }

  @Test func aFailedSaveIsShownAsAnError() async {
    // The program sends `saveFailed` with what the library reported (see `main.swift`).
    let reported = SharedStorageError.unwritable(path: "/x/todos.json", reason: "disk full")
    let message = TodoFileError(reported).description
    #expect(message == "cannot save /x/todos.json: disk full")
    let store = makeStore()
    await store.send(.saveFailed(message), fires: ["save error"]) {
      $0.saveError = "cannot save /x/todos.json: disk full"
    }
    await store.finish()
  }

  @Test func aListChangedByAnotherProgramLeavesWhatShowedAGoneItem() async {
    let storage = SharedStorage()
    let store = TestStore(initialState: stateWithFile(items("A", "B"))) {
      Todos.receivingList()
    } withDependencies: {
      $0.uuid = .incrementing
      $0.continuousClock = TestClock()
      $0.sharedStorage = storage
    }
    await store.send(.openTapped(id: b)) {
      $0.path.append(.detail(Detail.State(todoID: b)))
    }
    await store.send(.path(.element(id: 0, action: .detail(.tagsTapped)))) {
      $0.path.append(.tags(TagsMode.State(todoID: b)))
    }
    // Another program kept only A.
    storage.setFile(listPath, to: TodoFile.encode(items("A")))
    await store.receive(.listChanged(SharedChange(value: items("A"), version: 1))) {
      $0.list.withLock { $0 = items("A") }
      $0.path = StackState()
    }
    await store.finish()
  }
}
