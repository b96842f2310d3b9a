import Foundation
import Unidirectional

// Issue 12's scenarios: precise reads of rows from the root store, in the recommended form and
// as a plain key path, and reads outside observers that must leave nothing behind.

/// A thousand rows at the root, each read by its own observer.
struct RootRowsFeature: Reducer {
  struct State: Sendable {
    var rows = IdentifiedArray(uniqueElements: (0..<1_000).map { RowState(id: $0) })
    var table: [String: Int] = [:]
  }
  enum Action: Sendable {
    case bump(id: Int)
  }
  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .bump(let id): state.rows[id: id]?.value &+= 1
    }
    return .none
  }
}

/// How a root observer reads its row.
enum RowReadForm {
  /// `store[\.rows, id: id, \.value]`, the form the docs recommend.
  case byID
  /// `store[\.rows[id: id]?.value]`, a plain key path through a subscript.
  case keyPath
  /// `store.rows[id: id]?.value`, the naive form: the whole array read, one row used.
  case wholeArray
}

/// `observers` root observers, observer `i` reading row `i` in `form`; each action changes one
/// row (the next one each time), so exactly one observer fires per action.
func rootRowScenario(observers: Int, form: RowReadForm) -> () -> (Int) -> Void {
  {
    let store = Store(initialState: RootRowsFeature.State()) { RootRowsFeature() }
    let sink = Sink()
    let tokens = (0..<observers).map { id in
      switch form {
      case .byID:
        store.observe { sink.add(store[\.rows, id: id, \.value] ?? 0) }
      case .keyPath:
        store.observe { sink.add(store[\.rows[id: id]?.value] ?? 0) }
      case .wholeArray:
        store.observe { sink.add(store.rows[id: id]?.value ?? 0) }
      }
    }
    return { iterations in
      for iteration in 0..<iterations { store.send(.bump(id: iteration % observers)) }
      withExtendedLifetime(tokens) {}
    }
  }
}

@MainActor
func makeObservationScenarios() -> [Scenario] {
  [
    Scenario(
      name: "D1 1000 root row observers, by id", actions: 500_000,
      target: .ratio(over: "B2 send, 1 observer re-runs", atMost: 2),
      make: rootRowScenario(observers: 1_000, form: .byID)),
    Scenario(
      name: "D2 1000 root row observers, key path", actions: 2_000,
      // Each action re-checks the 1,000 recorded reads: the target is per recorded read.
      target: .perRecordedRead(reads: 1_000, atMostNanoseconds: 100),
      make: rootRowScenario(observers: 1_000, form: .keyPath)),
    Scenario(
      name: "D5 1000 root row observers, whole array", actions: 500,
      // Every action re-runs the 1,000 observers, each reading the whole array (and the store
      // keeps a copy of it): no target, a reference for the hint that names this form.
      make: rootRowScenario(observers: 1_000, form: .wholeArray)),
    Scenario(
      name: "D3 1 root row observer fires, by id", actions: 1_000_000,
      target: .ratio(over: "B2 send, 1 observer re-runs", atMost: 2),
      make: rootRowScenario(observers: 1, form: .byID)),
    Scenario(
      name: "D3 1 root row observer fires, key path", actions: 100_000,
      make: rootRowScenario(observers: 1, form: .keyPath)),
  ]
}

/// What 100,000 distinct reads outside any observer leave behind: the cost of a send and the
/// resident memory, before and after the reads.
func outsideReadsFigures(reads: Int, sends: Int) -> (
  sendBefore: Double, sendAfter: Double, bytesBefore: Int, bytesAfter: Int
) {
  let store = Store(initialState: RootRowsFeature.State()) { RootRowsFeature() }
  func sendCost() -> Double {
    var best = Double.infinity
    for _ in 0..<5 {
      let start = DispatchTime.now().uptimeNanoseconds
      for iteration in 0..<sends { store.send(.bump(id: iteration % 1_000)) }
      best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / Double(sends))
    }
    return best
  }
  let sendBefore = sendCost()
  releaseFreeMemory()
  let bytesBefore = residentBytes()
  let sink = Sink()
  for index in 0..<reads {
    sink.add(store[\.table["key \(index)"]] ?? 0)
  }
  releaseFreeMemory()
  let bytesAfter = residentBytes()
  return (sendBefore, sendCost(), bytesBefore, bytesAfter)
}
