import Dispatch
import Foundation
import Unidirectional

// Issue 37's scenarios: a shared value read by observers, in B2's shape (one store, one
// observer) and in B4's line (a thousand observers, across ten stores that hold one value).

/// A store's state holding a shared count, changed by its reducer and received from elsewhere.
struct SharedCountFeature: Reducer {
  struct State: Sendable {
    var shared: Shared<Int>
  }
  enum Action: Sendable {
    case increment
    case sharedChanged(SharedChange<Int>)
  }
  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .increment:
      // The one way to change a shared value: B2's `state.count &+= 1`, under the value's lock.
      state.shared.withLock { $0 &+= 1 }
    case .sharedChanged:
      // `receivingShared` has put the change in the copy already.
      break
    }
    return .none
  }
}

/// A state whose shared count is new: a value of its own in the live storage, as a program's
/// shared values are (in memory: no file is touched). A store made without overriding
/// dependencies, like B2's, reduces without binding them.
func freshSharedCountState() -> SharedCountFeature.State {
  SharedCountFeature.State(shared: Shared(.inMemory("benchmark \(UUID())"), default: 0))
}

/// Ten stores holding one shared value, a hundred observers on each reading it; the first store's reducer changes it, the other nine receive the change.
///
/// Each action runs the first store's 100 observers at once, and the other stores' 900 when
/// their change actions arrive, sent from background threads by their mailboxes (one per store). Every action is one
/// version newer than the last, and only the first store writes, so every store receives every
/// version in order and each action runs exactly 1,000 observers: the run checks that count.
func sharedAcrossStoresScenario() -> () -> (Int) -> Void {
  {
    let state = freshSharedCountState()
    let stores = (0..<10).map { _ in
      Store(initialState: state) {
        SharedCountFeature()
          .receivingShared(\.shared, action: .case(SharedCountFeature.Action.sharedChanged))
      }
    }
    let sink = Sink()
    let runs = Sink()
    let tokens = stores.flatMap { store in
      (0..<100).map { _ in
        store.observe {
          sink.add(store.shared.value)
          runs.add(1)
        }
      }
    }
    let writer = stores[0]
    return { iterations in
      let before = runs.total.load(ordering: .relaxed)
      for _ in 0..<iterations { writer.send(.increment) }
      // The deliveries to the nine other stores run on other threads: the measurement ends when
      // every one has been sent, a fact the storage counts.
      let delivered = DispatchSemaphore(value: 0)
      Task {
        await SharedStorage.live.delivered()
        delivered.signal()
      }
      delivered.wait()
      let observed = runs.total.load(ordering: .relaxed) - before
      precondition(
        observed == iterations * 1_000,
        "\(observed) observer runs for \(iterations) actions: expected 1,000 per action")
      withExtendedLifetime(tokens) {}
    }
  }
}

@MainActor
func makeSharedScenarios() -> [Scenario] {
  [
    Scenario(
      name: "S1 send, 1 observer reads a shared value", actions: 2_000_000,
      target: .ratio(over: "B2 send, 1 observer re-runs", atMost: 2)
    ) {
      // B2 with the count in a shared value: changed with `withLock`, read from its copy.
      let store = Store(initialState: freshSharedCountState()) { SharedCountFeature() }
      let sink = Sink()
      let token = store.observe { sink.add(store.shared.value) }
      return { iterations in
        for _ in 0..<iterations { store.send(.increment) }
        blackHole(token)
      }
    },
    Scenario(
      name: "S2 10 stores, 1000 observers of a shared value", actions: 5_000,
      target: .perObserverRun(observers: 1_000, atMostNanoseconds: 100),
      make: sharedAcrossStoresScenario()),
  ]
}
