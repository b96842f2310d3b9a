import Testing
import Unidirectional
import UnidirectionalTestSupport

@Suite struct PrintChangesTests {
  struct State: Equatable, Sendable {
    var count = 0
    var title = "Counter"
    var tags: [String] = []
  }
  enum Action: Equatable, Sendable {
    case increment
    case tag(String)
    case nothing
  }

  static let feature = Reduce<State, Action> { state, action in
    switch action {
    case .increment: state.count += 1
    case .tag(let tag): state.tags.append(tag)
    case .nothing: break
    }
    return action == .increment ? .send(.nothing) : .none
  }

  @Test func printsEachActionAndTheDiffOfTheState() {
    let output = Log<String>()
    let store = Store(initialState: State()) {
      Self.feature.printChanges(to: { output.append($0) })
    }
    store.send(.increment)
    store.send(.tag("new"))
    #expect(
      output.values == [
        """
        received action:
            PrintChangesTests.Action.increment
            PrintChangesTests.State(
          −   count: 0,
          +   count: 1,
              title: "Counter",
              tags: []
            )

        """,
        // The effect's action goes through the reducer too.
        """
        received action:
            PrintChangesTests.Action.nothing
            (no state change)

        """,
        """
        received action:
            PrintChangesTests.Action.tag("new")
            PrintChangesTests.State(
              count: 1,
              title: "Counter",
          −   tags: []
          +   tags: [
          +     [0]: "new"
          +   ]
            )

        """,
      ])
  }

  @Test func behavesExactlyLikeTheReducer() {
    let plain = Store(initialState: State(), reducer: Self.feature)
    let printing = Store(initialState: State()) { Self.feature.printChanges(to: { _ in }) }
    for action in [Action.increment, .tag("a"), .nothing, .increment] {
      plain.send(action)
      printing.send(action)
    }
    #expect(plain.state == printing.state)
  }
}
