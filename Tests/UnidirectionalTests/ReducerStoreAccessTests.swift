import Foundation
import Testing
import Unidirectional
import UnidirectionalTestSupport

/// A reducer that calls into its own store: reads stop the program (the contract), never hang.
@Suite struct ReviewReducerTests {
  @Test func reviewReducerReadingItsStoreStops() async {
    await #expect(processExitsWith: .failure) {
      let box = ReviewBox<ReviewStore>()
      let store = Store(
        initialState: ReviewState(),
        reducer: Reduce<ReviewState, ReviewAction> { state, _ in
          state.count += 1
          _ = box.value?.count
          return .none
        })
      box.value = store
      store.send(ReviewAction { _ in })
    }
  }

  @Test func reviewReducerScopingItsStoreStops() async {
    await #expect(processExitsWith: .failure) {
      let box = ReviewBox<ReviewStore>()
      let store = Store(
        initialState: ReviewState(child: ReviewChild()),
        reducer: Reduce<ReviewState, ReviewAction> { state, _ in
          state.count += 1
          _ = box.value?.scope(state: \.child, action: { (never: Never) -> ReviewAction in })
          return .none
        })
      box.value = store
      store.send(ReviewAction { _ in })
    }
  }

  @Test func reviewReducerSendingToItsStoreQueues() {
    let box = ReviewBox<ReviewStore>()
    let store = Store(
      initialState: ReviewState(),
      reducer: Reduce<ReviewState, ReviewAction> { state, action in
        action.apply(&state)
        if state.count == 1 { box.value?.send(ReviewAction { $0.count = 2 }) }
        return .none
      })
    box.value = store
    store.send(ReviewAction { $0.count = 1 })
    #expect(store.count == 2)
  }
}
