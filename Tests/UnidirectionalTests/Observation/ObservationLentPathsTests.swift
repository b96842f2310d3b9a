import Foundation
import Testing
import Unidirectional
import UnidirectionalTestSupport

// Paths that use what they need without a reference of their own (observer bodies, row stores'
// element accesses, the element group's kept look-up), reads that find their recorder by
// `AccessRecorder.activeThread`, child stores' `SpinLocked` last states, and `IDHashKey`. Each
// test aims at one way they could go wrong. `IDHashKey` and the kept look-up are here; nested
// recorders, lent bodies and other threads in ObservationLentPathsTests+NestedRecorders,
// +LentBodies and +OtherThreads.

/// An id whose `hashValue` is not `Hasher`'s output: its low 20 bits are always zero. Types
/// that implement `hashValue` themselves (or inherit NSObject's, an address or a CF hash) are
/// like this; `IDHashKey` must mix it before using it as a bucket.
struct UnmixedHashID: Hashable, Sendable {
  let n: Int
  var hashValue: Int { n &<< 20 }
  func hash(into hasher: inout Hasher) { hasher.combine(n &<< 20) }
  static func == (lhs: Self, rhs: Self) -> Bool { lhs.n == rhs.n }
}

/// An id whose every value has one hash: all rows share one probe list.
struct ConstantHashID: Hashable, Sendable {
  let n: Int
  func hash(into hasher: inout Hasher) { hasher.combine(7) }
}

struct HashedIDRow<ID: Hashable & Sendable>: Identifiable, Sendable, Equatable {
  let id: ID
  var title = 0
}

struct HashedIDRowsState<ID: Hashable & Sendable>: Sendable {
  var rows: IdentifiedArray<HashedIDRow<ID>> = []
  var other = 0
}

struct HashedIDRowsAction<ID: Hashable & Sendable>: Sendable {
  let apply: @Sendable (inout HashedIDRowsState<ID>) -> Void
  init(_ apply: @escaping @Sendable (inout HashedIDRowsState<ID>) -> Void) { self.apply = apply }
}

func makeHashedIDRowsStore<ID: Hashable & Sendable>(_ ids: [ID]) -> Store<
  HashedIDRowsState<ID>, HashedIDRowsAction<ID>
> {
  Store(
    initialState: HashedIDRowsState(
      rows: IdentifiedArray(uniqueElements: ids.map { HashedIDRow(id: $0) })),
    reducer: Reduce<HashedIDRowsState<ID>, HashedIDRowsAction<ID>> { state, action in
      action.apply(&state)
      return .none
    })
}

/// Two stores for nested drains: an observer of one sends to the other.
struct LentPairState: Sendable, Equatable {
  var x = 0
  var y = 0
  var z = 0
  var rows: IdentifiedArray<HashedIDRow<Int>> = IdentifiedArray(
    uniqueElements: (0..<3).map { HashedIDRow(id: $0) })
}

struct LentPairAction: Sendable {
  let apply: @Sendable (inout LentPairState) -> Void
  init(_ apply: @escaping @Sendable (inout LentPairState) -> Void) { self.apply = apply }
}

func makeLentPairStore() -> Store<LentPairState, LentPairAction> {
  Store(
    initialState: LentPairState(),
    reducer: Reduce<LentPairState, LentPairAction> { state, action in
      action.apply(&state)
      return .none
    })
}

@Suite(.serialized) struct ObservationLentPathsTests {
  // MARK: IDHashKey

  /// Rows whose id hashes collide entirely share one probe list: a write to one row must fire
  /// exactly the observers of that row, and only them.
  @Test func rowsWhoseIDsAllHashAlikeFireExactly() {
    let ids = (0..<16).map { ConstantHashID(n: $0) }
    let store = makeHashedIDRowsStore(ids)
    let runs = Log<Int>()
    var tokens: [ObservationToken] = []
    for id in ids {
      tokens.append(
        store.observe {
          _ = store[\.rows, id: id, \.title]
          runs.append(id.n)
        })
    }
    runs.removeAll()
    for round in 1...3 {
      for id in ids.shuffled() {
        store.send(HashedIDRowsAction { $0.rows[id: id]?.title = round })
        #expect(runs.values == [id.n])
        runs.removeAll()
        // An equal write fires nothing.
        store.send(HashedIDRowsAction { $0.rows[id: id]?.title = round })
        #expect(runs.values == [])
      }
    }
    withExtendedLifetime(tokens) {}
  }

  /// Rows whose ids' `hashValue` is not mixed (low bits all zero) must still fire exactly.
  @Test func rowsWhoseIDHashesHaveZeroLowBitsFireExactly() {
    let ids = (0..<64).map { UnmixedHashID(n: $0) }
    let store = makeHashedIDRowsStore(ids)
    let runs = Log<Int>()
    var tokens: [ObservationToken] = []
    for id in ids {
      tokens.append(
        store.observe {
          _ = store[\.rows, id: id, \.title]
          runs.append(id.n)
        })
    }
    runs.removeAll()
    for id in ids.shuffled() {
      store.send(HashedIDRowsAction { $0.rows[id: id]?.title = 1 })
      #expect(runs.values == [id.n])
      runs.removeAll()
    }
    withExtendedLifetime(tokens) {}
  }

  /// Observers of many rows whose ids' `hashValue` differ only in their high bits (see
  /// `ElementGroupTests`, which checks how `IDHashKey` spreads them): each fires exactly on its
  /// row's writes.
  @Test func manyRowObserversWithUnmixedIDHashesFireExactly() {
    let count = 2_000
    func check<ID: Hashable & Sendable>(_ ids: [ID]) {
      let store = makeHashedIDRowsStore(ids)
      let fired = Locked<[Int]>([])
      let tokens = ids.enumerated().map { index, id in
        store.observe {
          _ = store[\.rows, id: id, \.title]
          fired.withLock { $0.append(index) }
        }
      }
      fired.withLock { $0 = [] }
      // Single rows: each write looks its probes up by the id's hash.
      let written = Array(ids.prefix(500).enumerated())
      for (index, id) in written {
        store.send(HashedIDRowsAction { $0.rows[id: id]?.title = index + 1 })
      }
      #expect(fired.withLock { $0 } == written.map(\.offset))
      for token in tokens { token.cancel() }
    }
    check((0..<count).map { $0 })
    check((0..<count).map { UnmixedHashID(n: $0) })
  }

  // MARK: Kept look-up lent in place

  /// Successive writes to one row make the group keep its look-up and lend it in place; a write
  /// whose refresh releases an old value, whose deinit cancels every observer and drops the
  /// row stores, must not free the lent list during the pass.
  @Test func deinitDuringAPassOverTheKeptLookUpCancelsEverything() {
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
        for _ in 0..<3 {
          let token = row.observe {
            seen.append("row \(id): \(row.title) \(row.hook?.name ?? "-")")
          }
          tokens.withLock { $0.append(token) }
        }
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
    // Successive writes to row 2: the second and later ones use the kept look-up.
    store.send(LendingAction { $0.rows[id: 2]?.title = 1 })
    store.send(LendingAction { $0.rows[id: 2]?.title = 2 })
    store.send(LendingAction { $0.rows[id: 2]?.title = 3 })
    store.send(
      LendingAction { $0.rows[id: 2]?.hook = LendingHook("armed", onDeinit: cancelEverything) })
    store.send(LendingAction { $0.rows[id: 2]?.title = 4 })
    seen.removeAll()
    // Releases "armed" during the pass over the kept look-up.
    store.send(LendingAction { $0.rows[id: 2]?.hook = LendingHook("new") })
    #expect(seen.values == [])
    store.send(LendingAction { $0.rows[id: 2]?.title = 5 })
    store.send(LendingAction { $0.rows[id: 1]?.title = 5 })
    #expect(seen.values == [])
    #expect(store.observationFootprint == before)
  }

  /// The kept look-up must follow probes added and removed between writes to one row.
  @Test func keptLookUpFollowsObserversAddedAndRemovedBetweenWrites() {
    let store = makeHashedIDRowsStore(Array(0..<4))
    let runs = Log<String>()
    store.send(HashedIDRowsAction { $0.rows[id: 1]?.title = 1 })
    store.send(HashedIDRowsAction { $0.rows[id: 1]?.title = 2 })
    let a = store.observe { runs.append("a \(store[\.rows, id: 1, \.title] ?? -1)") }
    store.send(HashedIDRowsAction { $0.rows[id: 1]?.title = 3 })
    store.send(HashedIDRowsAction { $0.rows[id: 1]?.title = 4 })
    let b = store.observe { runs.append("b \(store[\.rows, id: 1, \.title] ?? -1)") }
    store.send(HashedIDRowsAction { $0.rows[id: 1]?.title = 5 })
    a.cancel()
    store.send(HashedIDRowsAction { $0.rows[id: 1]?.title = 6 })
    b.cancel()
    store.send(HashedIDRowsAction { $0.rows[id: 1]?.title = 7 })
    #expect(runs.values == ["a 2", "a 3", "a 4", "b 4", "a 5", "b 5", "b 6"])
  }
}
