import Dispatch
import Foundation
import Testing
import UnidirectionalTestSupport

@testable import Unidirectional

/// Several stores on several threads changing one shared value: run under ThreadSanitizer by CI
/// (`swift test --sanitize=thread`).
@Suite struct SharedStressTests {
  @Test func storesOnSeveralThreadsChangingOneValueLoseNothingAndAgreeAtTheEnd() async {
    let storage = SharedStorage()
    let storeCount = 4
    let incrementsPerStore = 500
    let stores = (0..<storeCount).map { _ in CountFeature.store(in: storage) }
    let observed = Locked([Int](repeating: 0, count: storeCount))
    let tokens = stores.enumerated().map { index, store in
      store.observe { observed.withLock { $0[index] = store[\.count.value] } }
    }
    let done = DispatchGroup()
    for store in stores {
      done.enter()
      DispatchQueue.global().async {
        for _ in 0..<incrementsPerStore { store.send(.increment) }
        done.leave()
      }
    }
    // wall-clock: a failure bound; the sends end in well under a second.
    #expect(await finishes(done, within: .seconds(120)))
    await storage.delivered()
    let total = storeCount * incrementsPerStore
    #expect(stores[0].count.reference.current.value == total)
    // Every store's copy and every observer reached the last value: the copy takes only newer
    // changes, so a late delivery never moves it back.
    for (index, store) in stores.enumerated() {
      #expect(store.count.value == total, "store \(index)")
      #expect(observed.withLock { $0[index] } == total, "observer of store \(index)")
    }
    withExtendedLifetime(tokens) {}
  }

  @Test func changesFromOutsideWhileStoresChangeTheValueEndInOneValue() async {
    let storage = SharedStorage()
    struct State: Equatable, Sendable {
      var count = Shared(.file("/stress/count.json"), default: 0)
    }
    enum Action: Sendable {
      case increment
      case countChanged(SharedChange<Int>)
    }
    let reducer = Reduce<State, Action> { state, action in
      if case .increment = action { state.count.withLock { $0 += 1 } }
      return .none
    }
    .receivingShared(\.count, action: .case(Action.countChanged))
    let stores = (0..<3).map { _ in
      inStorage(storage) { Store(initialState: State(), reducer: reducer) }
    }
    let done = DispatchGroup()
    for store in stores {
      done.enter()
      DispatchQueue.global().async {
        for _ in 0..<300 { store.send(.increment) }
        done.leave()
      }
    }
    done.enter()
    DispatchQueue.global().async {
      for value in 0..<100 {
        storage.setFile("/stress/count.json", to: Data("\(value * 1000)\n".utf8))
      }
      done.leave()
    }
    // wall-clock: a failure bound; the work ends in well under a second.
    #expect(await finishes(done, within: .seconds(120)))
    await storage.delivered()
    let final = stores[0].count.reference.current.value
    for store in stores {
      #expect(store.count.value == final)
    }
  }
}
