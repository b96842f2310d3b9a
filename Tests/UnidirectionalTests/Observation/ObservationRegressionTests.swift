// Over 300 lines on purpose: the catalogue of issue 12, one test per regression under a MARK per
// kind of failure (1 to 7, the order); most tests share the state and reducer at the top.

import Foundation
import Testing
import Unidirectional
import UnidirectionalTestSupport

/// One test per way observation broke before (issue 12), named after the behaviour it keeps.
@Suite struct ObservationRegressionTests {
  struct Detail: Equatable, Sendable {
    var count = 0
  }

  struct Row: Identifiable, Equatable, Sendable {
    let id: Int
    var name: String
  }

  struct State: Sendable {
    var todos = [1, 2, 3]
    var table = ["a": 1]
    var tags: Set<String> = ["x"]
    var items = Array(0..<10)
    var detail: Detail? = Detail()
    var rows: IdentifiedArray<Row> = [Row(id: 1, name: "a"), Row(id: 2, name: "z")]
    var child = Child()
    var ratio = 0.0
    var counter = 0
  }

  struct Child: Equatable, Sendable {
    var a = 0
    var b = 0
  }

  enum Action: Sendable {
    case reloadTodos, appendTodo(Int)
    case reloadTable, setTableEntry(String, Int)
    case reloadTags, insertTag(String)
    case remapItems, setItem(Int, Int), shrinkItems(to: Int)
    case clearDetail
    case renameRow(id: Int, String), removeRow(id: Int)
    case setB(Int)
    case setRatio(Double)
    case bump
  }

  static let reducer = Reduce<State, Action> { state, action in
    switch action {
    case .reloadTodos:
      // An equal array in a new buffer with room to grow, as a reload of the same list gives.
      var reloaded: [Int] = []
      reloaded.reserveCapacity(64)
      reloaded.append(contentsOf: state.todos)
      state.todos = reloaded
    case .appendTodo(let value): state.todos.append(value)
    case .reloadTable:
      var reloaded = [String: Int](minimumCapacity: 64)
      for (key, value) in state.table { reloaded[key] = value }
      state.table = reloaded
    case .setTableEntry(let key, let value): state.table[key] = value
    case .reloadTags:
      var reloaded = Set<String>(minimumCapacity: 64)
      for tag in state.tags { reloaded.insert(tag) }
      state.tags = reloaded
    case .insertTag(let tag): state.tags.insert(tag)
    case .remapItems: state.items = state.items.map { $0 }
    case .setItem(let index, let value): state.items[index] = value
    case .shrinkItems(let count): state.items.removeLast(state.items.count - count)
    case .clearDetail: state.detail = nil
    case .renameRow(let id, let name): state.rows[id: id]?.name = name
    case .removeRow(let id): state.rows.remove(id: id)
    case .setB(let value): state.child.b = value
    case .setRatio(let value): state.ratio = value
    case .bump: state.counter += 1
    }
    return .none
  }

  static func makeStore() -> Store<State, Action> {
    Store(initialState: State(), reducer: reducer)
  }

  // MARK: 1. Missed change

  /// One action changes several stored values spread over a state of several KiB (the bytes the
  /// store compares after an action): every observer of a changed value runs, wherever its
  /// bytes are in the comparison's chunks and halves, and no other.
  @Test func everyChangedValueOfALargeStateIsSeen() {
    struct Wide: Sendable {
      // Inline storage, 64 bytes a `Slab`: values live at many offsets of the state.
      struct Slab: Sendable {
        var a = 0, b = 0, c = 0, d = 0, e = 0, f = 0, g = 0, h = 0
      }
      var slabs: (Slab, Slab, Slab, Slab, Slab, Slab, Slab, Slab) = (
        Slab(), Slab(), Slab(), Slab(), Slab(), Slab(), Slab(), Slab()
      )
    }
    struct State: Sendable {
      var head = 0
      var wide = (Wide(), Wide(), Wide(), Wide())
      var tail = 0
    }
    let paths: [(String, WritableKeyPath<State, Int> & Sendable)] = [
      ("head", \.head), ("w0.s0.a", \.wide.0.slabs.0.a), ("w0.s7.h", \.wide.0.slabs.7.h),
      ("w1.s3.d", \.wide.1.slabs.3.d), ("w1.s4.e", \.wide.1.slabs.4.e),
      ("w2.s0.a", \.wide.2.slabs.0.a), ("w3.s5.b", \.wide.3.slabs.5.b), ("tail", \.tail),
    ]
    let store = Store(
      initialState: State(),
      reducer: Reduce<State, [Int]> { state, changed in
        for index in changed { state[keyPath: paths[index].1] += 1 }
        return .none
      })
    #expect(MemoryLayout<State>.size > 2_048)
    let fired = Log<String>()
    let tokens = paths.map { name, path in
      store.observe {
        _ = store[path]
        fired.append(name)
      }
    }
    fired.removeAll()
    // Every pair of the values, changed together, in one action.
    for first in paths.indices {
      for second in paths.indices where second > first {
        store.send([first, second])
        #expect(Set(fired.values) == [paths[first].0, paths[second].0], "\(first), \(second)")
        fired.removeAll()
      }
    }
    withExtendedLifetime(tokens) {}
  }

  @Test func anEqualReassignmentOnAFreshBufferDoesNotHideALaterChange() {
    let store = Self.makeStore()
    let todos = Log<[Int]>()
    let table = Log<[String: Int]>()
    let tags = Log<Set<String>>()
    let items = Log<Int>()
    let tokens = [
      store.observe(\.todos) { todos.append($0) },
      store.observe(\.table) { table.append($0) },
      store.observe(\.tags) { tags.append($0) },
      store.observe(\.items) { items.append($0[0]) },
    ]
    store.send(.reloadTodos)
    store.send(.appendTodo(4))
    store.send(.reloadTable)
    store.send(.setTableEntry("b", 2))
    store.send(.reloadTags)
    store.send(.insertTag("y"))
    store.send(.remapItems)
    store.send(.setItem(0, 99))
    #expect(todos.values == [[1, 2, 3], [1, 2, 3, 4]])
    #expect(table.values == [["a": 1], ["a": 1, "b": 2]])
    #expect(tags.values == [["x"], ["x", "y"]])
    #expect(items.values == [0, 99])
    withExtendedLifetime(tokens) {}
  }

  // MARK: 2. Crash

  @Test func aGuardedIndexReadIsNotReevaluatedAfterTheArrayShrinks() {
    let store = Self.makeStore()
    let seen = Log<String>()
    let token = store.observe {
      if store.items.count > 7 {
        seen.append("items[7] = \(store[\.items[7]])")
      } else {
        seen.append("\(store.items.count) items")
      }
    }
    store.send(.shrinkItems(to: 3))
    #expect(seen.values == ["items[7] = 7", "3 items"])
    withExtendedLifetime(token) {}
  }

  @Test func aGuardedForceUnwrapIsNotReevaluatedAfterTheOptionalIsCleared() {
    let store = Self.makeStore()
    let seen = Log<String>()
    let token = store.observe {
      if store.detail != nil {
        seen.append("count \(store[\.detail!.count])")
      } else {
        seen.append("no detail")
      }
    }
    store.send(.clearDetail)
    #expect(seen.values == ["count 0", "no detail"])
    withExtendedLifetime(token) {}
  }

  @Test func aReadOutsideAnyObserverIsNotReevaluatedLater() {
    let store = Self.makeStore()
    let before = store.observationFootprint
    #expect(store[\.items[7]] == 7)
    #expect(store[\.detail!.count] == 0)
    #expect(store.observationFootprint == before)
    store.send(.shrinkItems(to: 3))
    store.send(.clearDetail)
    #expect(store.items.count == 3)
  }

  // MARK: 3. Deadlock

  @Test func anObserverCancellingItselfReleasesItsCapturesOutsideTheLock() async {
    let finished = await finishes(within: .seconds(10)) {
      let store = Self.makeStore()
      let slot = Locked<ObservationToken?>(nil)
      do {
        // The observer holds the only references to another token of the same store and to a
        // row store: releasing its closure runs their deinit, which calls back into the store.
        let other = store.observe { _ = store.counter }
        let row = store.scope(state: \.rows, id: 1) { (_: Int) in Action.bump }!
        let rowToken = row.observe { _ = row.name }
        slot.withLock { token in
          token = store.observe { [other, row, rowToken] in
            _ = (other, row, rowToken)
            if store.counter > 0 { slot.withLock { $0 }?.cancel() }
          }
        }
      }
      store.send(.bump)
      slot.withLock { $0 = nil }
      store.send(.bump)
    }
    #expect(finished, "send never returned: the store deadlocked")
  }

  @Test func anObserverCancelledFromAnotherThreadWhileRunningReleasesItsCapturesOutsideTheLock()
    async
  {
    let finished = await finishes(within: .seconds(10)) {
      let store = Self.makeStore()
      let running = DispatchSemaphore(value: 0)
      let cancelled = DispatchSemaphore(value: 0)
      let slot = Locked<ObservationToken?>(nil)
      do {
        let other = store.observe { _ = store.counter }
        let row = store.scope(state: \.rows, id: 1) { (_: Int) in Action.bump }!
        slot.withLock { token in
          token = store.observe { [other, row] in
            _ = (other, row)
            guard store.counter == 1 else { return }
            running.signal()
            cancelled.wait()
          }
        }
      }
      let canceller = Thread {
        running.wait()
        let token = slot.withLock { token in
          defer { token = nil }
          return token
        }
        token?.cancel()
        cancelled.signal()
      }
      canceller.start()
      store.send(.bump)
      store.send(.bump)
    }
    #expect(finished, "send never returned: the store deadlocked")
  }

  // MARK: 4. Unbounded cost

  @Test func readsOutsideObserversLeaveNothingBehind() {
    let store = Self.makeStore()
    let before = store.observationFootprint
    for index in 0..<1_000 {
      _ = store[\.items[index % 10]]
      _ = store[\.table["k\(index)"]]
    }
    _ = store.counter
    _ = store.state
    #expect(store.observationFootprint == before)
  }

  // MARK: 5. Stale row store

  @Test func aRowStoreOfARemovedRowAnswersTheRowsLastValue() {
    let store = Self.makeStore()
    let row = store.scope(state: \.rows, id: 1) { (_: Int) in Action.bump }!
    let names = Log<String>()
    let token = row.observe { names.append(row.name) }
    store.send(.renameRow(id: 1, "b"))
    store.send(.removeRow(id: 1))
    #expect(names.values == ["a", "b"])
    #expect(row.name == "b")
    withExtendedLifetime(token) {}
  }

  @Test func aRowStoreAnswersTheLastValueEvenWhenNothingReadIt() {
    let store = Self.makeStore()
    let row = store.scope(state: \.rows, id: 1) { (_: Int) in Action.bump }!
    store.send(.renameRow(id: 1, "b"))
    store.send(.removeRow(id: 1))
    #expect(row.name == "b")
  }

  // MARK: 6. Silent stop

  @Test func anObserverOfAnUnretainedChildStoreKeepsRunning() {
    let store = Self.makeStore()
    let values = Log<Int>()
    let token = store.scope(state: \.child, action: { (_: Int) in Action.bump })
      .observe(\.b) { values.append($0) }
    store.send(.setB(1))
    store.send(.setB(2))
    #expect(values.values == [0, 1, 2])
    withExtendedLifetime(token) {}
  }

  // MARK: 7. Equality

  @Test func notANumberFollowsOneRuleWhateverTheKeyPath() {
    let store = Self.makeStore()
    store.send(.setRatio(.nan))
    let stored = Log<Double>()
    let computed = Log<Double>()
    let tokens = [
      store.observe(\.ratio) { stored.append($0) },
      store.observe(\.ratio.magnitude) { computed.append($0) },
    ]
    store.send(.bump)
    store.send(.setRatio(.nan))
    // The same bits: unchanged, for a stored and a computed key path alike.
    #expect(stored.values.count == 1)
    #expect(computed.values.count == 1)
    store.send(.setRatio(1))
    #expect(stored.values.count == 2)
    #expect(computed.values.count == 2)
    withExtendedLifetime(tokens) {}
  }
}
