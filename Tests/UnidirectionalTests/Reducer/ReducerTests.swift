import Testing
import Unidirectional

struct Appending: Reducer {
  let tag: String
  func reduce(into state: inout [String], action: String) -> Effect<String> {
    state.append("\(tag):\(action)")
    return .none
  }
}

struct Composed: Reducer {
  var includeOptional: Bool
  var useFirstBranch: Bool

  var body: some Reducer<[String], String> {
    Appending(tag: "a")
    if includeOptional {
      Appending(tag: "optional")
    }
    if useFirstBranch {
      Appending(tag: "first")
    } else {
      Appending(tag: "second")
    }
    CombineReducers {
      Appending(tag: "c1")
      Appending(tag: "c2")
    }
    EmptyReducer()
  }
}

@Suite struct ReducerTests {
  @Test func bodyRunsReducersInOrderOnTheSameState() {
    var state: [String] = []
    _ = Composed(includeOptional: true, useFirstBranch: true).reduce(into: &state, action: "x")
    #expect(state == ["a:x", "optional:x", "first:x", "c1:x", "c2:x"])
  }

  @Test func optionalAndEitherBranches() {
    var state: [String] = []
    _ = Composed(includeOptional: false, useFirstBranch: false).reduce(into: &state, action: "y")
    #expect(state == ["a:y", "second:y", "c1:y", "c2:y"])
  }

  @Test func emptyReducerChangesNothing() {
    var state = ["untouched"]
    let effect = EmptyReducer<[String], String>().reduce(into: &state, action: "z")
    #expect(state == ["untouched"])
    let store = Store(initialState: 0, reducer: Reduce<Int, Int> { _, _ in effect.map { _ in 1 } })
    #expect(store.send(0).isCancelled)  // `.none` starts no work.
  }

  @Test func effectsOfCombinedReducersAreMerged() async {
    let store = Store(initialState: [String]()) {
      Reduce<[String], String> { state, action in
        state.append(action)
        return action == "go" ? .send("from first") : .none
      }
      Reduce<[String], String> { _, action in
        action == "go" ? .run { send in await send("from second") } : .none
      }
    }
    await store.send("go").finish()
    #expect(store.state == ["go", "from first", "from second"])
  }

  @Test func reduceErasesAnyReducer() {
    let erased = Reduce(Appending(tag: "e"))
    var state: [String] = []
    _ = erased.reduce(into: &state, action: "v")
    #expect(state == ["e:v"])
  }
}
