import Foundation
import Testing
import Unidirectional
import UnidirectionalTestSupport

/// A reducer that calls into its own store: reads stop the program (the contract), never hang.
@Suite struct ReducerStoreAccessTests {
  @Test func reducerReadingItsStoreStops() async {
    await #expect(processExitsWith: .failure) {
      let box = EdgeBox<EdgeStore>()
      let store = Store(
        initialState: EdgeState(),
        reducer: Reduce<EdgeState, EdgeAction> { state, _ in
          state.count += 1
          _ = box.value?.count
          return .none
        })
      box.value = store
      store.send(EdgeAction { _ in })
    }
  }

  @Test func reducerScopingItsStoreStops() async {
    await #expect(processExitsWith: .failure) {
      let box = EdgeBox<EdgeStore>()
      let store = Store(
        initialState: EdgeState(child: EdgeChild()),
        reducer: Reduce<EdgeState, EdgeAction> { state, _ in
          state.count += 1
          _ = box.value?.scope(state: \.child, action: { (never: Never) -> EdgeAction in })
          return .none
        })
      box.value = store
      store.send(EdgeAction { _ in })
    }
  }

  @Test func reducerSendingToItsStoreQueues() {
    let box = EdgeBox<EdgeStore>()
    let store = Store(
      initialState: EdgeState(),
      reducer: Reduce<EdgeState, EdgeAction> { state, action in
        action.apply(&state)
        if state.count == 1 { box.value?.send(EdgeAction { $0.count = 2 }) }
        return .none
      })
    box.value = store
    store.send(EdgeAction { $0.count = 1 })
    #expect(store.count == 2)
  }
}
