import Foundation
import Synchronization
import Testing
import Unidirectional
import UnidirectionalTestSupport

@Suite struct ObserverThreadingTests {
  /// An observer registered while another thread processes actions makes its first run as a
  /// reader, one read at a time: an action committed between two reads gives the run values of
  /// two different states (`count` of one, `other` of the next), which no committed state ever
  /// had. The reducer keeps `count == other`.
  @Test(.timeLimit(.minutes(1)))
  func firstRunOnAnotherThreadSeesOneState() throws {
    let store = makeEdgeStore()
    let ownerBusy = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let committed = DispatchSemaphore(value: 0)
    // Keeps the sending thread busy (owning the store) after the first action, and says when
    // the second is committed.
    let blocker = store.observe {
      let count = store.count
      if count == 1 {
        ownerBusy.signal()
        // wall-clock: a failure bound; a passing run is signalled long before.
        _ = release.wait(timeout: .now() + 10)
      } else if count == 2 {
        committed.signal()
      }
    }
    let sender = Thread {
      store.send(
        EdgeAction {
          $0.count = 1
          $0.other = 1
        })
    }
    sender.start()
    ownerBusy.wait()
    // Queued: the sender's thread will reduce it once its observer returns.
    store.send(
      EdgeAction {
        $0.count = 2
        $0.other = 2
      })
    let seen = Log<String>()
    let once = Atomic<Bool>(false)
    let token = store.observe {
      let count = store.count
      if !once.exchange(true, ordering: .relaxed) {
        release.signal()
        // wall-clock: a failure bound; a passing run is signalled long before.
        _ = committed.wait(timeout: .now() + 10)
      }
      let other = store.other
      seen.append("\(count),\(other)")
    }
    for entry in seen.values {
      let parts = entry.split(separator: ",")
      #expect(parts[0] == parts[1], "a run saw count and other of different states: \(seen.values)")
    }
    withExtendedLifetime((blocker, token)) {}
  }
}

/// A state whose computed property sends an action to the store that holds it (the store is
/// set by the test).
struct PokeState: Sendable {
  static let store = EdgeBox<Store<PokeState, PokeAction>>()
  var count = 0
  var poke: Int {
    if count == 0 { Self.store.value?.send(PokeAction()) }
    return count
  }
}

struct PokeAction: Sendable {}

extension ObserverThreadingTests {
  /// A key-path getter that sends to the store it is read from, outside observers, on an idle
  /// store: the reading thread is counted as a reader, becomes the owner through `submit`, and
  /// waits in `beginReducing` for the readers to leave: itself. A hang, where the contract
  /// promises a queued action (or at worst a precondition), never a deadlock.
  @Test(.timeLimit(.minutes(1)))
  func getterThatSendsDoesNotDeadlock() async {
    let store = Store(
      initialState: PokeState(),
      reducer: Reduce<PokeState, PokeAction> { state, _ in
        state.count += 1
        return .none
      })
    PokeState.store.value = store
    let finished = await finishes(within: .seconds(5)) { _ = store[\.poke] }
    #expect(finished, "reading a getter that sends hung")
    if finished { #expect(store.count == 1) }
  }
}

extension ObserverThreadingTests {
  /// An observer registered while another thread processes actions, whose first run overlaps
  /// the commit of an action that changes nothing it read: its body runs again anyway (the
  /// registering thread retries up to three times, and the owner re-runs a stale first run).
  /// A body that sends an action on its first run ("on appear") sends it twice.
  @Test(.timeLimit(.minutes(1)))
  func firstRunIsNotRepeatedForAnUnrelatedCommit() throws {
    let store = makeEdgeStore()
    let ownerBusy = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let committed = DispatchSemaphore(value: 0)
    let blocker = store.observe {
      let other = store.other
      if other == 1 {
        ownerBusy.signal()
        // wall-clock: a failure bound; a passing run is signalled long before.
        _ = release.wait(timeout: .now() + 10)
      } else if other == 2 {
        committed.signal()
      }
    }
    let sender = Thread { store.send(EdgeAction { $0.other = 1 }) }
    sender.start()
    ownerBusy.wait()
    store.send(EdgeAction { $0.other = 2 })  // Queued; changes nothing the observer reads.
    let runs = Log<Int>()
    let once = Atomic<Bool>(false)
    let token = store.observe {
      runs.append(store.count)
      if !once.exchange(true, ordering: .relaxed) {
        release.signal()
        // wall-clock: a failure bound; a passing run is signalled long before.
        _ = committed.wait(timeout: .now() + 10)
      }
    }
    // Let the owner finish.
    _ = store.observationFootprint
    #expect(runs.values == [0], "the first run was repeated: \(runs.values)")
    withExtendedLifetime((blocker, token)) {}
  }
}
