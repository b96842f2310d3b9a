import Foundation
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

  @Test func aTrackingsGuardedReadIsNotEvaluatedAfterItsGuardChanged() {
    // A tracking's reads are checked in order, like an observer's: `cells[8]` is behind
    // `cells.count > 8`, and an action that shrinks `cells` must not evaluate it.
    let store = Store(initialState: Board.State()) {
      Reduce<Board.State, Board.Action> { state, action in
        if case .setCell(let index, _) = action { state.cells.removeLast(9 - index) }
        return .none
      }
    }
    let fired = Log<String>()
    withObservationTracking {
      if store.cells.count > 8 { _ = store[\.cells[8]] }
    } onChange: {
      fired.append("cells")
    }
    store.send(.setCell(3, 0))  // Shrinks `cells` to 3.
    #expect(fired.values == ["cells"])
    #expect(store.observationFootprint.trackedReads == 0)
  }

  @Test func aTrackedReadIsForgottenOnceItFires() {
    let fired = Log<String>()
    withObservationTracking {
      _ = store.title
      _ = store[\.cells[4]]
    } onChange: {
      fired.append("changed")
    }
    #expect(store.observationFootprint.trackedReads == 2)
    store.send(.setCell(0, 1))
    #expect(fired.values.isEmpty)
    #expect(store.observationFootprint.trackedReads == 2)
    // `title` changed: reported, and so is `cells[4]`, read after it, without being evaluated
    // (it could trap). The registrar calls the one-shot tracking once.
    store.send(.setTitle("t"))
    #expect(fired.values == ["changed"])
    #expect(store.observationFootprint.trackedReads == 0)
    store.send(.setCell(4, 1))
    #expect(fired.values == ["changed"])
  }

  @Test func aChangeCommittedBeforeTheTrackingIsInstalledIsHeard() {
    // The tracking reads `title`, then, before its closure returns (and the registrar installs
    // it), another thread commits a change of `title`: the tracking must still hear of it.
    let store = self.store
    let read = DispatchSemaphore(value: 0)
    let committed = DispatchSemaphore(value: 0)
    let heard = DispatchSemaphore(value: 0)
    Thread {
      withObservationTracking {
        _ = store.title
        read.signal()
        committed.wait()
      } onChange: {
        heard.signal()
      }
    }.start()
    read.wait()
    store.send(.setTitle("changed"))
    committed.signal()
    // wall-clock: a failure bound; a passing run is signalled long before.
    #expect(heard.wait(timeout: .now() + 10) == .success, "the tracking never heard the change")
  }
}
