import Foundation
import Testing
import Unidirectional
import UnidirectionalTestSupport

// Row stores (`scope(state:id:action:)`) read through their `ElementAccess`: probes found by
// prediction, fields compared inline, the row located by a hint. These tests check them
// against a model of what each read should answer, and against stores of the same row made by
// `scope(state: \.rows[id:])`, which share no probes with them: random actions (removals,
// re-insertions, sorts, rewrites), observers whose reads change order from run to run, nested
// and cancelled observers, and use from several threads. The model and its property test are
// here; the scenarios, threads and class rows in RowStoreDifferentialTests+Scenarios, +Threads
// and +ClassRows.

final class RowDifferentialBox: Equatable, Sendable {
  let n: Int
  init(_ n: Int) { self.n = n }
  static func == (lhs: RowDifferentialBox, rhs: RowDifferentialBox) -> Bool { lhs === rhs }
}

struct RowDifferentialRow: Identifiable, Equatable, Sendable {
  let id: Int
  var title: String
  var score: Int
  var flag: Bool
  var small: Int8
  var note: String?
  var maybe: Int?
  var box: RowDifferentialBox
  var doubled: Int { score &* 2 }

  init(id: Int, seed: Int) {
    self.id = id
    title = "t\(seed)"
    score = seed % 3
    flag = seed % 2 == 0
    small = Int8(truncatingIfNeeded: seed % 4)
    note = seed % 3 == 0 ? nil : "n\(seed % 2)"
    maybe = seed % 4 == 0 ? nil : seed % 2
    box = RowDifferentialBox(seed)
  }
}

struct RowDifferentialState: Sendable {
  var other = 0
  var rows: IdentifiedArray<RowDifferentialRow>
}

struct RowDifferentialAction: Sendable {
  let name: String
  let apply: @Sendable (inout RowDifferentialState) -> Void
  init(_ name: String, _ apply: @escaping @Sendable (inout RowDifferentialState) -> Void) {
    self.name = name
    self.apply = apply
  }
}

enum RowDifferentialField: Int, CaseIterable, Sendable {
  case title, score, flag, small, note, maybe, box, doubled, whole

  func describe(_ row: RowDifferentialRow) -> String {
    switch self {
    case .title: "title=\(row.title)"
    case .score: "score=\(row.score)"
    case .flag: "flag=\(row.flag)"
    case .small: "small=\(row.small)"
    case .note: "note=\(String(describing: row.note))"
    case .maybe: "maybe=\(String(describing: row.maybe))"
    case .box: "box=\(ObjectIdentifier(row.box).hashValue)"
    case .doubled: "doubled=\(row.doubled)"
    case .whole:
      "whole=\(row.id),\(row.title),\(row.score),\(row.flag),\(row.small),\(String(describing: row.note)),\(String(describing: row.maybe)),\(ObjectIdentifier(row.box).hashValue)"
    }
  }

  /// Reads the field through a store of the row (tracked when inside an observer).
  func read(_ store: Store<RowDifferentialRow, Never>) -> String {
    switch self {
    case .title: "title=\(store.title)"
    case .score: "score=\(store.score)"
    case .flag: "flag=\(store.flag)"
    case .small: "small=\(store.small)"
    case .note: "note=\(String(describing: store.note))"
    case .maybe: "maybe=\(String(describing: store.maybe))"
    case .box: "box=\(ObjectIdentifier(store.box).hashValue)"
    case .doubled: "doubled=\(store.doubled)"
    case .whole: Self.whole.describe(store.state)
    }
  }
}

/// One read an observer made: through which row store, which field, and what it got.
struct RowDifferentialRead: Equatable, Sendable, CustomStringConvertible {
  let store: Int
  let field: Int
  let value: String
  var description: String { "s\(store).\(RowDifferentialField(rawValue: field)!)=\(value)" }
}

enum RowDifferential {
  static func randomAction(_ rng: inout SplitMix64, ids: Int) -> RowDifferentialAction {
    let id = Int(rng.next() % UInt64(ids))
    let v = Int(rng.next() % 3)
    switch rng.next() % 20 {
    case 0: return RowDifferentialAction("remove \(id)") { $0.rows.remove(id: id) }
    case 1:
      return RowDifferentialAction("insert \(id) \(v)") {
        if $0.rows[id: id] == nil { $0.rows.insert(RowDifferentialRow(id: id, seed: v), at: 0) }
      }
    case 2: return RowDifferentialAction("title \(id) \(v)") { $0.rows[id: id]?.title = "t\(v)" }
    case 3: return RowDifferentialAction("score \(id) \(v)") { $0.rows[id: id]?.score = v }
    case 4: return RowDifferentialAction("flag \(id)") { $0.rows[id: id]?.flag.toggle() }
    case 5:
      return RowDifferentialAction("small \(id) \(v)") {
        $0.rows[id: id]?.small = Int8(truncatingIfNeeded: v - 1)
      }
    case 6:
      return RowDifferentialAction("note \(id) \(v)") {
        $0.rows[id: id]?.note = v == 0 ? nil : "n\(v)"
      }
    case 7:
      return RowDifferentialAction("maybe \(id) \(v)") {
        $0.rows[id: id]?.maybe = v == 0 ? nil : v - 1
      }
    case 8:
      return RowDifferentialAction("box \(id)") { $0.rows[id: id]?.box = RowDifferentialBox(v) }
    case 9:
      return RowDifferentialAction("sort") {
        $0.rows.sort { ($0.title, $0.id) < ($1.title, $1.id) }
      }
    case 10:
      return RowDifferentialAction("reverse") {
        $0.rows = IdentifiedArray(uniqueElements: $0.rows.elementsArray.reversed())
      }
    case 11: return RowDifferentialAction("remove all") { $0.rows = [] }
    case 12:
      return RowDifferentialAction("same title, new storage \(id)") { state in
        if let title = state.rows[id: id]?.title {
          state.rows[id: id]?.title = String(title.utf8.map { Character(UnicodeScalar($0)) })
        }
      }
    case 13:
      return RowDifferentialAction("copy and write \(id) \(v)") { state in
        var copy = state.rows
        copy[id: id]?.score = v
        state.rows = copy
      }
    case 14:
      return RowDifferentialAction("swap") {
        if $0.rows.count >= 2 { $0.rows.swapAt(0, $0.rows.count - 1) }
      }
    case 15: return RowDifferentialAction("other") { $0.other += 1 }
    case 16:
      return RowDifferentialAction("rewrite \(id) \(v)") { state in
        if state.rows[id: id] != nil { state.rows[id: id] = RowDifferentialRow(id: id, seed: v) }
      }
    case 17:
      return RowDifferentialAction("remove+insert \(id) \(v)") { state in
        state.rows.remove(id: id)
        state.rows.append(RowDifferentialRow(id: id, seed: v))
      }
    default: return RowDifferentialAction("noop") { _ in }
    }
  }
}

@Suite struct RowStoreDifferentialTests {
  /// An observer's program: reads `first`, then, by the parity of what it got, `a` then `b`
  /// (then `a` again), or `b` then `a`: reads come and go and change order between runs.
  struct Program: Sendable, CustomStringConvertible {
    let first: (store: Int, field: RowDifferentialField)
    let a: (store: Int, field: RowDifferentialField)
    let b: (store: Int, field: RowDifferentialField)
    var description: String { "\(first) \(a) \(b)" }

    func run(_ stores: [Store<RowDifferentialRow, Never>]) -> [RowDifferentialRead] {
      var reads: [RowDifferentialRead] = []
      func read(_ step: (store: Int, field: RowDifferentialField)) -> String {
        let value = step.field.read(stores[step.store])
        reads.append(
          RowDifferentialRead(store: step.store, field: step.field.rawValue, value: value))
        return value
      }
      let head = read(first)
      if head.utf8.count % 2 == 0 {
        _ = read(a)
        _ = read(b)
        _ = read(a)
      } else {
        _ = read(b)
        _ = read(a)
      }
      return reads
    }
  }

  /// Random actions on rows read through row stores (two per id); each observer must re-run
  /// exactly when a value it read last is now different, and read what the model says.
  func differential(seed: Int, steps: Int = 80) {
    var rng = SplitMix64(seed: UInt64(seed))
    let ids = 4
    let store = Store(
      initialState: RowDifferentialState(
        rows: IdentifiedArray(
          uniqueElements: (0..<ids).map { RowDifferentialRow(id: $0, seed: $0) })),
      reducer: Reduce<RowDifferentialState, RowDifferentialAction> { state, action in
        action.apply(&state)
        return .none
      })
    var stores: [Store<RowDifferentialRow, Never>] = []
    var lastKnown: [RowDifferentialRow] = []
    for id in 0..<ids {
      for _ in 0..<2 {
        stores.append(
          store.scope(
            state: \.rows, id: id, action: { (never: Never) -> RowDifferentialAction in })!)
        lastKnown.append(store.state.rows[id: id]!)
      }
    }
    let children = stores
    func pick(_ rng: inout SplitMix64) -> (store: Int, field: RowDifferentialField) {
      (
        Int(rng.next() % UInt64(children.count)),
        RowDifferentialField(rawValue: Int(rng.next() % 9))!
      )
    }
    var programs: [Program] = []
    for _ in 0..<8 {
      programs.append(Program(first: pick(&rng), a: pick(&rng), b: pick(&rng)))
    }
    let logs = (0..<programs.count).map { _ in Log<[RowDifferentialRead]>() }
    var tokens: [ObservationToken] = []
    for (index, program) in programs.enumerated() {
      let log = logs[index]
      tokens.append(store.observe { log.append(program.run(children)) })
    }
    func modelValue(_ read: RowDifferentialRead) -> String {
      RowDifferentialField(rawValue: read.field)!.describe(lastKnown[read.store])
    }
    var history: [String] = []
    var lastRuns = logs.map { $0.values.last! }
    for step in 0..<steps {
      let action = RowDifferential.randomAction(&rng, ids: ids)
      history.append(action.name)
      let before = logs.map { $0.values.count }
      store.send(action)
      let state = store.state
      for index in stores.indices {
        if let row = state.rows[id: index / 2] { lastKnown[index] = row }
      }
      for index in programs.indices {
        let shouldRun = lastRuns[index].contains { modelValue($0) != $0.value }
        let runs = logs[index].values.count - before[index]
        #expect(
          runs == (shouldRun ? 1 : 0),
          """
          seed \(seed) step \(step) observer \(index) (\(programs[index])): ran \(runs) times; \
          last reads \(lastRuns[index]); history \(history)
          """)
        if runs > 0 {
          let reads = logs[index].values.last!
          let wrong = reads.filter { modelValue($0) != $0.value }
          #expect(
            wrong.isEmpty,
            "seed \(seed) step \(step) observer \(index): read \(wrong); history \(history)")
          lastRuns[index] = reads
        }
      }
    }
    withExtendedLifetime((tokens, stores)) {}
  }

  @Test(arguments: 0..<40)
  func rowStoreReadsMatchTheModel(seed: Int) {
    differential(seed: seed)
  }
}
