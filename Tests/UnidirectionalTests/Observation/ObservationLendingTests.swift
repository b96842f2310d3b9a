import Foundation
import Synchronization
import Testing
import Unidirectional
import UnidirectionalTestSupport

// Paths where user code (a deinit, a getter, another store's observer) runs while the store
// uses a probe, an element group or an observer without a reference of its own (see the
// invariants in ARCHITECTURE.md): cancelling observers and dropping probes there must neither
// free what is in use nor leave anything behind.

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

  /// `forEach` finds the row it updated last by position: after removals, moves and a
  /// replacement of the whole array, the hint must never pick another row.
  @Test func forEachHintFollowsRemovalsMovesAndReplacements() {
    let store = Store(initialState: LendingListFeature.State()) { LendingListFeature() }
    func taps() -> [Int: Int] {
      Dictionary(uniqueKeysWithValues: store.state.rows.elementsArray.map { ($0.id, $0.taps) })
    }
    store.send(.row(id: 4, action: .tapped))  // Hint: position 4.
    store.send(.edit { $0.rows.remove(id: 0) })  // Row 4 moves to 3; position 4 is out of range.
    store.send(.row(id: 4, action: .tapped))
    store.send(.row(id: 2, action: .tapped))  // Hint: position 1.
    store.send(.edit { $0.rows.swapAt(1, 2) })  // Position 1 now holds row 3.
    store.send(.row(id: 3, action: .tapped))
    store.send(
      .edit {
        $0.rows = IdentifiedArray(uniqueElements: [10, 3, 11].map { RowFeature.State(id: $0) })
      })
    store.send(.row(id: 3, action: .tapped))
    store.send(.row(id: 11, action: .tapped))
    #expect(taps() == [10: 0, 3: 1, 11: 1])
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

struct LendingListFeature: Reducer {
  struct State: Equatable, Sendable {
    var rows: IdentifiedArray<RowFeature.State> = IdentifiedArray(
      uniqueElements: (0..<5).map { RowFeature.State(id: $0) })
  }
  enum Action: Sendable {
    case row(id: Int, action: RowFeature.Action)
    case edit(@Sendable (inout State) -> Void)
  }
  var body: some Reducer<State, Action> {
    Reduce { state, action in
      if case .edit(let edit) = action { edit(&state) }
      return .none
    }
    .forEach(\.rows, action: .case(Action.row)) { RowFeature(log: Log()) }
  }
}
