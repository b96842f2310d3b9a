import Foundation
import Synchronization
import Testing
import Unidirectional
import UnidirectionalTestSupport

// Paths where user code (a deinit, a getter, another store's observer) runs while the store
// uses a probe, an element group or an observer without a reference of its own (see the
// invariants in ARCHITECTURE.md): cancelling observers and dropping probes there must neither
// free what is in use nor leave anything behind. Deinits run during a pass are here; running
// observers cancelled mid-run, the changed value's subscriber list and `forEach`'s hint in
// ObservationLendingTests+CancelledMidRun, +SubscriberList and +ForEachHint.

/// Runs `action` when released (once armed): user code run by the deinit of an old value.
final class LendingHook: @unchecked Sendable, Equatable {
  let name: String
  let onDeinit: Locked<(@Sendable () -> Void)?>
  init(_ name: String, onDeinit: (@Sendable () -> Void)? = nil) {
    self.name = name
    self.onDeinit = Locked(onDeinit)
  }
  deinit {
    let action = onDeinit.withLock { $0 }
    action?()
  }
  /// Always equal: a probe keeps the new value anyway (and releases the old one).
  static func == (lhs: LendingHook, rhs: LendingHook) -> Bool { true }
}

struct LendingRow: Identifiable, Sendable, Equatable {
  let id: Int
  var title = 0
  var hook: LendingHook?
}

/// A value whose `==` counts its calls: a probe that compares it after an action calls it.
struct CountedEquality: Equatable, Sendable {
  var value = 0
  static func == (lhs: Self, rhs: Self) -> Bool {
    countedEqualities.add(1, ordering: .relaxed)
    return lhs.value == rhs.value
  }
}

let countedEqualities = Atomic<Int>(0)

struct LendingState: Sendable {
  var count = 0
  var other = 0
  var counted = CountedEquality()
  var hook: LendingHook?
  var rows: IdentifiedArray<LendingRow> = IdentifiedArray(
    uniqueElements: (0..<4).map { LendingRow(id: $0, hook: LendingHook("row \($0)")) })
  /// A computed read (lazy probe) of `hook`.
  var computedHook: LendingHook? { hook }
  /// A computed read that runs `lendingGetterHook` on every call.
  var computedCount: Int {
    lendingGetterHook.withLock { $0 }?(count)
    return count
  }
}

let lendingGetterHook = Locked<(@Sendable (Int) -> Void)?>(nil)

struct LendingAction: Sendable {
  let apply: @Sendable (inout LendingState) -> Void
  init(_ apply: @escaping @Sendable (inout LendingState) -> Void) { self.apply = apply }
}

func makeLendingStore(_ state: LendingState = LendingState()) -> Store<LendingState, LendingAction>
{
  Store(
    initialState: state,
    reducer: Reduce<LendingState, LendingAction> { state, action in
      action.apply(&state)
      return .none
    })
}

@Suite(.serialized) struct ObservationLendingTests {
  /// A read made by user code that the store runs between two observer runs (here the deinit
  /// of a value a dropped probe held, when a re-run stops reading it) belongs to no observer: it
  /// must leave nothing behind, as any read outside observers (DESIGN invariant 3). Before, the
  /// batch's recorder was installed between runs, so the read filed a probe that no observer
  /// subscribed to and nothing removed, compared after every action that changed it.
  @Test func aReadFromADeinitBetweenObserverRunsLeavesNothingBehind() {
    let store = makeLendingStore()
    let before = store.observationFootprint
    store.send(
      LendingAction {
        $0.hook = LendingHook("read in deinit") { [weak store] in _ = store?.counted }
      })
    let token = store.observe {
      // A lazy (computed) read: its probe keeps the hook until the probe is dropped.
      if store.count == 0 { _ = store[\.computedHook] }
    }
    store.send(
      LendingAction {
        $0.hook = nil
        $0.count = 1
      })
    let equalitiesBefore = countedEqualities.load(ordering: .relaxed)
    for value in 1...3 { store.send(LendingAction { $0.counted.value = value }) }
    #expect(countedEqualities.load(ordering: .relaxed) == equalitiesBefore)
    token.cancel()
    #expect(store.observationFootprint == before)
  }

  /// A re-run that fires on `count` and then reads `computedHook` as predicted: `freshen` gives
  /// the lazy probe the new value, and the old value's deinit cancels the running observer and
  /// the other observer of that probe (dropping it from the graph). The run goes on with the
  /// probe it found without a reference, and more predicted reads after it.
  @Test func deinitOfAFreshenedValueCancelsTheRunningObserverAndTheProbesOtherReader() {
    let armed = Atomic<Bool>(false)
    let store = makeLendingStore(LendingState(hook: LendingHook("h0")))
    let before = store.observationFootprint
    let me = EdgeBox<ObservationToken>()
    let other = EdgeBox<ObservationToken>()
    let seen = Log<[Int]>()
    me.value = store.observe {
      let count = store.count
      let hook = store[\.computedHook]
      seen.append([count, hook == nil ? -1 : 1, store.other, store[\.rows, id: 1, \.title] ?? -1])
    }
    other.value = store.observe {
      // Fires on `count` (so the pass does not evaluate `computedHook`).
      _ = store.count
      _ = store[\.computedHook]
    }
    // The probe's value is h0 (read by both first runs). Arm h0's deinit.
    let h0Cancel: @Sendable () -> Void = {
      guard armed.load(ordering: .relaxed) else { return }
      me.take()?.cancel()
      other.take()?.cancel()
    }
    store.send(LendingAction { $0.hook!.onDeinit.withLock { $0 = h0Cancel } })
    armed.store(true, ordering: .relaxed)
    store.send(
      LendingAction {
        $0.count = 1
        $0.hook = LendingHook("h1")
      })
    store.send(LendingAction { $0.count = 2 })
    #expect(seen.values == [[0, 1, 0, 0], [1, 1, 0, 0]])
    #expect(store.observationFootprint == before)
  }

  /// After an action that writes every row, the group lends each row's probes in turn; the
  /// refresh of one releases the old row value, whose deinit cancels every observer and drops
  /// the row stores. The lent probes and the group must stay alive for the rest of the pass.
  @Test func deinitOfAnOldRowDuringThePassCancelsEverything() {
    let store = makeLendingStore()
    let before = store.observationFootprint
    let tokens = Locked<[ObservationToken]>([])
    let rowStores = Locked<[Store<LendingRow, Int>]>([])
    let seen = Log<String>()
    for id in 0..<4 {
      let embed: @Sendable (Int) -> LendingAction = { value in
        LendingAction { $0.rows[id: id]?.title = value }
      }
      if let row = store.scope(state: \.rows, id: id, action: embed) {
        rowStores.withLock { $0.append(row) }
        let token = row.observe { seen.append("row \(id): \(row.title) \(row.hook?.name ?? "-")") }
        tokens.withLock { $0.append(token) }
      }
      let token = store.observe {
        seen.append("root \(id): \(store[\.rows, id: id, \.hook]??.name ?? "-")")
      }
      tokens.withLock { $0.append(token) }
    }
    let cancelEverything: @Sendable () -> Void = {
      let all = tokens.withLock { tokens in
        defer { tokens = [] }
        return tokens
      }
      for token in all { token.cancel() }
      let stores = rowStores.withLock { stores in
        defer { stores = [] }
        return stores
      }
      _ = consume stores
    }
    // Arm every row's current hook: the first one released (during the pass) cancels all.
    store.send(
      LendingAction { state in
        // New hooks (the row stores' unused initial states hold the old ones).
        for id in 0..<4 {
          state.rows[id: id]?.hook = LendingHook("armed \(id)", onDeinit: cancelEverything)
        }
      })
    seen.removeAll()
    store.send(
      LendingAction { state in
        state.rows = IdentifiedArray(
          uniqueElements: (0..<4).map {
            LendingRow(id: $0, title: 1, hook: LendingHook("new \($0)"))
          })
      })
    #expect(seen.values == [])
    store.send(LendingAction { $0.rows[id: 2]?.title = 5 })
    #expect(seen.values == [])
    #expect(store.observationFootprint == before)
  }
}
