import Foundation
import Synchronization
import Testing
import Unidirectional
import UnidirectionalTestSupport

/// Hooks that `==` of `Hooked` runs once, for tests of user code the store runs mid-pass.
let edgeHooks = Locked<[Int: @Sendable () -> Void]>([:])
let edgeHookIDs = Atomic<Int>(1)

struct Hooked: Equatable, Sendable {
  var n: Int
  var hookID: Int
  static func == (lhs: Hooked, rhs: Hooked) -> Bool {
    if let hook = edgeHooks.withLock({ $0.removeValue(forKey: lhs.hookID) }) { hook() }
    return lhs.n == rhs.n
  }
}

struct HookState: Sendable {
  var hooked: Hooked
  var count = 0
  var child: EdgeChild? = EdgeChild()
}

struct HookAction: Sendable {
  let apply: @Sendable (inout HookState) -> Void
}

func makeHookStore(hookID: Int) -> Store<HookState, HookAction> {
  Store(
    initialState: HookState(hooked: Hooked(n: 0, hookID: hookID)),
    reducer: Reduce<HookState, HookAction> { state, action in
      action.apply(&state)
      return .none
    })
}

@Suite struct ObservationReentrancyTests {
  /// `==`, run while the store compares values after an action, registers an observer: it must
  /// run on later changes of what it read.
  @Test func observerRegisteredInEqualsRunsLater() {
    let hookID = edgeHookIDs.add(1, ordering: .relaxed).newValue
    let store = makeHookStore(hookID: hookID)
    let watcher = store.observe { _ = store.hooked }
    let runs = Log<Int>()
    let registered = EdgeBox<ObservationToken>()
    edgeHooks.withLock {
      $0[hookID] = { registered.value = store.observe { runs.append(store.count) } }
    }
    store.send(
      HookAction {
        $0.hooked.n = 1
        $0.count = 1
      })
    #expect(runs.values == [1])
    store.send(HookAction { $0.count = 2 })
    #expect(runs.values == [1, 2])
    withExtendedLifetime((watcher, registered.value)) {}
  }

  /// `==` cancels an observer that the same action made stale: it must not run.
  @Test func observerCancelledInEqualsDoesNotRun() {
    let hookID = edgeHookIDs.add(1, ordering: .relaxed).newValue
    let store = makeHookStore(hookID: hookID)
    let runs = Log<Int>()
    let victim = EdgeBox<ObservationToken>(store.observe { runs.append(store.count) })
    let watcher = store.observe { _ = store.hooked }
    edgeHooks.withLock { $0[hookID] = { victim.take()?.cancel() } }
    store.send(
      HookAction {
        $0.hooked.n = 1
        $0.count = 1
      })
    #expect(runs.values == [0])
    #expect(store.observationFootprint.observers == 1)
    withExtendedLifetime(watcher) {}
  }

  /// `==` makes a child store (whose keeper registers mid-pass) and observes it.
  @Test func childStoreMadeInEqualsWorks() {
    let hookID = edgeHookIDs.add(1, ordering: .relaxed).newValue
    let store = makeHookStore(hookID: hookID)
    let watcher = store.observe { _ = store.hooked }
    let runs = Log<Int>()
    let kept = EdgeBox<(Store<EdgeChild, Never>, ObservationToken)>()
    edgeHooks.withLock {
      $0[hookID] = {
        let child = store.scope(state: \.child, action: { (never: Never) -> HookAction in })!
        kept.value = (child, child.observe(\.count) { runs.append($0) })
      }
    }
    store.send(
      HookAction {
        $0.hooked.n = 1
        $0.child?.count = 1
      })
    store.send(HookAction { $0.child?.count = 2 })
    store.send(HookAction { $0.child = nil })
    store.send(HookAction { $0.child = EdgeChild(count: 2) })
    store.send(HookAction { $0.child = EdgeChild(count: 3) })
    #expect(runs.values == [1, 2, 3])
    withExtendedLifetime((watcher, kept.value)) {}
  }

  /// `==` sends an action: it is queued and reduced after this one, once.
  @Test func actionSentInEqualsIsReducedOnce() {
    let hookID = edgeHookIDs.add(1, ordering: .relaxed).newValue
    let store = makeHookStore(hookID: hookID)
    let watcher = store.observe { _ = store.hooked }
    let runs = Log<Int>()
    let counter = store.observe { runs.append(store.count) }
    edgeHooks.withLock { $0[hookID] = { store.send(HookAction { $0.count += 10 }) } }
    store.send(
      HookAction {
        $0.hooked.n = 1
        $0.count += 1
      })
    #expect(runs.values == [0, 1, 11])
    #expect(store.count == 11)
    withExtendedLifetime((watcher, counter)) {}
  }
}
