import Testing
import TodosCore
import Unidirectional
import UnidirectionalTestSupport
import UnidirectionalTesting

/// The editor and a row on their own, outside the list.
@Suite struct ChildFeatureTests {
  @Test func theEditorDismissesItselfOnCancelAndOnAValidSave() async {
    let dismissals = Log<String>()
    let store = TestStore(initialState: Editor.State(id: uuid(1), original: "A", draft: "A")) {
      Editor()
    } withDependencies: {
      $0.dismiss = DismissEffect { dismissals.append("dismissed") }
    }
    await store.send(.cancelTapped)
    #expect(dismissals.values == ["dismissed"])

    await store.send(.titleChanged("\u{1B}[2J")) {
      $0.draft = "\u{1B}[2J"
      $0.problem = "the title contains a control character (U+001B); use plain text"
    }
    await store.send(.saveTapped)
    #expect(dismissals.values == ["dismissed"])

    await store.send(.titleChanged("  B ")) {
      $0.draft = "  B "
      $0.problem = nil
    }
    await store.send(.saveTapped)
    await store.receive(.delegate(.save(title: "B")))
    #expect(dismissals.values == ["dismissed", "dismissed"])
    await store.finish()
  }

  @Test func aRowKeepsItsTagsValid() async {
    let store = TestStore(initialState: Todo(id: uuid(1), title: "A")) { TodoRow() }
    await store.send(.tagAdded(" Home ")) { $0.tags = ["home"] }
    // Repeats and invalid tags change nothing.
    await store.send(.tagAdded("HOME"))
    await store.send(.tagAdded("no spaces"))
    await store.send(.tagAdded(""))
    await store.send(.tagRemoved("work"))
    await store.send(.tagRemoved("Home")) { $0.tags = [] }
    for index in 0..<Tag.maximumCount {
      await store.send(.tagAdded("t\(index)")) { $0.tags.append("t\(index)") }
    }
    await store.send(.tagAdded("one-too-many"))
    await store.send(.setCompleted(true)) { $0.isComplete = true }
    await store.finish()
  }
}
