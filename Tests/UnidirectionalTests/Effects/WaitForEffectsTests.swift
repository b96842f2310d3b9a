import Synchronization
import Testing
import Unidirectional

/// `Store.waitForEffects()` waits for every effect, including those of actions effects sent,
/// which no `StoreTask` covers.
@Suite struct WaitForEffectsTests {
  struct Saving: Reducer {
    struct State: Equatable, Sendable {
      var child = 0
    }
    enum Action: Equatable, Sendable {
      case start
      case save
      case child(Int)
    }
    let saved: Saved

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .start:
        return .run { send in await send(.save) }
      case .save:
        // Work that takes a while (writing a file, say) and that nothing awaits but
        // `waitForEffects`.
        return .run { [saved] _ in
          // wall-clock: real work outside the executor (a 50 ms timer); the steps wait for it as a fact.
          try await Task.sleep(for: .milliseconds(50))
          saved.markSaved()
        }
      case .child:
        return .send(.start)
      }
    }
  }

  final class Saved: Sendable {
    private let value = Mutex(false)
    func markSaved() { value.withLock { $0 = true } }
    var isSaved: Bool { value.withLock { $0 } }
  }

  @Test func itWaitsForTheEffectsOfActionsThatEffectsSent() async {
    let saved = Saved()
    let store = Store(initialState: Saving.State()) { Saving(saved: saved) }
    await store.send(.start).finish()
    await store.waitForEffects()
    #expect(saved.isSaved)
  }

  @Test func onAChildStoreItWaitsForTheRootsEffects() async {
    let saved = Saved()
    let store = Store(initialState: Saving.State()) { Saving(saved: saved) }
    let child = store.scope(state: \.child, action: Saving.Action.child)
    child.send(1)
    await child.waitForEffects()
    #expect(saved.isSaved)
  }

  @Test func itReturnsAtOnceWhenNoEffectRuns() async {
    let store = Store(initialState: Saving.State()) { Saving(saved: Saved()) }
    await store.waitForEffects()
    #expect(store.child == 0)
  }
}
