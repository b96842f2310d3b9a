import Observation
import Synchronization
import Unidirectional

// MARK: Features

struct CounterFeature: Reducer {
  struct State: Equatable, Sendable {
    var count = 0
    var title = "Counter"
  }
  enum Action: Sendable {
    case increment
  }
  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    state.count &+= 1
    return .none
  }
}

@inline(never)
func rawReduce(_ state: inout CounterFeature.State, _ action: CounterFeature.Action) {
  state.count &+= 1
}

/// A thousand separately observable values: 10 × 10 × 10 nested stored fields.
struct Leaf: Equatable, Sendable {
  var v0 = 0, v1 = 0, v2 = 0, v3 = 0, v4 = 0, v5 = 0, v6 = 0, v7 = 0, v8 = 0, v9 = 0
  // Immutable key paths, read from any thread.
  nonisolated(unsafe) static let fields: [WritableKeyPath<Leaf, Int>] = [
    \.v0, \.v1, \.v2, \.v3, \.v4, \.v5, \.v6, \.v7, \.v8, \.v9,
  ]
}
struct Branch: Equatable, Sendable {
  var l0 = Leaf(), l1 = Leaf(), l2 = Leaf(), l3 = Leaf(), l4 = Leaf()
  var l5 = Leaf(), l6 = Leaf(), l7 = Leaf(), l8 = Leaf(), l9 = Leaf()
  nonisolated(unsafe) static let fields: [WritableKeyPath<Branch, Leaf>] = [
    \.l0, \.l1, \.l2, \.l3, \.l4, \.l5, \.l6, \.l7, \.l8, \.l9,
  ]
}
struct Grid: Equatable, Sendable {
  var b0 = Branch(), b1 = Branch(), b2 = Branch(), b3 = Branch(), b4 = Branch()
  var b5 = Branch(), b6 = Branch(), b7 = Branch(), b8 = Branch(), b9 = Branch()
  nonisolated(unsafe) static let fields: [WritableKeyPath<Grid, Branch>] = [
    \.b0, \.b1, \.b2, \.b3, \.b4, \.b5, \.b6, \.b7, \.b8, \.b9,
  ]
  /// The key path of value `index` in 0..<1000.
  nonisolated(unsafe) static let values: [WritableKeyPath<Grid, Int>] = (0..<1_000).map { index in
    fields[index / 100].appending(path: Branch.fields[index / 10 % 10])
      .appending(path: Leaf.fields[index % 10])
  }
}

extension Grid {
  /// Where value `index` lives in a `Grid`.
  static let offsets: [Int] = values.map { MemoryLayout<Grid>.offset(of: $0)! }
}

struct GridFeature: Reducer {
  typealias State = Grid
  enum Action: Sendable {
    case bump(Int)
  }
  func reduce(into state: inout Grid, action: Action) -> Effect<Action> {
    switch action {
    case .bump(let index):
      // A direct store, as cheap as B2's `state.count &+= 1`: applying a writable key path
      // would cost more than the store does, and the ratio is meant to measure the store.
      let offset = Grid.offsets[index]
      withUnsafeMutableBytes(of: &state) { bytes in
        bytes.storeBytes(
          of: bytes.load(fromByteOffset: offset, as: Int.self) &+ 1, toByteOffset: offset,
          as: Int.self)
      }
    }
    return .none
  }
}

/// Lets an observer capture its key path. Safe: key paths are immutable.
struct SendableKeyPath<Root, Value>: @unchecked Sendable {
  let keyPath: KeyPath<Root, Value>
  init(_ keyPath: KeyPath<Root, Value>) { self.keyPath = keyPath }
}

final class Sink: Sendable {
  let total = Atomic<Int>(0)
  func add(_ value: Int) { total.add(value, ordering: .relaxed) }
}

// Safe: each benchmark mutates and observes it from one thread only.
@Observable
final class ObservableCounter: @unchecked Sendable {
  var count = 0
}

// MARK: Scenarios

@MainActor
func makeScenarios() -> [Scenario] {
  [
    Scenario(name: "baseline: raw reducer call", actions: 10_000_000) {
      var state = CounterFeature.State()
      return { iterations in
        for _ in 0..<iterations { rawReduce(&state, .increment) }
        blackHole(state)
      }
    },
    Scenario(name: "baseline: Apple re-arm, 1 observer", actions: 1_000_000) {
      let model = ObservableCounter()
      let sink = Sink()
      @Sendable func arm() {
        withObservationTracking {
          sink.add(model.count)
        } onChange: {
          arm()
        }
      }
      arm()
      return { iterations in
        for _ in 0..<iterations { model.count &+= 1 }
        blackHole(sink)
      }
    },
    Scenario(name: "baseline: Apple re-arm, 1000 obs, 1 fires", actions: 1_000_000) {
      let models = (0..<1_000).map { _ in ObservableCounter() }
      let sink = Sink()
      @Sendable func arm(_ index: Int) {
        withObservationTracking {
          sink.add(models[index].count)
        } onChange: {
          arm(index)
        }
      }
      for index in models.indices { arm(index) }
      return { iterations in
        for iteration in 0..<iterations { models[iteration % 1_000].count &+= 1 }
        blackHole(sink)
      }
    },
    Scenario(
      name: "B1 send, no observers", actions: 10_000_000,
      target: .ratio(over: "baseline: raw reducer call", atMost: 25)
    ) {
      let store = Store(initialState: CounterFeature.State()) { CounterFeature() }
      return { iterations in
        for _ in 0..<iterations { store.send(.increment) }
        blackHole(store)
      }
    },
    Scenario(
      name: "B2 send, 1 observer re-runs", actions: 2_000_000,
      target: .ratio(over: "baseline: Apple re-arm, 1 observer", atMost: 0.25)
    ) {
      let store = Store(initialState: CounterFeature.State()) { CounterFeature() }
      let sink = Sink()
      let token = store.observe { sink.add(store.count) }
      return { iterations in
        for _ in 0..<iterations { store.send(.increment) }
        blackHole(token)
      }
    },
    Scenario(
      name: "B3 1000 observers, 1 value changes", actions: 1_000_000,
      target: .ratio(over: "B2 send, 1 observer re-runs", atMost: 2)
    ) {
      let store = Store(initialState: Grid()) { GridFeature() }
      let sink = Sink()
      let tokens = Grid.values.map { keyPath in
        let keyPath = SendableKeyPath(keyPath)
        return store.observe { sink.add(store[keyPath.keyPath]) }
      }
      return { iterations in
        for iteration in 0..<iterations { store.send(.bump(iteration % 1_000)) }
        blackHole(tokens)
      }
    },
    Scenario(
      name: "B4 1000 observers of the changed value", actions: 5_000,
      target: .perObserverRun(observers: 1_000, atMostNanoseconds: 100)
    ) {
      let store = Store(initialState: CounterFeature.State()) { CounterFeature() }
      let sink = Sink()
      let tokens = (0..<1_000).map { _ in store.observe { sink.add(store.count) } }
      return { iterations in
        for _ in 0..<iterations { store.send(.increment) }
        blackHole(tokens)
      }
    },
  ]
}
