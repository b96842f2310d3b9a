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
    let saved = SavedLists()
    let store = makeStore(saved: saved)
    await store.send(.addTapped(title: "  Buy milk "), fires: ["list"]) {
      $0.todos.append(Todo(id: uuid(0), title: "Buy milk"))
    }
    await store.send(.addTapped(title: "Call Ann"), fires: ["list"]) {
      $0.todos.append(Todo(id: uuid(1), title: "Call Ann"))
    }
    #expect(saved.all.map { $0.map(\.title) } == [["Buy milk"], ["Buy milk", "Call Ann"]])
    await store.finish()
  }

  @Test func anInvalidTitleAddsNothingAndSavesNothing() async {
    let saved = SavedLists()
    let store = makeStore(saved: saved)
    await store.send(.addTapped(title: "   "))
    await store.send(.addTapped(title: String(repeating: "x", count: Title.maximumLength + 1)))
    await store.send(.addTapped(title: "tab\u{7}bell"))
    #expect(saved.all.isEmpty)
    await store.finish()
  }

  @Test func completingOneRowDoesNotFireAnotherRowsObserver() async {
    let saved = SavedLists()
    let store = makeStore(Todos.State(todos: items("A", "B")), saved: saved)
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
    #expect(saved.last?.map(\.isComplete) == [false, true])
    await store.finish()
  }

  @Test func deleteThenUndoWithinTheWindowRestoresTheItemWhereItWas() async {
    let clock = TestClock()
    let saved = SavedLists()
    let store = makeStore(Todos.State(todos: items("A", "B", "C")), clock: clock, saved: saved)
    observeRow("row B", id: b, of: store)
    observeRow("row C", id: c, of: store)

    await store.send(.deleteTapped(id: b), fires: ["list", "undo", "row B"]) {
      $0.todos.remove(id: b)
      $0.undo = .available(Todo(id: b, title: "B"), index: 1)
    }
    #expect(saved.last?.map(\.title) == ["A", "C"])
    await clock.advance(by: .seconds(4))
    await store.send(.undoTapped, fires: ["list", "undo", "row B"]) {
      $0.todos.insert(Todo(id: b, title: "B"), at: 1)
      $0.undo = nil
    }
    #expect(saved.last?.map(\.title) == ["A", "B", "C"])
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
    let saved = SavedLists()
    let store = makeStore(Todos.State(todos: items("A", "B", "C")), saved: saved)
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
    #expect(saved.last?.map(\.title) == ["A", "B", "C"])
    await store.finish()
  }

  @Test func filterChangesWhatIsShownAndWhatNumbersMean() async {
    var state = Todos.State(todos: items("A", "B", "C"))
    state.todos[id: b]?.isComplete = true
    let saved = SavedLists()
    let store = makeStore(state, saved: saved)

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
    #expect(saved.all.isEmpty)
    await store.finish()
  }

  @Test func aFailedSaveIsShownAsAnError() async {
    let store = TestStore(initialState: Todos.State()) {
      Todos()
    } withDependencies: {
      $0.uuid = .incrementing
      $0.continuousClock = TestClock()
      $0.todoStorage = TodoStorage { _ in
        throw TodoFileError.unwritable(path: "/x/todos.json", reason: "disk full")
      }
    }
    store.observe("save error") { _ = $0.saveError }
    await store.send(.addTapped(title: "A")) {
      $0.todos.append(Todo(id: uuid(0), title: "A"))
    }
    await store.receive(
      .saveFailed("cannot save /x/todos.json: disk full"), fires: ["save error"]
    ) {
      $0.saveError = "cannot save /x/todos.json: disk full"
    }
    await store.finish()
  }
}
