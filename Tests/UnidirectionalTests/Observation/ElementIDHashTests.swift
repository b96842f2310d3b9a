import Foundation
import Synchronization
import Testing
import Unidirectional
import UnidirectionalTestSupport

/// How element probes are filed by id (`elementIDHash`): integer ids under their own
/// bits, other ids under `hashValue`. Every filing site and the array's write record must agree,
/// for every id type, or an observer of one row misses its row's writes.
@Suite struct ElementIDHashTests {
  /// Rows 0..<ids.count, observed by field through the root store and through element stores;
  /// each row written, removed and put back in turn: exactly its observers re-run each time.
  @Test func everyIDTypeRerunsExactlyTheObserversOfTheRowWritten() {
    check([0, 1, -1, 2, Int.min, Int.max, -2])
    check([0, 1, -1, Int64.min, Int64.max] as [Int64])
    check([0, 1, Int32.min, Int32.max, -1] as [Int32])
    check([0, 1, UInt32.max, UInt32.max - 1] as [UInt32])
    check([0, 1, UInt64.max, UInt64(1) << 63, UInt64(1) << 32] as [UInt64])
    check([0, 1, UInt.max] as [UInt])
    check([0, 1, -1, 255] as [Int16])
    check(["", "a", "b", "row 7"])
    check([UUID(), UUID(), UUID()])
    check([ElementIDHashCollidingID(1), ElementIDHashCollidingID(2), ElementIDHashCollidingID(3)])
    check([ElementIDHashLooseID(1), ElementIDHashLooseID(2), ElementIDHashLooseID(-3)])
    check([ElementIDHashKind.a, .b(1), .b(2), .c("x")])
  }

  /// Thousands of rows, a few dozen observed: writing one row re-runs only its observers.
  @Test func thousandsOfRowsRerunOnlyTheObserversOfTheRowWritten() {
    var rng = SplitMix64(seed: 27)
    let ids = (0..<3_000).map { $0 * 7 - 10_000 }
    let observed = (0..<40).map { _ in ids[Int(rng.next() % UInt64(ids.count))] }
    let harness = ElementIDHashHarness(ids: ids, observed: Array(Set(observed)))
    for _ in 0..<60 {
      let id = observed[Int(rng.next() % UInt64(observed.count))]
      #expect(harness.write(id) == [id], "write \(id)")
    }
    // Rows no one observes: no observer re-runs.
    for id in ids.prefix(20) where !observed.contains(id) {
      #expect(harness.write(id) == [], "write \(id)")
    }
  }

  /// Two arrays of one state whose ids have equal bits but different types (and so different
  /// groups): a write to one array's row re-runs only the observers of that array's row.
  @Test func equalBitsInArraysOfDifferentIDTypesDoNotMix() {
    let store = Store(
      initialState: ElementIDHashTwoArrays(
        signed: IdentifiedArray(uniqueElements: [-1, 5].map { ElementIDHashRow(id: Int32($0)) }),
        unsigned: IdentifiedArray(uniqueElements: [UInt32.max, 5].map { ElementIDHashRow(id: $0) })),
      reducer: Reduce<ElementIDHashTwoArrays, ElementIDHashTwoArraysAction> { state, action in
        action.apply(&state)
        return .none
      })
    let log = Mutex<[String]>([])
    var tokens: [ObservationToken] = []
    for id in [Int32(-1), 5] {
      tokens.append(
        store.observe {
          let value = store[\.signed, id: id, \.value]
          log.withLock { $0.append("signed \(id): \(value.map(String.init) ?? "nil")") }
        })
    }
    for id in [UInt32.max, 5] {
      tokens.append(
        store.observe {
          let value = store[\.unsigned, id: id, \.value]
          log.withLock { $0.append("unsigned \(id): \(value.map(String.init) ?? "nil")") }
        })
    }
    func send(_ apply: @escaping @Sendable (inout ElementIDHashTwoArrays) -> Void) -> [String] {
      log.withLock { $0 = [] }
      store.send(ElementIDHashTwoArraysAction(apply: apply))
      return log.withLock { $0 }
    }
    #expect(send { $0.unsigned[id: UInt32.max]?.value = 1 } == ["unsigned \(UInt32.max): 1"])
    #expect(send { $0.signed[id: -1]?.value = 2 } == ["signed -1: 2"])
    #expect(send { $0.unsigned[id: 5]?.value = 3 } == ["unsigned 5: 3"])
    #expect(send { $0.signed[id: 5]?.value = 4 } == ["signed 5: 4"])
    #expect(send { $0.signed[id: 5]?.value = 5 } == ["signed 5: 5"])
    #expect(send { $0.unsigned[id: UInt32.max] = nil } == ["unsigned \(UInt32.max): nil"])
    #expect(send { $0.signed[id: -1] = nil } == ["signed -1: nil"])
    withExtendedLifetime(tokens) {}
  }

  // MARK: Harness

  private func check<ID: Hashable & Sendable>(
    _ ids: [ID], sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let harness = ElementIDHashHarness(ids: ids, observed: ids)
    for round in 0..<2 {
      for id in ids {
        #expect(
          harness.write(id) == [id], "round \(round): write \(id)", sourceLocation: sourceLocation)
        // The same row again (the array's run of writes to one element).
        #expect(
          harness.write(id) == [id], "round \(round): write \(id) again",
          sourceLocation: sourceLocation)
      }
    }
    // Element stores keep their row's last state once it is removed: removals are checked
    // through the root store only.
    let removing = ElementIDHashHarness(ids: ids, observed: ids, withElementStores: false)
    for round in 0..<2 {
      for id in ids.reversed() {
        #expect(
          removing.removeAndPutBack(id) == [id, id], "round \(round): remove \(id)",
          sourceLocation: sourceLocation)
      }
      for id in ids {
        #expect(
          removing.write(id) == [id], "round \(round): write \(id) put back",
          sourceLocation: sourceLocation)
      }
    }
    // Several rows in one action: all of their observers.
    #expect(
      Set(harness.writeAll()) == Set(ids), "write all", sourceLocation: sourceLocation)
  }
}

/// A store of rows with ids `ids`; an observer of `value` per observed row through the root
/// store, and one through an element store. `write` and the others return the ids whose
/// observers re-ran, once per id if both kinds agree (else the test sees a mismatch).
final class ElementIDHashHarness<ID: Hashable & Sendable>: @unchecked Sendable {
  let store: Store<ElementIDHashRows<ID>, ElementIDHashRowsAction<ID>>
  let byRoot = ElementIDHashIDLog<ID>()
  let byChild = ElementIDHashIDLog<ID>()
  var tokens: [ObservationToken] = []
  var children: [Store<ElementIDHashRow<ID>, Int>] = []
  var next = 1

  init(ids: [ID], observed: [ID], withElementStores: Bool = true) {
    store = Store(
      initialState: ElementIDHashRows(
        rows: IdentifiedArray(uniqueElements: ids.map { ElementIDHashRow(id: $0) })),
      reducer: Reduce<ElementIDHashRows<ID>, ElementIDHashRowsAction<ID>> { state, action in
        action.apply(&state)
        return .none
      })
    for id in observed {
      let store = store
      let byRoot = byRoot
      tokens.append(
        store.observe {
          _ = store[\.rows, id: id, \.value]
          byRoot.append(id)
        })
      guard withElementStores else { continue }
      let child = store.scope(state: \.rows, id: id) { value in
        ElementIDHashRowsAction { $0.rows[id: id]?.value = value }
      }
      if let child {
        children.append(child)
        let byChild = byChild
        tokens.append(
          child.observe {
            _ = child.value
            byChild.append(id)
          })
      }
    }
    #expect(children.count == (withElementStores ? observed.count : 0))
  }

  private func sent(_ apply: @escaping @Sendable (inout ElementIDHashRows<ID>) -> Void) -> [ID] {
    byRoot.clear()
    byChild.clear()
    store.send(ElementIDHashRowsAction(apply: apply))
    let root = byRoot.values
    let child = byChild.values
    if !children.isEmpty { #expect(root == child, "root store and element stores disagree") }
    return root
  }

  func write(_ id: ID) -> [ID] {
    next += 1
    let value = next
    return sent { $0.rows[id: id]?.value = value }
  }

  func removeAndPutBack(_ id: ID) -> [ID] {
    next += 1
    let value = next
    let removed = sent { $0.rows[id: id] = nil }
    let back = sent { $0.rows.append(ElementIDHashRow(id: id, value: value)) }
    return removed + back
  }

  func writeAll() -> [ID] {
    next += 1
    let value = next
    return sent { state in
      for index in state.rows.indices { state.rows[index].value = value }
    }
  }
}

/// The ids whose observers ran.
final class ElementIDHashIDLog<ID: Sendable>: Sendable {
  private let ids = Mutex<[ID]>([])
  var values: [ID] { ids.withLock { $0 } }
  func append(_ id: ID) { ids.withLock { $0.append(id) } }
  func clear() { ids.withLock { $0 = [] } }
}

struct ElementIDHashRow<ID: Hashable & Sendable>: Identifiable, Equatable, Sendable {
  let id: ID
  var value = 0
}

struct ElementIDHashRows<ID: Hashable & Sendable>: Sendable {
  var rows: IdentifiedArray<ElementIDHashRow<ID>>
}

struct ElementIDHashRowsAction<ID: Hashable & Sendable>: Sendable {
  let apply: @Sendable (inout ElementIDHashRows<ID>) -> Void
}

struct ElementIDHashTwoArrays: Sendable {
  var signed: IdentifiedArray<ElementIDHashRow<Int32>>
  var unsigned: IdentifiedArray<ElementIDHashRow<UInt32>>
}

struct ElementIDHashTwoArraysAction: Sendable {
  let apply: @Sendable (inout ElementIDHashTwoArrays) -> Void
}

/// Every id has one hash: the group files them all together.
struct ElementIDHashCollidingID: Hashable, Sendable, CustomStringConvertible {
  let raw: Int
  init(_ raw: Int) { self.raw = raw }
  func hash(into hasher: inout Hasher) {}
  var description: String { "C\(raw)" }
}

/// `==` ignores the sign, and the hash agrees: a custom `==` that does not compare bits.
struct ElementIDHashLooseID: Hashable, Sendable, CustomStringConvertible {
  let raw: Int
  init(_ raw: Int) { self.raw = raw }
  static func == (lhs: Self, rhs: Self) -> Bool { abs(lhs.raw) == abs(rhs.raw) }
  func hash(into hasher: inout Hasher) { hasher.combine(abs(raw)) }
  var description: String { "L\(raw)" }
}

enum ElementIDHashKind: Hashable, Sendable {
  case a
  case b(Int)
  case c(String)
}
