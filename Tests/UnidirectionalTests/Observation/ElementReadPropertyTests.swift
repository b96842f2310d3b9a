import Foundation
import Testing
import Unidirectional
import UnidirectionalTestSupport

/// Random actions on rows; each observer must re-run exactly when a value it read changed.
@Suite struct ElementReadPropertyTests {
  struct Row: Identifiable, Equatable, Sendable {
    let id: Int
    var title: String
    var score: Int
  }

  struct State: Sendable {
    var rows: IdentifiedArray<Row> = []
    var count = 0
    var list: [Int] = []
  }

  struct Action: Sendable {
    var name = ""
    let apply: @Sendable (inout State) -> Void
    init(_ name: String = "", apply: @escaping @Sendable (inout State) -> Void) {
      self.name = name
      self.apply = apply
    }
  }

  static func randomAction(_ rng: inout SplitMix64) -> Action {
    let id = Int(rng.next() % 6)
    let value = Int(rng.next() % 3)
    switch rng.next() % 10 {
    case 0: return Action("remove \(id)") { $0.rows[id: id] = nil }
    case 1:
      return Action("add \(id) \(value)") {
        if $0.rows[id: id] == nil { $0.rows.append(Row(id: id, title: "\(value)", score: value)) }
      }
    case 2: return Action("title \(id) \(value)") { $0.rows[id: id]?.title = "\(value)" }
    case 3: return Action("score \(id) \(value)") { $0.rows[id: id]?.score = value }
    case 4: return Action("sort") { $0.rows.sort { $0.title < $1.title } }
    case 5:
      return Action("copy title \(id) \(value)") { state in
        var copy = state.rows
        copy[id: id]?.title = "\(value)"
        state.rows = copy
      }
    case 6:
      return Action("reverse") { $0.rows = IdentifiedArray(uniqueElements: $0.rows.reversed()) }
    case 7:
      return Action("list \(value)") {
        $0.count = value
        $0.list = Array(0..<(value * 3))
      }
    case 8: return Action("swap") { if $0.rows.count >= 2 { $0.rows.swapAt(0, $0.rows.count - 1) } }
    default: return Action("noop") { _ in }
    }
  }

  struct Reading: Equatable {
    var title: String?
    var row: Row?
    var score: Int?
    var guarded: Int?
    var list: [Int]?
  }

  static func reading(_ state: State, id: Int, variant: Int) -> Reading {
    switch variant {
    case 0: return Reading(title: state.rows[id: id]?.title)
    case 1: return Reading(row: state.rows[id: id])
    case 2:
      // Guarded computed read
      return Reading(
        score: state.rows[id: id]?.score,
        guarded: state.list.count > 4 ? state.list[4] : nil, list: state.list)
    default: return Reading(title: state.rows[id: id]?.title, score: state.rows[id: id]?.score)
    }
  }

  @Test(arguments: 0..<40)
  func rowObserversRunExactlyOnChange(seed: Int) {
    var rng = SplitMix64(seed: UInt64(seed))
    let store = Store(
      initialState: State(),
      reducer: Reduce<State, Action> { state, action in
        action.apply(&state)
        return .none
      })
    var logs: [(id: Int, variant: Int, log: Log<Reading>)] = []
    var tokens: [ObservationToken] = []
    for id in 0..<6 {
      for variant in 0..<4 {
        let log = Log<Reading>()
        logs.append((id, variant, log))
        tokens.append(
          store.observe {
            switch variant {
            case 0: log.append(Reading(title: store[\.rows, id: id, \.title]))
            case 1: log.append(Reading(row: store[\.rows, id: id]))
            case 2:
              let score = store[\.rows, id: id, \.score]
              let list = store.list
              let guarded = list.count > 4 ? store[\.list[4]] : nil
              log.append(Reading(score: score, guarded: guarded, list: list))
            default:
              log.append(
                Reading(
                  title: store[\.rows, id: id, \.title], score: store[\.rows, id: id, \.score]))
            }
          })
      }
    }
    var expected = logs.map { [Self.reading(store.state, id: $0.id, variant: $0.variant)] }
    var history: [String] = []
    for step in 0..<60 {
      let action = Self.randomAction(&rng)
      store.send(action)
      history.append("\(step)")
      let state = store.state
      for (index, entry) in logs.enumerated() {
        let now = Self.reading(state, id: entry.id, variant: entry.variant)
        if now != expected[index].last { expected[index].append(now) }
      }
    }
    for (index, entry) in logs.enumerated() {
      #expect(
        entry.log.values == expected[index],
        "seed \(seed) id \(entry.id) variant \(entry.variant)")
    }
    withExtendedLifetime(tokens) {}
  }

  /// Child stores of rows, kept alive: once the row is gone they answer from the last state it
  /// had, and a row that comes back is read again.
  @Test(arguments: 0..<40)
  func rowStoreObserversRunExactlyOnChange(seed: Int) {
    var rng = SplitMix64(seed: UInt64(seed))
    let store = Store(
      initialState: State(
        rows: IdentifiedArray(uniqueElements: (0..<6).map { Row(id: $0, title: "i", score: 0) })),
      reducer: Reduce<State, Action> { state, action in
        action.apply(&state)
        return .none
      })
    var children: [Store<Row, Never>] = []
    var logs: [Log<String>] = []
    var tokens: [ObservationToken] = []
    var lastKnown: [String] = []
    for id in 0..<6 {
      let child = store.scope(state: \.rows, id: id, action: { (never: Never) -> Action in })!
      children.append(child)
      let log = Log<String>()
      logs.append(log)
      lastKnown.append("i")
      if id % 2 == 0 {
        tokens.append(child.observe(\.title) { log.append($0) })
      } else {
        tokens.append(child.observe { log.append(child.title) })
      }
    }
    var expected = lastKnown.map { [$0] }
    for _ in 0..<60 {
      store.send(Self.randomAction(&rng))
      let state = store.state
      for id in 0..<6 {
        if let row = state.rows[id: id] { lastKnown[id] = row.title }
        if lastKnown[id] != expected[id].last { expected[id].append(lastKnown[id]) }
      }
    }
    for id in 0..<6 {
      #expect(logs[id].values == expected[id], "seed \(seed) id \(id)")
    }
    withExtendedLifetime((tokens, children)) {}
  }
}
