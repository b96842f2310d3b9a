import Unidirectional
import UnidirectionalTesting

// Issue 32's scenarios: an effect's round trip through a plain store (E1) and through a
// presented child (E2, issue 33: its action is checked against the child's life), and a test-store
// step whose effect awaits a stream the test feeds (T3), which the test store's executor runs
// at once instead of waiting out a quiet window.

/// An effect that sends one action back.
struct EchoFeature: Reducer {
  struct State: Equatable, Sendable {
    var echoes = 0
  }
  enum Action: Equatable, Sendable {
    case start
    case echo
  }
  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .start:
      return .run { send in await send(.echo) }
    case .echo:
      state.echoes &+= 1
      return .none
    }
  }
}

/// `EchoFeature` presented in a sheet: its effect's action comes back through the presentation,
/// checked against the child's life (E2).
struct EchoSheetFeature: Reducer {
  struct State: Equatable, Sendable {
    @PresentationState var sheet: EchoFeature.State? = EchoFeature.State()
  }
  enum Action: Equatable, Sendable {
    case sheet(PresentationAction<EchoFeature.Action>)
  }
  var body: some Reducer<State, Action> {
    EmptyReducer()
      .ifLet(\.$sheet, action: .case(Action.sheet)) { EchoFeature() }
  }
}

/// An effect that sends every value of a stream the test feeds.
struct StreamFeature: Reducer {
  struct State: Equatable, Sendable {
    var last = 0
  }
  enum Action: Equatable, Sendable {
    case listen
    case got(Int)
  }
  let values: AsyncStream<Int>
  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .listen:
      return .run { [values] send in
        for await value in values { await send(.got(value)) }
      }
    case .got(let value):
      state.last = value
      return .none
    }
  }
}

func makeEffectScenarios() -> [Scenario] {
  [
    Scenario(name: "E1 Store effect round trip", actions: 100_000) {
      let store = Store(initialState: EchoFeature.State()) { EchoFeature() }
      return { iterations in
        runAsync {
          for _ in 0..<iterations { await store.send(.start).finish() }
        }
        blackHole(store)
      }
    },
    Scenario(name: "E2 presented child's effect round trip", actions: 100_000) {
      let store = Store(initialState: EchoSheetFeature.State()) { EchoSheetFeature() }
      return { iterations in
        runAsync {
          for _ in 0..<iterations { await store.send(.sheet(.presented(.start))).finish() }
        }
        blackHole(store)
      }
    },
    Scenario(
      name: "T3 TestStore step, effect awaits a stream",
      actions: 20_000,
      target: .absolute(atMostNanoseconds: 50_000)
    ) {
      let (values, feed) = AsyncStream<Int>.makeStream()
      let store = TestStore(initialState: StreamFeature.State()) {
        StreamFeature(values: values)
      }
      // The effect listens for ever; the run ends without `finish()`.
      store.exhaustivity = .off
      runAsync { await store.send(.listen) }
      let next = StepCounter()
      return { iterations in
        runAsync {
          for _ in 0..<iterations {
            let value = next.increment()
            feed.yield(value)
            await store.receive(.got(value)) { $0.last = value }
          }
        }
      }
    },
  ]
}

/// A number that goes up, shared with the measured closure.
final class StepCounter: @unchecked Sendable {
  // Safe: used by one task at a time (each round runs its steps in order, awaiting each).
  private var value = 0
  func increment() -> Int {
    value += 1
    return value
  }
}
