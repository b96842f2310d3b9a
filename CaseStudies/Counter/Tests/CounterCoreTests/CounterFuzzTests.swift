import CounterCore
import Testing
import Unidirectional
import UnidirectionalTestSupport

/// Ten thousand random lines, as the program handles them, with time driven by a test clock:
/// nothing crashes, every invalid line gets one short message and sends nothing, and the state
/// stays valid.
@Suite struct CounterFuzzTests {
  static let vocabulary = [
    "+", "-", "fact", "timer", "wait 1", "wait 0.5", "wait 61", "wait x", "wait", "help", "",
    " + ", "+ +", "--", "fact 3", "quit",
  ]

  @Test func tenThousandRandomLines() async {
    var random = SplitMix64(seed: 2026)
    let clock = TestClock()
    let store = withDependencies {
      $0.continuousClock = clock
      $0.numberFact = .testValue
    } operation: {
      Store(initialState: Counter.State()) { Counter() }
    }
    var invalid = 0
    for step in 0..<10_000 {
      let line: String
      switch Int.random(in: 0..<10, using: &random) {
      case 0:
        let alphabet = Array("+- factimerw0.5\t\u{0}é\u{FFFD}🙂")
        let length = Int.random(in: 0..<60, using: &random)
        line = String((0..<length).map { _ in alphabet.randomElement(using: &random)! })
      case 1:
        line = String(repeating: "+", count: Int.random(in: 2..<5_000, using: &random))
      default:
        line = Self.vocabulary.randomElement(using: &random)!
      }
      switch CounterCommand(line) {
      case .send(let action):
        let task = store.send(action)
        if action == .factButtonTapped { await task.finish() }
      case .wait(let duration):
        await clock.advance(by: duration)
      case .invalid(let message):
        invalid += 1
        // Nothing is sent for it (effects woken earlier may still deliver meanwhile).
        #expect(!message.isEmpty && !message.contains("\n") && message.count < 200)
      case .help, .quit, .nothing:
        break
      }
      let state = store.state
      if state.isFactRequestInFlight || (state.fact != nil && state.fact!.isEmpty) {
        Issue.record("step \(step), line \(line.prefix(40).debugDescription): \(state)")
        return
      }
    }
    #expect(invalid > 1_000)
  }
}
