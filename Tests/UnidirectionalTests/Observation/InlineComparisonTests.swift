import Synchronization
import Testing
import Unidirectional

/// Values whose `==` is bit equality (the fixed-width integers and `Bool`) are compared inline by
/// the probes that read them, not through their rule's closures (see `hasBitwiseEquality`).
/// Through every kind of read (a stored field of the root state, a field of a row through the
/// root store, a field through a row's own store) an observer re-runs exactly when the value
/// is `!=` the one it read last; optionals and values compared by `==` keep their rules.
@Suite struct InlineComparisonTests {
  @Test func integersAndBooleansRerunExactlyWhenTheValueChanges() {
    check([0, 0, 1, -1, -1, Int.min, Int.max, 0])
    check([0, 255, 255, 1, 128] as [UInt8])
    check([0, -1, Int8.min, Int8.min, Int8.max] as [Int8])
    check([0, 1, UInt16.max, UInt16.max] as [UInt16])
    check([0, -1, Int32.min, 7, 7] as [Int32])
    check([0, UInt64.max, UInt64(1) << 63, 0] as [UInt64])
    check([false, true, true, false, false])
  }

  /// An optional is compared by its own rule: `nil` again is unchanged, `nil` and `0` differ.
  @Test func optionalIntegersKeepTheirRule() {
    check([nil, nil, 0, 0, nil, 5, nil] as [Int?])
  }

  /// `Double` is not compared by bits: `-0.0` after `0.0` is `==`, so no observer re-runs.
  @Test func doublesAreComparedByEquality() {
    check([0.0, -0.0, 0.0, 1.5, 1.5, -0.0])
  }

  // MARK: Harness

  /// Sends each value in turn (into the root state's field and into row 1) and checks that each
  /// of the three observers re-ran exactly when the value differs from the previous one.
  private func check<Value: Equatable & Sendable>(
    _ values: [Value], sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let first = values[0]
    let store = Store(
      initialState: InlineComparisonState(
        value: first,
        rows: IdentifiedArray(
          uniqueElements: [1, 2].map { InlineComparisonRow(id: $0, value: first) })),
      reducer: Reduce<InlineComparisonState<Value>, Value> { state, value in
        state.value = value
        state.rows[id: 1]?.value = value
        return .none
      })
    let row = store.scope(state: \.rows, id: 1) { (value: Value) in value }!
    let runs = Mutex([0, 0, 0])
    let tokens = [
      store.observe {
        _ = store.value
        runs.withLock { $0[0] += 1 }
      },
      store.observe {
        _ = store[\.rows, id: 1, \.value]
        runs.withLock { $0[1] += 1 }
      },
      row.observe {
        _ = row.value
        runs.withLock { $0[2] += 1 }
      },
    ]
    var previous = first
    for value in values.dropFirst() {
      let before = runs.withLock { $0 }
      store.send(value)
      let expected = before.map { $0 + (value != previous ? 1 : 0) }
      #expect(
        runs.withLock { $0 } == expected, "\(previous) then \(value)",
        sourceLocation: sourceLocation)
      previous = value
    }
    withExtendedLifetime(tokens) {}
  }
}

struct InlineComparisonRow<Value: Sendable>: Identifiable, Sendable {
  let id: Int
  var value: Value
}

struct InlineComparisonState<Value: Sendable>: Sendable {
  var value: Value
  var rows: IdentifiedArray<InlineComparisonRow<Value>>
}
