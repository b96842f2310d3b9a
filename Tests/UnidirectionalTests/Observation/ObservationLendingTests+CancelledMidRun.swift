import Synchronization
import Testing
import Unidirectional
import UnidirectionalTestSupport

// A running observer cancelled by user code it calls (a getter, another store's observer) or by
// itself: the run goes on as predicted, with its closure's captures, and leaves nothing behind.

extension ObservationLendingTests {
  /// A re-run whose predicted computed read's getter registers a new observer (nested run on
  /// another recorder) that cancels the running one; the running one goes on reading as
  /// predicted.
  @Test func getterRegistersAnObserverThatCancelsTheRunningOne() {
    let store = makeLendingStore()
    let before = store.observationFootprint
    let me = EdgeBox<ObservationToken>()
    let nested = EdgeBox<ObservationToken>()
    let inRun = Atomic<Bool>(false)
    let seen = Log<[Int]>()
    lendingGetterHook.withLock {
      $0 = { count in
        guard inRun.load(ordering: .relaxed), count == 2 else { return }
        inRun.store(false, ordering: .relaxed)
        nested.value = store.observe {
          _ = store[\.computedCount]
          _ = store.other
          me.take()?.cancel()
        }
      }
    }
    defer { lendingGetterHook.withLock { $0 = nil } }
    me.value = store.observe {
      let count = store.count
      inRun.store(count == 2, ordering: .relaxed)
      let computed = store[\.computedCount]
      inRun.store(false, ordering: .relaxed)
      seen.append([count, computed, store.other])
    }
    store.send(LendingAction { $0.count = 1 })
    store.send(LendingAction { $0.count = 2 })
    store.send(LendingAction { $0.count = 3 })
    #expect(seen.values == [[0, 0, 0], [1, 1, 0], [2, 2, 0]])
    nested.take()?.cancel()
    #expect(store.observationFootprint == before)
  }

  /// An observer of one store sends to a second store whose observer cancels the first one
  /// (running) and whose pass, through an old value's deinit, cancels it again.
  @Test func secondStoresObserverCancelsTheRunningObserverOfTheFirst() {
    let first = makeLendingStore()
    let second = makeLendingStore()
    let beforeFirst = first.observationFootprint
    let me = EdgeBox<ObservationToken>()
    let seen = Log<[Int]>()
    let secondToken = second.observe {
      if second.count == 2 { me.take()?.cancel() }
    }
    me.value = first.observe {
      let count = first.count
      second.send(LendingAction { $0.count = count })
      seen.append([count, first[\.computedCount], first.other])
    }
    first.send(LendingAction { $0.count = 1 })
    first.send(LendingAction { $0.count = 2 })
    first.send(LendingAction { $0.count = 3 })
    #expect(seen.values == [[0, 0, 0], [1, 1, 0], [2, 2, 0]])
    #expect(first.observationFootprint == beforeFirst)
    withExtendedLifetime(secondToken) {}
  }

  /// A row store's observer re-runs and cancels itself from the getter of a computed field it
  /// reads through `ElementAccess` (predicted, no reference taken); then reads more.
  @Test func rowObserverCancelledByTheGetterOfItsOwnPredictedRead() {
    let store = makeLendingStore()
    let before = store.observationFootprint
    let me = EdgeBox<ObservationToken>()
    let seen = Log<[Int]>()
    let embed: @Sendable (Int) -> LendingAction = { value in
      LendingAction { $0.rows[id: 1]?.title = value }
    }
    let row = store.scope(state: \.rows, id: 1, action: embed)!
    let armed = Atomic<Bool>(false)
    lendingRowGetterHook.withLock {
      $0 = { title in
        if armed.load(ordering: .relaxed), title == 2 { me.take()?.cancel() }
      }
    }
    defer { lendingRowGetterHook.withLock { $0 = nil } }
    me.value = row.observe {
      armed.store(true, ordering: .relaxed)
      let title = row.title
      let doubled = row[\.doubledTitle]
      armed.store(false, ordering: .relaxed)
      seen.append([title, doubled, row.hook == nil ? 0 : 1])
    }
    row.send(1)
    row.send(2)
    row.send(3)
    #expect(seen.values == [[0, 0, 1], [1, 2, 1], [2, 4, 1]])
    #expect(store.observationFootprint == before)
  }

  /// A run calls the observer's closure without a reference of its own: the record keeps it.
  /// An observer that cancels itself mid-run must still have its captures for the rest of the
  /// run, and they must be released once the run ends. (Only an optimized build can fail
  /// this: a debug build copies the closure out of the record before calling it.)
  @Test func observerThatCancelsItselfKeepsItsCapturesUntilTheRunEnds() {
    let store = makeLendingStore()
    let before = store.observationFootprint
    let me = EdgeBox<ObservationToken>()
    let released = Atomic<Bool>(false)
    let captured = LendingHook("captured") { released.store(true, ordering: .relaxed) }
    let seen = Log<String>()
    me.value = store.observe { [captured] in
      guard store.count > 0 else { return }
      me.take()?.cancel()
      // Cancelled, mid-run: the closure and what it captured are still alive.
      seen.append("\(captured.name) \(released.load(ordering: .relaxed))")
    }
    _ = consume captured
    let releasedBefore = released.load(ordering: .relaxed)
    #expect(!releasedBefore)
    store.send(LendingAction { $0.count += 1 })
    #expect(seen.values == ["captured false"])
    // Released when the run ended.
    let releasedAfter = released.load(ordering: .relaxed)
    #expect(releasedAfter)
    store.send(LendingAction { $0.count += 1 })
    #expect(seen.values == ["captured false"])
    #expect(store.observationFootprint == before)
  }
}

extension LendingRow {
  /// A computed field whose getter runs `lendingRowGetterHook`.
  var doubledTitle: Int {
    lendingRowGetterHook.withLock { $0 }?(title)
    return title * 2
  }
}

let lendingRowGetterHook = Locked<(@Sendable (Int) -> Void)?>(nil)
