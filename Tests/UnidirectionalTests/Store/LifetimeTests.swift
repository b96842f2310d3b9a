import Testing
import Unidirectional
import UnidirectionalTestSupport

/// What is freed when: stores, their state, observers, child stores, effects and what they
/// captured. Each test tracks objects with a `LeakTracker` and expects them gone.
@Suite struct LifetimeTests {
  final class Payload: Sendable {}

  struct State: Sendable {
    var payload = Payload()
    var rows: IdentifiedArray<Row> = [Row(id: 1), Row(id: 2)]
    var count = 0
  }

  struct Row: Identifiable, Sendable, Equatable {
    let id: Int
    var value = 0
  }

  enum Action: Sendable {
    case startLongEffect(Payload)
    case startShortEffect(Payload)
    case done
    case row(id: Int, value: Int)
  }

  static let reducer = Reduce<State, Action> { state, action in
    switch action {
    case .startLongEffect(let payload):
      return .run { _ in
        _ = payload
        await waitForCancellation()
      }
    case .startShortEffect(let payload):
      return .run { send in
        _ = payload
        await send(.done)
      }
    case .done:
      state.count += 1
      return .none
    case .row(let id, let value):
      state.rows[id: id]?.value = value
      return .none
    }
  }

  @Test func aDroppedStoreFreesItsStateObserversChildStoresAndEffects() async {
    let leaks = LeakTracker()
    let tokens: [ObservationToken]
    var effect: StoreTask
    do {
      let store = Store(initialState: State(), reducer: Self.reducer)
      leaks.track(store, "store")
      leaks.track(store.payload, "state")
      let observed = Payload()
      leaks.track(observed, "observer closure")
      let row = store.scope(state: \.rows, id: 1) { Action.row(id: 1, value: $0) }!
      leaks.track(row, "child store")
      let captured = Payload()
      leaks.track(captured, "effect capture")
      effect = store.send(.startLongEffect(captured))
      tokens = [
        store.observe { [weak store] in _ = (observed, store?.count) },
        row.observe { [weak row] in _ = row?.value },
      ]
    }
    // The store is gone: its effect was cancelled, and everything it held is freed.
    await effect.finish()
    #expect(effect.isCancelled)
    #expect(leaks.alive == [])
    withExtendedLifetime(tokens) {}
  }

  @Test func aCancelledOrDroppedTokenFreesItsClosure() {
    let leaks = LeakTracker()
    let store = Store(initialState: State(), reducer: Self.reducer)
    var kept: ObservationToken?
    do {
      let first = Payload()
      let second = Payload()
      leaks.track(first, "cancelled token's closure")
      leaks.track(second, "dropped token's closure")
      kept = store.observe { _ = (first, store.count) }
      _ = store.observe { _ = (second, store.count) }  // Dropped at once.
    }
    kept?.cancel()
    #expect(leaks.alive == [])
    withExtendedLifetime(store) {}
  }

  @Test func aFinishedEffectFreesWhatItCaptured() async {
    let leaks = LeakTracker()
    let store = Store(initialState: State(), reducer: Self.reducer)
    let task: StoreTask
    do {
      let captured = Payload()
      leaks.track(captured, "effect capture")
      task = store.send(.startShortEffect(captured))
    }
    await task.finish()
    #expect(store.count == 1)
    #expect(leaks.alive == [])
  }
}
