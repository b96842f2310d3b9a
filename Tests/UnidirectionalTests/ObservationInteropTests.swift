import Observation
import Testing
import Unidirectional
import UnidirectionalTestSupport

@Suite struct ObservationInteropTests {
  let store = Store(initialState: Board.State()) { Board() }

  @Test func withObservationTrackingFiresForAChangedKeyPath() {
    let fired = Log<String>()
    withObservationTracking {
      _ = store.title
    } onChange: {
      fired.append("title")
    }
    store.send(.setCell(0, 1))
    store.send(.setFlag(true))
    #expect(fired.values.isEmpty)
    store.send(.setTitle("changed"))
    #expect(fired.values == ["title"])
    store.send(.setTitle("again"))  // One-shot, as with any Observable.
    #expect(fired.values == ["title"])
  }

  @Test func withObservationTrackingIsElementPrecise() {
    let fired = Log<Int>()
    withObservationTracking {
      _ = store[\.cells[4]]
    } onChange: {
      fired.append(4)
    }
    store.send(.setCell(3, 1))
    #expect(fired.values.isEmpty)
    store.send(.setCell(4, 1))
    #expect(fired.values == [4])
  }

  @Test func untrackedReadsDoNotFire() {
    let fired = Log<Bool>()
    _ = store.title
    withObservationTracking {
      _ = store.flag
    } onChange: {
      fired.append(true)
    }
    store.send(.setTitle("x"))
    #expect(fired.values.isEmpty)
  }

  @Test func observationsSequenceYieldsChanges() async {
    let store = self.store
    let values = Observations { store.title }
    var iterator = values.makeAsyncIterator()
    #expect(await iterator.next() == "Board")
    store.send(.setTitle("one"))
    #expect(await iterator.next() == "one")
    store.send(.setCell(0, 1))  // Not read: no element.
    store.send(.setTitle("two"))
    #expect(await iterator.next() == "two")
  }
}
