import Unidirectional

// Issue 14's navigation scenarios, beside the composition ones (C0–C4): a send to a presented
// child, a send to the top element of a ten-element stack, and a row action routed through
// `IdentifiedAction` with one row and with a thousand.

/// A feature with a counter and room to present, push or list more of itself.
struct NavigationCounter: Reducer {
  struct State: Identifiable, Sendable {
    let id: Int
    var count = 0
  }
  enum Action: Sendable {
    case increment
  }
  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    state.count &+= 1
    return .none
  }
}

struct NavigationRoot: Reducer {
  struct State: Sendable {
    @PresentationState var presented: NavigationCounter.State?
    var stack = StackState<NavigationCounter.State>()
    var rows: IdentifiedArray<NavigationCounter.State> = []
  }
  enum Action: Sendable {
    case presented(PresentationAction<NavigationCounter.Action>)
    case stack(StackAction<NavigationCounter.State, NavigationCounter.Action>)
    case rows(IdentifiedActionOf<NavigationCounter>)
  }
  var body: some Reducer<State, Action> {
    EmptyReducer()
      .ifLet(\.$presented, action: .case(Action.presented)) { NavigationCounter() }
      .forEach(\.stack, action: .case(Action.stack)) { NavigationCounter() }
      .forEach(\.rows, action: .case(Action.rows)) { NavigationCounter() }
  }
}

@MainActor
func makeNavigationScenarios() -> [Scenario] {
  func rowsScenario(rows: Int) -> () -> (Int) -> Void {
    {
      var state = NavigationRoot.State()
      state.rows = IdentifiedArray(
        uniqueElements: (0..<rows).map { NavigationCounter.State(id: $0) })
      let store = Store(initialState: state) { NavigationRoot() }
      return { iterations in
        for iteration in 0..<iterations {
          store.send(.rows(.element(id: iteration % rows, action: .increment)))
        }
        blackHole(store)
      }
    }
  }
  return [
    // Issue 17: held to the bound of the composition lines (C0, C3), at most ten plain sends.
    Scenario(
      name: "P0 send to a presented child", actions: 500_000,
      target: .ratio(over: "B1 send, no observers", atMost: 10)
    ) {
      var state = NavigationRoot.State()
      state.presented = NavigationCounter.State(id: 0)
      let store = Store(initialState: state) { NavigationRoot() }
      return { iterations in
        for _ in 0..<iterations { store.send(.presented(.presented(.increment))) }
        blackHole(store)
      }
    },
    Scenario(
      name: "P1 send to the top of a 10-element stack", actions: 500_000,
      target: .ratio(over: "B1 send, no observers", atMost: 10)
    ) {
      var state = NavigationRoot.State()
      for id in 0..<10 { state.stack.append(NavigationCounter.State(id: id)) }
      let top = state.stack.ids.last!
      let store = Store(initialState: state) { NavigationRoot() }
      return { iterations in
        for _ in 0..<iterations { store.send(.stack(.element(id: top, action: .increment))) }
        blackHole(store)
      }
    },
    Scenario(
      name: "P2 IdentifiedAction row send, 1 row", actions: 500_000, make: rowsScenario(rows: 1)),
    Scenario(
      name: "P3 IdentifiedAction row send, 1000 rows", actions: 500_000,
      target: .ratio(over: "P2 IdentifiedAction row send, 1 row", atMost: 2),
      make: rowsScenario(rows: 1_000)),
  ]
}
