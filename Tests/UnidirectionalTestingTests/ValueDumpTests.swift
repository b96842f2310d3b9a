import Testing
import Unidirectional
import UnidirectionalTesting

/// The value dumper and line diff, seen through the messages of failing steps.
@Suite struct ValueDumpTests {
  struct Item: Equatable, Sendable {
    var id: Int
    var title: String
  }

  enum Choice: Equatable, Sendable {
    case nothing
    case one(Int)
    case pair(first: Int, second: String)
    case item(Item)
  }

  class Reference: @unchecked Sendable, Equatable {
    // Safe: never mutated after init.
    let value: Int
    init(value: Int) { self.value = value }
    static func == (lhs: Reference, rhs: Reference) -> Bool { lhs === rhs }
  }

  struct State: Equatable, Sendable {
    var items: [Item] = []
    var lookup: [String: Int] = [:]
    var tags: Set<String> = []
    var choice: Choice? = nil
    var optional: Int? = 7
    var pair: (Int, label: String) = (1, label: "one")
    var reference = Reference(value: 1)
    var text = "line\nbreak"

    static func == (lhs: State, rhs: State) -> Bool {
      lhs.items == rhs.items && lhs.lookup == rhs.lookup && lhs.tags == rhs.tags
        && lhs.choice == rhs.choice && lhs.optional == rhs.optional && lhs.pair == rhs.pair
        && lhs.reference == rhs.reference && lhs.text == rhs.text
    }
  }

  enum Action: Equatable, Sendable {
    case set(State)
    case emit(State)
  }

  static let reducer = Reduce<State, Action> { state, action in
    switch action {
    case .set(let new):
      state = new
      return .none
    case .emit(let new):
      return .send(.set(new))
    }
  }

  /// The dump of `state`, as a failing `receive` lists the unexpected action.
  func dump(_ state: State) async -> String {
    let failures = await recordedFailures {
      let store = TestStore(initialState: State()) { Self.reducer }
      await store.send(.emit(state))
      await store.receive({ _ in false }) { $0 = state }
    }
    return failures.first.map {
      $0.message.split(separator: "\n").dropFirst().joined(separator: "\n")
    } ?? ""
  }

  /// The message of a step that expected `expected` but got `actual`.
  func message(expected: State, actual: State) async -> String {
    let failures = await recordedFailures {
      let store = TestStore(initialState: State()) { Self.reducer }
      await store.send(.set(actual)) { $0 = expected }
    }
    return failures.map(\.message).joined(separator: "\n---\n")
  }

  @Test func dumpsNestedValuesInAStableOrder() async {
    var state = State()
    state.items = [Item(id: 1, title: "a"), Item(id: 2, title: "b")]
    state.lookup = ["b": 2, "a": 1, "c": 3]
    state.tags = ["y", "x"]
    state.choice = .pair(first: 1, second: "s")
    state.optional = nil
    #expect(
      await dump(state) == """
            ValueDumpTests.Action.set(
              ValueDumpTests.State(
                items: [
                  [0]: ValueDumpTests.Item(
                    id: 1,
                    title: "a"
                  ),
                  [1]: ValueDumpTests.Item(
                    id: 2,
                    title: "b"
                  )
                ],
                lookup: [
                  "a": 1,
                  "b": 2,
                  "c": 3
                ],
                tags: Set([
                  "x",
                  "y"
                ]),
                choice: ValueDumpTests.Choice.pair(
                  first: 1,
                  second: "s"
                ),
                optional: nil,
                pair: (
                  1,
                  label: "one"
                ),
                reference: ValueDumpTests.Reference(
                  value: 1
                ),
                text: "line\\nbreak"
              )
            )
        """)
  }

  @Test func shortEnumPayloadsStayOnOneLine() async {
    var state = State()
    state.choice = .one(5)
    state.items = []
    state.lookup = [:]
    let dump = await dump(state)
    #expect(dump.contains("choice: ValueDumpTests.Choice.one(5),"))
    #expect(dump.contains("items: [],"))
    #expect(dump.contains("lookup: [:],"))
  }

  @Test func identifiedArraysDumpTheirElements() async {
    struct Row: Identifiable, Equatable, Sendable {
      var id: Int
    }
    let failures = await recordedFailures {
      let store = TestStore(initialState: IdentifiedArray<Row>(uniqueElements: [Row(id: 1)])) {
        Reduce<IdentifiedArray<Row>, Int> { rows, id in
          rows.append(Row(id: id))
          return .none
        }
      }
      await store.send(2)
    }
    #expect(failures.first?.message.contains("  +   [1]: ValueDumpTests.Row(") == true)
  }

  @Test func longRunsOfUnchangedLinesAreCollapsed() async {
    var expected = State()
    expected.items = (0..<20).map { Item(id: $0, title: "\($0)") }
    var actual = expected
    actual.items[10].title = "ten"
    #expect(
      await message(expected: expected, actual: actual) == """
        State change does not match expectation:

            ValueDumpTests.State(
              … (41 unchanged)
                [10]: ValueDumpTests.Item(
                  id: 10,
          −       title: "10"
          +       title: "ten"
                ),
                [11]: ValueDumpTests.Item(
                  … (48 unchanged)
            )

        (Expected: −, Actual: +)
        """)
  }
}
