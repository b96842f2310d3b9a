import Testing
import Unidirectional
import UnidirectionalTestSupport

// Observers that cancel and register observers of the changed value while the store runs that
// value's subscribers from its lent list.

extension ObservationLendingTests {
  /// When one value changed, the store runs its probe's subscribers from the probe's own list,
  /// lent without a reference. The first of them cancels two later ones and registers eight
  /// observers of the same value, which change that list (and grow it past its capacity):
  /// the run must go on through the list as it was, run each remaining observer once, and not
  /// run the cancelled ones or the new ones (whose first run was their registration).
  @Test func observersChangingTheChangedValuesSubscribersDuringTheirRun() {
    let store = makeLendingStore()
    let before = store.observationFootprint
    let runs = Log<String>()
    let tokens = EdgeBox<[String: ObservationToken]>([:])
    let added = EdgeBox<[ObservationToken]>([])
    for name in ["a", "b", "c", "d", "e"] {
      let token = store.observe {
        let count = store.count
        runs.append("\(name)\(count)")
        guard name == "a", count == 1 else { return }
        let cancelled = ["b", "d"].compactMap { tokens.value?[$0] }
        for token in cancelled { token.cancel() }
        let made = (0..<8).map { index in
          store.observe { runs.append("new\(index):\(store.count)") }
        }
        added.value = made
      }
      tokens.value?[name] = token
    }
    runs.removeAll()
    store.send(LendingAction { $0.count = 1 })
    #expect(runs.values == ["a1"] + (0..<8).map { "new\($0):1" } + ["c1", "e1"])
    runs.removeAll()
    store.send(LendingAction { $0.count = 2 })
    #expect(runs.values == ["a2", "c2", "e2"] + (0..<8).map { "new\($0):2" })
    for token in (added.take() ?? []) + (tokens.take() ?? [:]).values { token.cancel() }
    #expect(store.observationFootprint == before)
  }

  /// The first subscriber of the changed value cancels every observer of the store, itself
  /// included: the probe whose list the run goes through is dropped during the run.
  @Test func anObserverCancellingEveryObserverOfTheChangedValue() {
    let store = makeLendingStore()
    let before = store.observationFootprint
    let runs = Log<String>()
    let tokens = EdgeBox<[ObservationToken]>([])
    for name in ["a", "b", "c"] {
      let token = store.observe {
        let count = store.count
        runs.append("\(name)\(count)")
        if name == "a", count == 1 { for token in tokens.take() ?? [] { token.cancel() } }
      }
      tokens.value?.append(token)
    }
    runs.removeAll()
    store.send(LendingAction { $0.count = 1 })
    store.send(LendingAction { $0.count = 2 })
    #expect(runs.values == ["a1"])
    #expect(store.observationFootprint == before)
  }
}
