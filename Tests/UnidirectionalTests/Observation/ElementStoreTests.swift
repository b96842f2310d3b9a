import Testing
import Unidirectional
import UnidirectionalTestSupport

/// Child stores of `IdentifiedArray` elements made with `scope(state:id:action:)`, whose
/// observers are refreshed only for the element an action wrote.
@Suite struct ElementStoreTests {
  struct Row: Identifiable, Equatable, Sendable {
    let id: Int
    var value = 0
  }

  struct State: Equatable, Sendable {
    var rows: IdentifiedArray<Row> = IdentifiedArray(uniqueElements: (1...5).map { Row(id: $0) })
    var other = 0
  }

  enum Action: Equatable, Sendable {
    case set(id: Int, value: Int)
    case setTwo(Int, Int, value: Int)
    case insert(id: Int)
    case remove(id: Int)
    case reverse
    case replaceAll(value: Int)
    case other
  }

  static let reducer = Reduce<State, Action> { state, action in
    switch action {
    case .set(let id, let value):
      state.rows[id: id]?.value = value
    case .setTwo(let first, let second, let value):
      state.rows[id: first]?.value = value
      state.rows[id: second]?.value = value
    case .insert(let id):
      if state.rows[id: id] == nil { state.rows.insert(Row(id: id, value: id), at: 0) }
    case .remove(let id):
      state.rows.remove(id: id)
    case .reverse:
      state.rows.sort { $0.id > $1.id }
    case .replaceAll(let value):
      state.rows = IdentifiedArray(
        uniqueElements: state.rows.map { Row(id: $0.id, value: $0.id == 3 ? value : $0.value) })
    case .other:
      state.other += 1
    }
    return .none
  }

  /// Observers on rows 1...7 (6 and 7 absent at first), through element stores and through
  /// the general optional path, logging what they read.
  struct Harness {
    let store = Store(initialState: State(), reducer: ElementStoreTests.reducer)
    let byElement = Log<String>()
    let byPath = Log<String>()
    var tokens: [ObservationToken] = []
    var children: [Store<Row, Int>] = []

    init() {
      for id in 1...7 {
        let embed: @Sendable (Int) -> Action = { .set(id: id, value: $0) }
        if let row = store.scope(state: \.rows, id: id, action: embed) {
          children.append(row)
          tokens.append(row.observe { [byElement] in byElement.append("\(id): \(row.value)") })
        }
        if let row = store.scope(state: \.rows[id: id], action: embed) {
          children.append(row)
          tokens.append(row.observe { [byPath] in byPath.append("\(id): \(row.value)") })
        }
      }
      byElement.removeAll()
      byPath.removeAll()
    }

    /// Sends `action` and returns what each kind of observer logged.
    func send(_ action: Action) -> (element: [String], path: [String]) {
      byElement.removeAll()
      byPath.removeAll()
      store.send(action)
      return (byElement.values, byPath.values)
    }
  }

  @Test func onlyTheWrittenRowsObserverFires() {
    let harness = Harness()
    #expect(harness.send(.set(id: 2, value: 5)).element == ["2: 5"])
    #expect(harness.send(.set(id: 2, value: 5)).element == [])  // Same value.
    #expect(harness.send(.other).element == [])
    #expect(harness.send(.setTwo(1, 4, value: 9)).element == ["1: 9", "4: 9"])
    #expect(harness.send(.reverse).element == [])  // Order is not a row's value.
    #expect(harness.send(.replaceAll(value: 7)).element == ["3: 7"])
  }

  @Test func sendingThroughAnElementStoreReachesItsRow() throws {
    let store = Store(initialState: State(), reducer: Self.reducer)
    let row = try #require(
      store.scope(state: \.rows, id: 3) { (value: Int) in Action.set(id: 3, value: value) })
    row.send(42)
    #expect(store.rows[id: 3]?.value == 42)
    #expect(row.value == 42)
    #expect(
      store.scope(state: \.rows, id: 99) { (value: Int) in Action.set(id: 99, value: value) } == nil
    )
  }

  /// Once its row is gone, a row store answers from the row's last state: the values its
  /// observers read did not change, so they do not run for the removal.
  @Test func aRemovedRowsStoreAnswersFromItsLastStateWithoutRunningItsObservers() throws {
    let issues = Log<String>()
    let store = Store(initialState: State(), reducer: Self.reducer) { issues.append("\($0)") }
    let row = try #require(
      store.scope(state: \.rows, id: 5) { (value: Int) in Action.set(id: 5, value: value) })
    let fired = Log<Int>()
    let token = row.observe { fired.append(row.value) }
    row.send(3)
    store.send(.remove(id: 5))
    store.send(.set(id: 1, value: 1))
    #expect(fired.values == [0, 3])
    #expect(row.value == 3)
    row.send(4)  // Reported, not applied.
    #expect(store.rows[id: 5] == nil)
    #expect(issues.values.count == 1)
    withExtendedLifetime(token) {}
  }

  /// A row store made inside an observer on each run, and dropped after it: once the row is
  /// gone, the run's read answers from that run's row store (the value the run saw), so the
  /// observer does not run for the removal. Row stores were told apart by their reader's
  /// address: a new one at a dead one's address took over its read, with the dead one's last
  /// state, and the observer ran again.
  @Test func rowStoresMadeInEachRunAnswerFromTheirOwnLastState() {
    let store = Store(initialState: State(), reducer: Self.reducer)
    let runs = Log<Int?>()
    let token = store.observe {
      let row = store.scope(state: \.rows, id: 3) { (value: Int) in Action.set(id: 3, value: value)
      }
      runs.append(row?.value)
    }
    for value in 1...4 { store.send(.set(id: 3, value: value)) }
    store.send(.remove(id: 3))
    store.send(.other)
    #expect(runs.values == [0, 1, 2, 3, 4])
    withExtendedLifetime(token) {}
  }

  /// Random actions: the element stores' observers fire exactly as those of the general path
  /// (which refresh after every action) do.
  @Test(arguments: [1, 2, 3] as [UInt64])
  func elementStoresMatchTheGeneralPath(seed: UInt64) {
    var random = SplitMix64(seed: seed)
    let harness = Harness()
    for step in 0..<2_000 {
      let id = Int.random(in: 1...7, using: &random)
      let value = Int.random(in: 0...3, using: &random)
      let action: Action =
        switch Int.random(in: 0..<10, using: &random) {
        case 0: .setTwo(id, Int.random(in: 1...7, using: &random), value: value)
        case 1: .insert(id: id)
        case 2: .remove(id: id)
        case 3: .reverse
        case 4: .replaceAll(value: value)
        case 5: .other
        default: .set(id: id, value: value)
        }
      let (element, path) = harness.send(action)
      if element != path {
        Issue.record(
          "seed \(seed), step \(step), \(action): element stores \(element), path \(path)")
        return
      }
    }
  }

  @Test func droppedElementStoresStopObserving() {
    let store = Store(initialState: State(), reducer: Self.reducer)
    let fired = Log<Int>()
    for _ in 0..<100 {
      let row = store.scope(state: \.rows, id: 1) { (value: Int) in Action.set(id: 1, value: value)
      }!
      let token = row.observe { fired.append(row.value) }
      token.cancel()
    }
    fired.removeAll()
    store.send(.set(id: 1, value: 8))
    #expect(fired.values.isEmpty)
    let row = store.scope(state: \.rows, id: 1) { (value: Int) in Action.set(id: 1, value: value) }!
    let token = row.observe { fired.append(row.value) }
    store.send(.set(id: 1, value: 9))
    #expect(fired.values == [8, 9])
    withExtendedLifetime(token) {}
  }
}
