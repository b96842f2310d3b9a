import Foundation
import Observation
import Synchronization
import Testing
import Unidirectional
import UnidirectionalTestSupport

// Row stores (`scope(state:id:action:)`) read through their `ElementAccess`: probes found by
// prediction, fields compared inline, the row located by a hint. These tests check them
// against a model of what each read should answer, and against stores of the same row made by
// `scope(state: \.rows[id:])`, which share no probes with them: random actions (removals,
// re-insertions, sorts, rewrites), observers whose reads change order from run to run, nested
// and cancelled observers, and use from several threads.

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

// MARK: - Scenarios compared between a row store (`scope(state:id:action:)`, read through its
// `ElementAccess`) and the general path (`scope(state: \.rows[id: id])`): both answer from the
// row's last state once it is gone, so every observer must log the same thing.

struct RowDifferentialSimple: Identifiable, Equatable, Sendable {
  let id: Int
  var score = 0
  var title = "a"
  var flag = false
  var tags: [String] = []
  var computedTitle: String { title + "!" }
}

struct RowDifferentialSimpleState: Sendable {
  var rows: IdentifiedArray<RowDifferentialSimple>
  var other = 0
}

enum RowDifferentialSimpleAction: Sendable {
  case score(Int, Int)
  case title(Int, String)
  case flag(Int)
  case tag(Int, String)
  case remove(Int)
  case insert(Int)
  case other
  case clear
}

let rowDifferentialReducer = Reduce<RowDifferentialSimpleState, RowDifferentialSimpleAction> {
  state, action in
  switch action {
  case .score(let id, let v): state.rows[id: id]?.score = v
  case .title(let id, let v): state.rows[id: id]?.title = v
  case .flag(let id): state.rows[id: id]?.flag.toggle()
  case .tag(let id, let v): state.rows[id: id]?.tags.append(v)
  case .remove(let id): state.rows.remove(id: id)
  case .insert(let id):
    if state.rows[id: id] == nil {
      state.rows.append(RowDifferentialSimple(id: id, score: 100 + id))
    }
  case .other: state.other += 1
  case .clear: state.rows = []
  }
  return .none
}

func makeRowDifferentialStore(ids: [Int] = [1, 2]) -> Store<
  RowDifferentialSimpleState, RowDifferentialSimpleAction
> {
  Store(
    initialState: RowDifferentialSimpleState(
      rows: IdentifiedArray(uniqueElements: ids.map { RowDifferentialSimple(id: $0) })),
    reducer: rowDifferentialReducer)
}

func rowDifferentialStore(
  _ store: Store<RowDifferentialSimpleState, RowDifferentialSimpleAction>, _ id: Int, fast: Bool
) -> Store<RowDifferentialSimple, RowDifferentialSimpleAction> {
  if fast {
    return store.scope(
      state: \.rows, id: id, action: { (action: RowDifferentialSimpleAction) in action })!
  }
  return store.scope(
    state: \.rows[id: id], action: { (action: RowDifferentialSimpleAction) in action })!
}

extension RowStoreDifferentialTests {
  static let scriptedActions: [RowDifferentialSimpleAction] = [
    .score(1, 1), .title(1, "b"), .other, .score(1, 1), .flag(1), .title(2, "x"), .score(1, 2),
    .tag(1, "t"), .title(1, "b"), .score(2, 5), .flag(1), .remove(1), .score(1, 9), .insert(1),
    .score(1, 3), .title(1, "c"), .clear, .insert(2), .insert(1), .score(1, 4), .flag(1),
    .title(1, "d"), .score(1, 4),
  ]

  /// Sends every scripted action to `store`, logging each before it is sent.
  func sendScripted(
    to store: Store<RowDifferentialSimpleState, RowDifferentialSimpleAction>, log: Log<String>
  ) {
    for action in Self.scriptedActions {
      log.append("> \(action)")
      store.send(action)
    }
  }

  /// Runs `scenario` on each kind of row store and expects the two logs to be equal.
  func compare(
    _ scenario: (Bool) -> [String], sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let fast = scenario(true)
    let general = scenario(false)
    #expect(fast == general, sourceLocation: sourceLocation)
    // Not vacuous: the observers ran more than once each.
    #expect(fast.filter { !$0.hasPrefix(">") }.count > 5, sourceLocation: sourceLocation)
  }

  /// An observer of a row store registers, on each run, a new observer of the same row (and
  /// cancels the one before) between two of its own reads.
  @Test func nestedObserverRegisteredBetweenReads() {
    compare { fast in
      let store = makeRowDifferentialStore()
      let row = rowDifferentialStore(store, 1, fast: fast)
      let log = Log<String>()
      let inner = Mutex<ObservationToken?>(nil)
      let outer = row.observe {
        let score = row.score
        let token = row.observe { log.append("inner \(row.title) \(row.flag)") }
        let old = inner.withLock { state -> ObservationToken? in
          let old = state
          state = token
          return old
        }
        old?.cancel()
        log.append("outer \(score) \(row.title) \(row.tags)")
      }
      sendScripted(to: store, log: log)
      withExtendedLifetime(outer) {}
      inner.withLock { $0?.cancel() }
      return log.values
    }
  }

  /// An observer that cancels itself in the middle of a run, then keeps reading; a second
  /// observer of the same reads keeps running.
  @Test func observerCancellingItselfMidRunKeepsReading() {
    compare { fast in
      let store = makeRowDifferentialStore()
      let row = rowDifferentialStore(store, 1, fast: fast)
      let log = Log<String>()
      let first = Mutex<ObservationToken?>(nil)
      let runs = Mutex(0)
      let token = row.observe {
        let score = row.score
        let n = runs.withLock {
          $0 += 1
          return $0
        }
        if n == 3 { first.withLock { $0?.cancel() } }
        log.append("first \(score) \(row.title) \(row.score)")
      }
      first.withLock { $0 = token }
      let second = row.observe { log.append("second \(row.score) \(row.title)") }
      sendScripted(to: store, log: log)
      withExtendedLifetime(second) {}
      return log.values
    }
  }

  /// An earlier observer cancels a later one that shares its reads, before it runs.
  @Test func earlierObserverCancelsLaterOne() {
    compare { fast in
      let store = makeRowDifferentialStore()
      let row = rowDifferentialStore(store, 1, fast: fast)
      let log = Log<String>()
      let later = Mutex<ObservationToken?>(nil)
      let a = row.observe {
        let s = row.score
        if s == 2 { later.withLock { $0?.cancel() } }
        log.append("a \(s) \(row.title)")
      }
      let b = row.observe { log.append("b \(row.score) \(row.title)") }
      later.withLock { $0 = b }
      let c = row.observe { log.append("c \(row.title) \(row.score)") }
      sendScripted(to: store, log: log)
      withExtendedLifetime((a, c)) {}
      return log.values
    }
  }

  /// Two row stores of one id, read in an order that changes from run to run, and a computed
  /// (unsafe) field between stored ones.
  @Test func twoRowStoresOfOneIdInChangingOrder() {
    compare { fast in
      let store = makeRowDifferentialStore()
      let one = rowDifferentialStore(store, 1, fast: fast)
      let two = rowDifferentialStore(store, 1, fast: fast)
      let other = rowDifferentialStore(store, 2, fast: fast)
      let log = Log<String>()
      let token = store.observe {
        if one.flag {
          log.append("A \(two.score) \(one.computedTitle) \(one.score) \(other.title)")
        } else {
          log.append("B \(one.score) \(other.title) \(two.computedTitle) \(two.score) \(two.flag)")
        }
      }
      let token2 = two.observe {
        log.append("two \(two.flag ? one.title : two.title) \(one.score)")
      }
      sendScripted(to: store, log: log)
      withExtendedLifetime((token, token2)) {}
      return log.values
    }
  }

  /// An observer of one root store's row sends to a second root store, whose own row
  /// observers run nested (on the same thread), then keeps reading its own row.
  @Test func observerOfOneStoreDrivesAnother() {
    compare { fast in
      let storeA = makeRowDifferentialStore()
      let storeB = makeRowDifferentialStore()
      let rowA = rowDifferentialStore(storeA, 1, fast: fast)
      let rowB = rowDifferentialStore(storeB, 1, fast: fast)
      let log = Log<String>()
      let tokenB = rowB.observe { log.append("B \(rowB.score) \(rowB.title)") }
      let crossB = rowB.observe { log.append("B reads A \(rowA.score)") }
      let tokenA = rowA.observe {
        let score = rowA.score
        storeB.send(.score(1, score))
        log.append("A \(score) \(rowA.title) \(rowB.title)")
      }
      sendScripted(to: storeA, log: log)
      withExtendedLifetime((tokenA, tokenB, crossB)) {}
      return log.values
    }
  }

  /// Keyed observers of row fields (`observe(\.field)`), several per field, one registered
  /// from inside another's run.
  @Test func keyedObserversOfRowFields() {
    compare { fast in
      let store = makeRowDifferentialStore()
      let row = rowDifferentialStore(store, 1, fast: fast)
      let log = Log<String>()
      let nested = Mutex<[ObservationToken]>([])
      let t1 = row.observe(\.score) { score in
        log.append("score \(score)")
        if score == 2 {
          let t = row.observe(\.title) { log.append("nested title \($0)") }
          nested.withLock { $0.append(t) }
        }
      }
      let t2 = row.observe(\.flag) { log.append("flag \($0)") }
      let t3 = row.observe(\.score) { log.append("score again \($0)") }
      let t4 = row.observe(\.tags) { log.append("tags \($0)") }
      sendScripted(to: store, log: log)
      withExtendedLifetime((t1, t2, t3, t4)) {}
      nested.withLock { $0.removeAll() }
      return log.values
    }
  }
}

// MARK: - Threads

extension RowStoreDifferentialTests {
  /// Two threads send; a third makes row stores, registers observers on them (first runs on a
  /// copy while another thread owns the store: deferred recorders), reads rows outside
  /// observers and cancels. Rows are never removed: at the end, every live observer's last run
  /// saw the row's current values.
  @Test(.timeLimit(.minutes(2)))
  func rowStoresUsedFromSeveralThreads() {
    let ids = [1, 2, 3, 4]
    let store = makeRowDifferentialStore(ids: ids)
    let persistent = ids.map { rowDifferentialStore(store, $0, fast: true) }
    let logs = ids.map { _ in Log<String>() }
    var tokens: [ObservationToken] = []
    for (index, row) in persistent.enumerated() {
      let log = logs[index]
      tokens.append(row.observe { log.append("\(row.score) \(row.title) \(row.flag)") })
    }
    let iterations = 3000
    let done = DispatchGroup()
    for seed in 0..<2 {
      done.enter()
      Thread {
        var rng = SplitMix64(seed: UInt64(seed))
        for _ in 0..<iterations {
          let id = ids[Int(rng.next() % 4)]
          switch rng.next() % 4 {
          case 0: store.send(.score(id, Int(rng.next() % 5)))
          case 1: store.send(.title(id, "t\(rng.next() % 3)"))
          case 2: store.send(.flag(id))
          default: store.send(.other)
          }
        }
        done.leave()
      }.start()
    }
    done.enter()
    let churnLog = Log<String>()
    Thread {
      var rng = SplitMix64(seed: 99)
      var live: [ObservationToken] = []
      for step in 0..<(iterations / 3) {
        let id = ids[Int(rng.next() % 4)]
        let row = rowDifferentialStore(store, id, fast: true)
        live.append(row.observe { churnLog.append("\(row.score)") })
        live.append(row.observe(\.title) { churnLog.append($0) })
        _ = row.score + (row.flag ? 1 : 0)
        if step % 3 == 0, !live.isEmpty { live.removeFirst().cancel() }
        if live.count > 12 { live.removeAll() }
      }
      live.removeAll()
      done.leave()
    }.start()
    done.wait()
    let state = store.state
    for (index, id) in ids.enumerated() {
      let row = state.rows[id: id]!
      #expect(logs[index].values.last == "\(row.score) \(row.title) \(row.flag)", "row \(id)")
    }
    withExtendedLifetime((tokens, persistent)) {}
  }
}

// MARK: - Class elements, string ids, Apple's Observation

final class RowDifferentialClassRow: Identifiable, Sendable {
  let id: String
  let score: Int
  let flag: Bool
  init(id: String, score: Int, flag: Bool) {
    self.id = id
    self.score = score
    self.flag = flag
  }
}

struct RowDifferentialClassState: Sendable {
  var rows: IdentifiedArray<RowDifferentialClassRow>
}

extension RowStoreDifferentialTests {
  /// Rows that are class instances (no stored offsets: unsafe element probes), with string
  /// ids, removed, re-added and reordered.
  @Test func classRowsWithStringIDs() {
    compare { fast in
      let store = Store(
        initialState: RowDifferentialClassState(
          rows: IdentifiedArray(
            uniqueElements: ["a", "b", "c"].map {
              RowDifferentialClassRow(id: $0, score: 0, flag: false)
            })),
        reducer: Reduce<RowDifferentialClassState, (String, Int, Bool, Int)> { state, action in
          let (id, score, flag, op) = action
          switch op {
          case 0: state.rows[id: id] = RowDifferentialClassRow(id: id, score: score, flag: flag)
          case 1: state.rows.remove(id: id)
          case 2:
            if state.rows[id: id] == nil {
              state.rows.insert(RowDifferentialClassRow(id: id, score: score, flag: flag), at: 0)
            }
          case 3: state.rows = IdentifiedArray(uniqueElements: state.rows.elementsArray.reversed())
          default: state.rows = []
          }
          return .none
        })
      let row: Store<RowDifferentialClassRow, Never>
      if fast {
        row = store.scope(
          state: \.rows, id: "b", action: { (n: Never) -> (String, Int, Bool, Int) in })!
      } else {
        row = store.scope(
          state: \.rows[id: "b"], action: { (n: Never) -> (String, Int, Bool, Int) in })!
      }
      let log = Log<String>()
      let t1 = row.observe { log.append("1 \(row.score) \(row.flag ? row.id : "-")") }
      let t2 = row.observe { log.append("2 \(row.flag) \(row.score)") }
      let script: [(String, Int, Bool, Int)] = [
        ("b", 1, false, 0), ("a", 1, true, 0), ("b", 1, true, 0), ("b", 0, false, 3),
        ("b", 1, true, 0), ("b", 2, true, 1), ("c", 0, false, 1), ("b", 5, false, 2),
        ("b", 5, true, 0), ("x", 0, false, 4), ("a", 0, false, 2), ("b", 7, true, 2),
        ("b", 7, true, 0), ("b", 8, true, 0),
      ]
      for action in script {
        log.append("> \(action)")
        store.send(action)
      }
      withExtendedLifetime((t1, t2)) {}
      return log.values
    }
  }

  /// `withObservationTracking` of row reads, outside observers, with integer and Bool fields
  /// (compared inline by their probes).
  @Test func trackingRowReadsHearsIntegerChanges() {
    compare { fast in
      let store = makeRowDifferentialStore()
      let row = rowDifferentialStore(store, 1, fast: fast)
      let log = Log<String>()
      for action in Self.scriptedActions {
        let fired = Mutex(false)
        let seen = withObservationTracking {
          "\(row.score) \(row.flag)"
        } onChange: {
          fired.withLock { $0 = true }
        }
        store.send(action)
        log.append("\(action) \(seen) fired=\(fired.withLock { $0 }) now \(row.score) \(row.flag)")
      }
      return log.values
    }
  }
}
