import Foundation
import Testing
import TodosCore
import Unidirectional
import UnidirectionalTesting

/// The editor presented over the list, and the stack of modes above it: every step asserts the
/// state, the dismissals and pops the children send, and which parts of the output redraw.
@Suite struct TodosNavigationTests {
  let a = uuid(100)
  let b = uuid(101)

  // MARK: The editor

  @Test func editValidatesTheDraftAndSavesOnlyAValidTitle() async {
    let storage = SharedStorage()
    let store = makeStore(stateWithFile(items("A", "B")), storage: storage)
    observeRow("row A", id: a, of: store)
    observeRow("row B", id: b, of: store)

    await store.send(.editTapped(id: a), fires: ["list", "item", "tags", "editor"]) {
      $0.editor = Editor.State(id: self.a, original: "A", draft: "A")
    }
    await store.send(.editor(.presented(.titleChanged("   "))), fires: ["editor"]) {
      $0.editor?.draft = "   "
      $0.editor?.problem = "the title is empty; write at least one character"
    }
    // Refused: nothing changes, nothing is dismissed.
    await store.send(.editor(.presented(.saveTapped)))
    let long = String(repeating: "x", count: 81)
    await store.send(.editor(.presented(.titleChanged(long))), fires: ["editor"]) {
      $0.editor?.draft = long
      $0.editor?.problem = "the title is 81 characters long; the limit is 80"
    }
    #expect(
      TodosCommand("save", state: store.state)
        == .invalid(
          message: "cannot save: the title is 81 characters long; the limit is 80; "
            + "'title TEXT' changes it, 'cancel' leaves the item as it was"))
    await store.send(.editor(.presented(.titleChanged(" A, better "))), fires: ["editor"]) {
      $0.editor?.draft = " A, better "
      $0.editor?.problem = nil
    }
    #expect(await savedList(in: storage) == nil)

    await store.send(.editor(.presented(.saveTapped)))
    await store.receive(.editor(.presented(.delegate(.save(title: "A, better")))), fires: ["row A"])
    {
      $0.todos[id: self.a]?.title = "A, better"
    }
    await store.receive(.editor(.dismiss), fires: ["list", "item", "tags", "editor"]) {
      $0.editor = nil
    }
    #expect(await savedList(in: storage)?.map(\.title) == ["A, better", "B"])
    await store.finish()
  }

  @Test func cancelLeavesTheItemAsItWas() async {
    let storage = SharedStorage()
    let store = makeStore(stateWithFile(items("A")), storage: storage)
    await store.send(.editTapped(id: a), fires: ["list", "item", "tags", "editor"]) {
      $0.editor = Editor.State(id: self.a, original: "A", draft: "A")
    }
    await store.send(.editor(.presented(.titleChanged("Z"))), fires: ["editor"]) {
      $0.editor?.draft = "Z"
    }
    await store.send(.editor(.presented(.cancelTapped)))
    await store.receive(.editor(.dismiss), fires: ["list", "item", "tags", "editor"]) {
      $0.editor = nil
    }
    #expect(await savedList(in: storage) == nil)
    #expect(store.state.screen == .list)
    await store.finish()
  }

  // MARK: The stack of modes

  @Test func listThenItemThenTagsAndBack() async {
    let storage = SharedStorage()
    let store = makeStore(stateWithFile(items("A", "B")), storage: storage)
    observeRow("row A", id: a, of: store)
    observeRow("row B", id: b, of: store)

    await store.send(.openTapped(id: a), fires: ["list", "item", "tags"]) {
      $0.path.append(.detail(Detail.State(todoID: self.a)))
    }
    #expect(store.state.screen == .item)
    // "done" on the item means this item.
    #expect(action("done", store.state) == .todos(.element(id: a, action: .setCompleted(true))))
    await store.send(
      .todos(.element(id: a, action: .setCompleted(true))), fires: ["item", "row A"]
    ) {
      $0.todos[id: self.a]?.isComplete = true
    }
    #expect(action("tags", store.state) == .path(.element(id: 0, action: .detail(.tagsTapped))))
    await store.send(
      .path(.element(id: 0, action: .detail(.tagsTapped))), fires: ["list", "item", "tags"]
    ) {
      $0.path.append(.tags(TagsMode.State(todoID: self.a)))
    }
    #expect(store.state.screen == .tags)
    #expect(action("tag Home", store.state) == .todos(.element(id: a, action: .tagAdded("home"))))
    await store.send(.todos(.element(id: a, action: .tagAdded("home"))), fires: ["tags", "row A"]) {
      $0.todos[id: self.a]?.tags = ["home"]
    }
    await store.send(
      .todos(.element(id: a, action: .tagAdded("errands"))), fires: ["tags", "row A"]
    ) {
      $0.todos[id: self.a]?.tags = ["home", "errands"]
    }
    await store.send(
      .todos(.element(id: a, action: .tagRemoved("home"))), fires: ["tags", "row A"]
    ) {
      $0.todos[id: self.a]?.tags = ["errands"]
    }
    #expect(await savedList(in: storage)?[id: a]?.tags == ["errands"])

    // Each mode leaves by dismissing itself: the stack pops it.
    #expect(action("back", store.state) == .path(.element(id: 1, action: .tags(.backTapped))))
    await store.send(.path(.element(id: 1, action: .tags(.backTapped))))
    await store.receive(.path(.popFrom(id: 1)), fires: ["list", "item", "tags"]) {
      $0.path.removeLast()
    }
    await store.send(.path(.element(id: 0, action: .detail(.backTapped))))
    await store.receive(.path(.popFrom(id: 0)), fires: ["list", "item", "tags"]) {
      $0.path.removeLast()
    }
    // Ids are never reused: the next mode is 2.
    await store.send(.openTapped(id: b), fires: ["list", "item", "tags"]) {
      $0.path.append(.detail(Detail.State(todoID: self.b)))
    }
    #expect(store.state.path.ids == [2])
    await store.finish()
  }

  @Test func deletingTheOpenItemLeavesItsModes() async {
    let clock = TestClock()
    let store = makeStore(
      Todos.State(
        todos: items("A", "B"),
        path: StackState([
          .detail(Detail.State(todoID: uuid(100))), .tags(TagsMode.State(todoID: uuid(100))),
        ])),
      clock: clock)

    await store.send(.path(.element(id: 1, action: .tags(.backTapped))))
    await store.receive(.path(.popFrom(id: 1)), fires: ["list", "item", "tags"]) {
      $0.path.removeLast()
    }
    #expect(action("delete", store.state) == .deleteTapped(id: a))
    await store.send(.deleteTapped(id: a), fires: ["list", "item", "tags", "undo"]) {
      $0.path.removeAll()
      $0.todos.remove(id: self.a)
      $0.undo = .available(Todo(id: self.a, title: "A"), index: 0)
    }
    await store.send(.undoTapped, fires: ["list", "undo"]) {
      $0.todos.insert(Todo(id: self.a, title: "A"), at: 0)
      $0.undo = nil
    }
    await store.finish()
  }

  @Test func editingFromTheItemModeReturnsToIt() async {
    let store = makeStore(
      Todos.State(todos: items("A"), path: StackState([.detail(Detail.State(todoID: uuid(100)))])))
    #expect(action("edit", store.state) == .editTapped(id: a))
    await store.send(.editTapped(id: a), fires: ["list", "item", "tags", "editor"]) {
      $0.editor = Editor.State(id: self.a, original: "A", draft: "A")
    }
    #expect(store.state.screen == .editor)
    await store.send(.editor(.presented(.titleChanged("A2"))), fires: ["editor"]) {
      $0.editor?.draft = "A2"
    }
    await store.send(.editor(.presented(.saveTapped)))
    await store.receive(.editor(.presented(.delegate(.save(title: "A2"))))) {
      $0.todos[id: self.a]?.title = "A2"
    }
    await store.receive(.editor(.dismiss), fires: ["list", "item", "tags", "editor"]) {
      $0.editor = nil
    }
    #expect(store.state.screen == .item)
    await store.finish()
  }
}
