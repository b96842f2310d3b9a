import CounterCore
import Testing
import Unidirectional
import UnidirectionalTestSupport

@Suite struct CounterTests {
  @Test func incrementAndDecrement() {
    let store = Store(initialState: Counter.State()) { Counter() }
    store.send(.increment)
    store.send(.increment)
    store.send(.decrement)
    #expect(store.count == 1)
  }

  @Test func goesBelowZero() {
    let store = Store(initialState: Counter.State()) { Counter() }
    store.send(.decrement)
    #expect(store.count == -1)
  }

  @Test func saturatesInsteadOfTrapping() {
    let high = Store(initialState: Counter.State(count: .max)) { Counter() }
    high.send(.increment)
    #expect(high.count == .max)
    let low = Store(initialState: Counter.State(count: .min)) { Counter() }
    low.send(.decrement)
    #expect(low.count == .min)
  }

  @Test func countObserverFiresOncePerChange() {
    let store = Store(initialState: Counter.State(count: .max)) { Counter() }
    let seen = Locked<[Int]>([])
    let token = store.observe(\.count) { count in seen.withLock { $0.append(count) } }
    store.send(.increment)  // Saturated: no change, no run.
    store.send(.decrement)
    #expect(seen.withLock { $0 } == [.max, .max - 1])
    withExtendedLifetime(token) {}
  }
}

@Suite struct CounterCommandTests {
  @Test func parsesCommands() {
    #expect(CounterCommand("+") == .send(.increment))
    #expect(CounterCommand("  -  ") == .send(.decrement))
    #expect(CounterCommand("quit") == .quit)
    #expect(CounterCommand("") == .nothing)
    #expect(CounterCommand(" \t ") == .nothing)
  }

  @Test func rejectsEverythingElseNamingTheValidCommands() {
    for line in ["++", "add", "QUIT", "1", "+ 1", "\u{FFFD}"] {
      guard case .invalid(let message) = CounterCommand(line) else {
        Issue.record("'\(line)' should be invalid")
        continue
      }
      #expect(message.contains(CounterCommand.usage))
      #expect(!message.contains("\n"))
    }
  }

  @Test func longLinesGiveShortMessages() {
    let line = String(repeating: "x", count: 100_000)
    guard case .invalid(let message) = CounterCommand(line) else {
      Issue.record("a long line should be invalid")
      return
    }
    #expect(message.count < 200)
  }
}
