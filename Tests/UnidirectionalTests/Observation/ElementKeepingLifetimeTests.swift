import Synchronization
import Testing
import Unidirectional
import UnidirectionalTestSupport

// A row store's states must not outlive it. Two ways they did (see `ElementKeeping`):
// - The keeper's probe held its `ElementKeeping` (its `read` closure captures the `FieldRead`,
//   which held the keeping), and the keeping holds the keeper's probe (`heldKeeper`): a cycle,
//   so every row store made by `scope(state:id:action:)` leaked its keeper probe and its last
//   known state (`lastKnown`), whatever its observers. The keeper's own read keeps nothing now.
// - A row store's keeper probe is skipped in a pass in which a probe of a stored field of the
//   same row store kept the row. The keeper's probe was made holding the row as first read, and
//   only its own refresh let that copy go (see `ElementAccess.keeperRead`): skipped on every
//   write, it kept the row's first state alive for as long as the keeper lived. It is made
//   holding nothing now.

@Suite(.serialized) struct ElementKeepingLifetimeTests {
  static func store(firstHook: LendingHook) -> Store<LendingState, LendingAction> {
    makeLendingStore(
      LendingState(rows: IdentifiedArray(uniqueElements: [LendingRow(id: 1, hook: firstHook)])))
  }

  static let embed: @Sendable (Int) -> LendingAction = { value in
    LendingAction { $0.rows[id: 1]?.title = value }
  }

  /// The row's first state holds a hook; the row is then written (the hook replaced) while an
  /// observer of a stored field of its row store runs. Once the row store object is gone (its
  /// own copy of the first state with it), nothing should hold the first hook: the row store's
  /// last state is the row as last written.
  @Test(arguments: [false, true])
  func aKeptRowsFirstStateIsReleasedOnceWrittenOver(observesAField: Bool) throws {
    let released = Atomic<Bool>(false)
    let store = Self.store(
      firstHook: LendingHook("first") { released.store(true, ordering: .relaxed) })
    var row = store.scope(state: \.rows, id: 1, action: Self.embed)
    try #require(row != nil)
    let titles = Log<Int>()
    // Reads a stored field through `ElementAccess`, without keeping the row store.
    let token = observesAField ? row?.observe(\.title) { titles.append($0) } : nil
    // The row store's own state (its initial state) holds the first hook too: drop the store.
    row = nil
    store.send(
      LendingAction {
        $0.rows[id: 1]?.title = 1
        $0.rows[id: 1]?.hook = LendingHook("second")
      })
    store.send(LendingAction { $0.rows[id: 1]?.title = 2 })
    let isReleased = released.load(ordering: .relaxed)
    #expect(
      isReleased, "the first state of the row is still held (observesAField: \(observesAField))")
    #expect(titles.values == (observesAField ? [0, 1, 2] : []))
    withExtendedLifetime(token) {}
  }

  /// A row store is made, its row written (with or without an observer of a stored field), then
  /// the observer, the row store and the row go away: nothing may still hold any state the row
  /// had. Before `ElementKeeping`, the keeper's probe and its last known state were released with
  /// the row store's keeper observer.
  @Test(arguments: [false, true])
  func aDroppedRowStoreReleasesEveryStateOfItsRow(observesAField: Bool) throws {
    let firstReleased = Atomic<Bool>(false)
    let secondReleased = Atomic<Bool>(false)
    let store = Self.store(
      firstHook: LendingHook("first") { firstReleased.store(true, ordering: .relaxed) })
    do {
      let row = try #require(store.scope(state: \.rows, id: 1, action: Self.embed))
      let token = observesAField ? row.observe(\.title) { _ in } : nil
      store.send(
        LendingAction {
          $0.rows[id: 1]?.title = 1
          $0.rows[id: 1]?.hook = LendingHook("second") {
            secondReleased.store(true, ordering: .relaxed)
          }
        })
      #expect(row.hook?.name == "second")
      token?.cancel()
    }
    store.send(LendingAction { $0.rows.remove(id: 1) })
    let first = firstReleased.load(ordering: .relaxed)
    let second = secondReleased.load(ordering: .relaxed)
    #expect(first, "first state held (observesAField: \(observesAField))")
    #expect(second, "last state held (observesAField: \(observesAField))")
  }

  /// The row store keeps answering with the row as last written after the row is removed, with
  /// a stored-field observer, a lazy observer, and a second row store of the row made after the
  /// field probe was filed, when writes alternate between the row and a row whose id collides
  /// with it in the group (an integer id is filed by its bits: ids equal modulo nothing here, so
  /// the collision is made by a custom hash).
  @Test func collidingIdsKeepEachRowsLastState() throws {
    let store = Store(
      initialState: CollidingState(),
      reducer: Reduce<CollidingState, CollidingAction> { state, action in
        switch action {
        case .write(let id, let value): state.rows[id: id]?.value = value
        case .remove(let id): state.rows.remove(id: id)
        case .both(let value):
          for id in state.rows.ids { state.rows[id: id]?.value = value }
        }
        return .none
      })
    let embed = { @Sendable (never: Never) -> CollidingAction in }
    let a = try #require(store.scope(state: \.rows, id: CollidingID(raw: 1), action: embed))
    let b = try #require(store.scope(state: \.rows, id: CollidingID(raw: 2), action: embed))
    let seen = Log<String>()
    let tokenA = a.observe { seen.append("a\(a.value)") }
    let tokenB = b.observe { seen.append("b\(b.value)") }
    let a2 = try #require(store.scope(state: \.rows, id: CollidingID(raw: 1), action: embed))
    var lastA = 0
    var lastB = 0
    for step in 1...12 {
      switch step % 3 {
      case 0:
        store.send(.write(CollidingID(raw: 1), step))
        lastA = step
      case 1:
        store.send(.write(CollidingID(raw: 2), step))
        lastB = step
      default:
        store.send(.both(step))
        lastA = step
        lastB = step
      }
    }
    store.send(.remove(CollidingID(raw: 1)))
    store.send(.write(CollidingID(raw: 2), 100))
    store.send(.remove(CollidingID(raw: 2)))
    #expect(a.value == lastA)
    #expect(a2.value == lastA)
    #expect(b.value == 100)
    _ = lastB
    withExtendedLifetime((tokenA, tokenB)) {}
  }
}

struct CollidingID: Hashable, Sendable {
  let raw: Int
  /// Every id has one hash: the group files all rows under one key.
  func hash(into hasher: inout Hasher) { hasher.combine(0) }
}

struct CollidingRow: Identifiable, Equatable, Sendable {
  let id: CollidingID
  var value = 0
}

struct CollidingState: Sendable {
  var rows = IdentifiedArray(
    uniqueElements: [1, 2, 3].map { CollidingRow(id: CollidingID(raw: $0)) })
}

enum CollidingAction: Sendable {
  case write(CollidingID, Int)
  case remove(CollidingID)
  case both(Int)
}
