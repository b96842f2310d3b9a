import Foundation
import Observation
import Synchronization
import Testing
import Unidirectional
import UnidirectionalTestSupport

@Suite struct ObservationEdgeTests {
  /// An observer whose run reads a value (finding the probe another observer made) and then
  /// cancels that other observer, its probe's only subscriber: the probe is dropped from the
  /// graph while the run holds it, and the run subscribes to a probe nobody refreshes.
  @Test func observerKeepsAReadWhoseOtherObserverItCancelled() {
    let store = makeEdgeStore()
    let first = EdgeBox<ObservationToken>(store.observe { _ = store.count })
    let runs = Log<Int>()
    let token = store.observe {
      runs.append(store.count)
      first.take()?.cancel()
    }
    store.send(EdgeAction { $0.count += 1 })
    store.send(EdgeAction { $0.count += 1 })
    #expect(runs.values == [0, 1, 2])
    withExtendedLifetime(token) {}
  }

  /// The same through a re-run (not the first run): the observer starts reading `count` only in
  /// its second run, then drops the other reader of `count`.
  @Test func rerunKeepsAReadWhoseOtherObserverItCancelled() {
    let store = makeEdgeStore()
    let first = EdgeBox<ObservationToken>(store.observe { _ = store.count })
    let runs = Log<Int>()
    let token = store.observe {
      if store.flag {
        runs.append(store.count)
        first.take()?.cancel()
      }
    }
    store.send(EdgeAction { $0.flag = true })
    store.send(EdgeAction { $0.count = 5 })
    #expect(runs.values == [0, 5])
    withExtendedLifetime(token) {}
  }

  /// An observer that reads something new and cancels itself in the same run: the new probe was
  /// filed in the graph, and nothing ever subscribes to it or removes it.
  @Test func selfCancellingObserverLeavesNoProbe() {
    let store = makeEdgeStore()
    let before = store.observationFootprint
    let me = EdgeBox<ObservationToken>()
    me.value = store.observe {
      if store.flag {
        _ = store.count
        me.take()?.cancel()
      }
    }
    store.send(EdgeAction { $0.flag = true })
    #expect(store.observationFootprint == before)
  }

  /// The same when the token is cancelled from another thread while the run is in progress.
  @Test func observerCancelledFromAnotherThreadDuringItsRunLeavesNoProbe() {
    let store = makeEdgeStore()
    let before = store.observationFootprint
    let inRun = DispatchSemaphore(value: 0)
    let cancelled = DispatchSemaphore(value: 0)
    let token = store.observe {
      if store.flag {
        _ = store.count
        inRun.signal()
        // wall-clock: a failure bound; a passing run is signalled long before.
        _ = cancelled.wait(timeout: .now() + 5)
      }
    }
    let canceller = Thread {
      inRun.wait()
      token.cancel()
      cancelled.signal()
    }
    canceller.start()
    store.send(EdgeAction { $0.flag = true })
    #expect(store.observationFootprint == before)
  }

  /// An observer cancelled by a getter that its own re-run calls, in the middle of a read the
  /// store predicted from the observer's last run: the read goes on with the probe it found,
  /// which the cancellation must not free (predicted reads take no reference of their own), and
  /// the probes are dropped once the run ends.
  @Test func observerCancelledByTheGetterOfItsOwnReadFinishesTheRead() {
    let store = makeEdgeStore()
    let before = store.observationFootprint
    let hookID = edgeHookIDs.add(1, ordering: .relaxed).newValue
    let me = EdgeBox<ObservationToken>()
    let inRun = Atomic<Bool>(false)
    let seen = Log<[Int]>()
    getterHooks.withLock {
      $0[hookID] = { count in
        // Only from the observer's own run, not when the store checks the read after an action.
        if inRun.load(ordering: .relaxed), count == 2 { me.take()?.cancel() }
      }
    }
    me.value = store.observe {
      inRun.store(true, ordering: .relaxed)
      let counted = store[\.[countCallingHook: hookID]]
      seen.append([counted, store.other])
      inRun.store(false, ordering: .relaxed)
    }
    store.send(EdgeAction { $0.count = 1 })
    store.send(
      EdgeAction {
        $0.count = 2
        $0.other = 2
      })
    store.send(EdgeAction { $0.count = 3 })
    #expect(seen.values == [[0, 0], [1, 0], [2, 2]])
    #expect(store.observationFootprint == before)
    getterHooks.withLock { $0[hookID] = nil }
  }

  /// A tracking that reads `items` and, behind `items.count > 7`, `items[7]`; then another
  /// tracking on the same thread reads `items` again (another view, or the same view re-rendered
  /// for a reason outside the store). The second read moves `items` after `items[7]` in the
  /// thread's list, so shrinking `items` evaluates `items[7]` first: out of range.
  @Test func trackedGuardedReadDoesNotTrapAfterTheGuardIsReadAgain() async {
    await #expect(processExitsWith: .success) {
      let store = makeEdgeStore(EdgeState(items: Array(0..<10)))
      withObservationTracking {
        if store.items.count > 7 { _ = store[\.items[7]] }
      } onChange: {
      }
      withObservationTracking {
        _ = store.items
      } onChange: {
      }
      store.send(EdgeAction { $0.items = [] })
    }
  }

  /// A NaN read through a stored property inside `withObservationTracking` is reported changed
  /// after every action, though its bits never change (observers, by contract, do not re-run).
  @Test func trackedNaNIsUnchanged() {
    let store = makeEdgeStore(EdgeState(value: .nan))
    let fired = Log<String>()
    let observerRuns = Log<Bool>()
    let token = store.observe { observerRuns.append(store.value.isNaN) }
    withObservationTracking {
      _ = store.value
    } onChange: {
      fired.append("value")
    }
    store.send(EdgeAction { $0.count += 1 })
    #expect(observerRuns.values == [true])
    #expect(fired.values == [])
    withExtendedLifetime(token) {}
  }

  /// A reducer that registers an observer makes it read the state while the reducer is changing
  /// it: the contract says such a read stops the program.
  @Test func observerRegisteredByAReducerStopsTheProgram() async {
    await #expect(processExitsWith: .failure) {
      let box = EdgeBox<EdgeStore>()
      let seen = Log<String>()
      let tokens = Log<ObservationToken>()
      let store = Store(
        initialState: EdgeState(),
        reducer: Reduce<EdgeState, EdgeAction> { state, action in
          state.count = 1
          if let store = box.value {
            tokens.append(store.observe { seen.append("\(store.count),\(store.other)") })
          }
          state.other = 1
          return .none
        })
      box.value = store
      store.send(EdgeAction { _ in })
      // Reaching here: the observer's first run saw half an action.
      print("observer saw", seen.values)
    }
  }
}

extension ObservationEdgeTests {
  /// A tracking on one thread reads `count` while another thread owns the store and is about to
  /// reduce an action (its interceptor runs). The tracking's closure ends, and only then is the
  /// action reduced, changing `count`: the tracking must hear of it. The read is filed after
  /// that action's check, so nothing is posted until some later action.
  @Test(.timeLimit(.minutes(1)))
  func trackingHearsAChangeCommittedAfterItsClosureEnded() {
    let trackingDone = DispatchSemaphore(value: 0)
    let ownerInInterceptor = DispatchSemaphore(value: 0)
    let store = Store(
      initialState: EdgeState(),
      reducer: Reduce<EdgeState, EdgeAction> { state, action in
        action.apply(&state)
        return .none
      },
      interceptors: [
        StoreInterceptor(willReduce: { _, state in
          if state.flag {
            ownerInInterceptor.signal()
            // wall-clock: a failure bound; a passing run is signalled long before.
            _ = trackingDone.wait(timeout: .now() + 10)
          }
        })
      ])
    store.send(EdgeAction { $0.flag = true })  // From now on the interceptor waits.
    let sent = DispatchSemaphore(value: 0)
    let sender = Thread {
      store.send(
        EdgeAction {
          $0.flag = false
          $0.count = 1
        })
      sent.signal()
    }
    sender.start()
    ownerInInterceptor.wait()
    let fired = Log<String>()
    withObservationTracking {
      _ = store.count
    } onChange: {
      fired.append("count")
    }
    trackingDone.signal()
    // wall-clock: a failure bound; a passing run is signalled long before.
    _ = sent.wait(timeout: .now() + 10)
    #expect(store.count == 1)
    #expect(
      fired.values == ["count"],
      "the change of count, committed after the tracking ended, went unheard")
  }
}

struct EdgeOpaqueRow: Identifiable, Sendable {
  let id: Int
  var opaque = Opaque(value: 0)
  var a = 0
  var b = 0
}

struct EdgeOpaqueState: Sendable {
  var rows: IdentifiedArray<EdgeOpaqueRow> = IdentifiedArray(
    uniqueElements: (0..<3).map { EdgeOpaqueRow(id: $0) })
}

struct EdgeOpaqueAction: Sendable {
  let apply: @Sendable (inout EdgeOpaqueState) -> Void
}

extension ObservationEdgeTests {
  /// A value that is neither `Equatable` nor a class, read inside a row by id, "changes only when
  /// an action writes that row" (the contract). An action that writes *another* row twice (two
  /// fields, two statements) makes every row look written.
  @Test func opaqueRowValueIgnoresTwoWritesToAnotherRow() {
    let store = Store(
      initialState: EdgeOpaqueState(),
      reducer: Reduce<EdgeOpaqueState, EdgeOpaqueAction> { state, action in
        action.apply(&state)
        return .none
      })
    let runs = Log<Int>()
    let token = store.observe { runs.append(store[\.rows, id: 2, \.opaque]?.value ?? -1) }
    store.send(EdgeOpaqueAction { $0.rows[id: 0]?.a = 1 })
    #expect(runs.values == [0])  // One write to row 0: row 2 is untouched.
    store.send(
      EdgeOpaqueAction {
        $0.rows[id: 0]?.a = 2
        $0.rows[id: 0]?.b = 2
      })
    #expect(runs.values == [0], "row 2's observer re-ran for writes to row 0")
    withExtendedLifetime(token) {}
  }
}

/// Hooks that a getter of `EdgeState` runs on every call, by id, with the state's `count`.
let getterHooks = Locked<[Int: @Sendable (Int) -> Void]>([:])

extension EdgeState {
  /// `count`, read through a subscript (a computed read, evaluated in order) whose getter runs
  /// the hook `id`.
  subscript(countCallingHook id: Int) -> Int {
    getterHooks.withLock { $0[id] }?(count)
    return count
  }
}
