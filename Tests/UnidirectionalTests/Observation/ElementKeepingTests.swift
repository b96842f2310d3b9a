import Testing
import Unidirectional
import UnidirectionalTestSupport

/// A row store (`scope(state:id:action:)`) keeps its row's last state, to answer from once the
/// row is gone: its keeper remembers the row after every write, or a probe of one of the row's
/// stored fields does it for the keeper in the same pass. Whoever does it, the row store must
/// answer with the row as it was last written, every field of it, whatever its observers read.
@Suite struct ElementKeepingTests {
  struct Row: Identifiable, Equatable, Sendable {
    let id: Int
    var value = 0
    /// Never read by an observer here: a keeping field probe must remember the whole row.
    var note = ""
    var doubled: Int { value &* 2 }
  }

  struct State: Sendable {
    var rows = IdentifiedArray(uniqueElements: (1...3).map { Row(id: $0) })
  }

  enum Action: Sendable {
    case value(Int, Int)
    case note(Int, String)
    /// Writes two rows in one action: the group refreshes the probes of every row.
    case both(Int, String)
    case reverse
    case remove(Int)
  }

  static let reducer = Reduce<State, Action> { state, action in
    switch action {
    case .value(let id, let value): state.rows[id: id]?.value = value
    case .note(let id, let note): state.rows[id: id]?.note = note
    case .both(let value, let note):
      state.rows[id: 1]?.value = value
      state.rows[id: 2]?.note = note
    case .reverse: state.rows.sort { $0.id > $1.id }
    case .remove(let id): state.rows.remove(id: id)
    }
    return .none
  }

  /// Who observes row 1 while it is written.
  enum Observers: CaseIterable, Sendable {
    case none
    /// An observer of the row store reading a stored field.
    case storedField
    /// One reading a computed property: its probe is evaluated lazily, and keeps nothing.
    case computedField
    /// An observer of the root store reading through the row store.
    case rootObserver
    /// A stored-field observer cancelled halfway through the writes.
    case cancelledHalfway
    /// Two row stores of the row; only the first is observed.
    case secondStore
  }

  /// Random writes to row 1 (and others), then its removal: every row store of row 1 must
  /// answer with the row as last written, and its field observers must not have run for the
  /// removal.
  func keepsTheLastRow(observers: Observers, seed: UInt64) throws {
    var random = SplitMix64(seed: seed)
    let store = Store(initialState: State(), reducer: Self.reducer)
    let embed = { @Sendable (never: Never) -> Action in }
    let row = try #require(store.scope(state: \.rows, id: 1, action: embed))
    var rows = [row]
    let reads = Log<Int>()
    var token: ObservationToken?
    switch observers {
    case .none: break
    case .storedField, .cancelledHalfway: token = row.observe { reads.append(row.value) }
    case .computedField: token = row.observe { reads.append(row.doubled) }
    case .rootObserver: token = store.observe { reads.append(row.value) }
    case .secondStore:
      token = row.observe { reads.append(row.value) }
      // Made after the first store's field probe is filed.
      rows.append(try #require(store.scope(state: \.rows, id: 1, action: embed)))
    }
    var last = Row(id: 1)
    let steps = 12
    for step in 0..<steps {
      if step == steps / 2, observers == .cancelledHalfway { token = nil }
      let value = Int(random.next() % 4)
      let note = "n\(random.next() % 3)"
      switch random.next() % 5 {
      case 0:
        store.send(.value(1, value))
        last.value = value
      case 1:
        store.send(.note(1, note))
        last.note = note
      case 2:
        store.send(.both(value, note))
        last.value = value
      case 3: store.send(.reverse)
      default: store.send(.value(2, value))
      }
    }
    let runsBeforeRemoval = reads.values.count
    store.send(.remove(1))
    #expect(store.rows[id: 1] == nil)
    for (index, row) in rows.enumerated() {
      #expect(row.state == last, "store \(index), \(observers), seed \(seed)")
      #expect(row.note == last.note, "store \(index), \(observers), seed \(seed)")
    }
    #expect(reads.values.count == runsBeforeRemoval, "\(observers), seed \(seed)")
    withExtendedLifetime(token) {}
  }

  @Test(arguments: Observers.allCases, 0..<8 as Range<UInt64>)
  func aRemovedRowsStoresAnswerWithTheRowAsLastWritten(observers: Observers, seed: UInt64)
    throws
  {
    try keepsTheLastRow(observers: observers, seed: seed)
  }

  /// Only unobserved fields are written last, after a write of the observed one: the field
  /// probe's refresh is the only one that sees the row, so it must remember all of it.
  @Test func aFieldProbeKeepsFieldsItDoesNotRead() throws {
    let store = Store(initialState: State(), reducer: Self.reducer)
    let embed = { @Sendable (never: Never) -> Action in }
    let row = try #require(store.scope(state: \.rows, id: 1, action: embed))
    let values = Log<Int>()
    let token = row.observe { values.append(row.value) }
    store.send(.value(1, 5))
    store.send(.note(1, "kept"))
    store.send(.remove(1))
    #expect(row.state == Row(id: 1, value: 5, note: "kept"))
    #expect(values.values == [0, 5])
    withExtendedLifetime(token) {}
  }
}
