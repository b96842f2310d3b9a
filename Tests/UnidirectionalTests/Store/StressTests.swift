import Foundation
import Testing
import Unidirectional
import UnidirectionalTestSupport

/// Many threads sending into one store at once, with observers and effects running.
@Suite struct StressTests {
  static let senders = 8
  static let actionsPerSender = 100_000
  /// Every this many actions of a sender, the action also starts an effect that sends back.
  static let effectEvery = 1_000

  struct State: Equatable, Sendable {
    var perSender = [Int](repeating: 0, count: StressTests.senders)
    var total = 0
    /// Kept equal to `2 * total` by two separate writes per action, so a reader that saw a
    /// half-applied action would see them disagree.
    var doubled = 0
    var effectsDone = 0
  }

  enum Action: Sendable {
    case add(sender: Int)
    case effectDone
  }

  static let reducer = Reduce<State, Action> { state, action in
    switch action {
    case .add(let sender):
      state.total += 1
      state.perSender[sender] += 1
      state.doubled += 2
      guard state.perSender[sender] % effectEvery == 0 else { return .none }
      return .run { send in await send(.effectDone) }
    case .effectDone:
      state.effectsDone += 1
      return .none
    }
  }

  @Test(.timeLimit(.minutes(5)))
  func eightThreadsLoseNothingAndObserversSeeOnlyCommittedStates() async {
    let store = Store(initialState: State(), reducer: Self.reducer)
    let runs = Log<Bool>()
    // Reads two values an action changes together: they must always agree.
    let token = store.observe {
      let total = store.total
      let doubled = store.doubled
      if doubled != 2 * total { runs.append(false) }
    }
    let tasks = Log<StoreTask>()
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
      let group = DispatchGroup()
      for sender in 0..<Self.senders {
        group.enter()
        Thread {
          for _ in 0..<Self.actionsPerSender {
            let task = store.send(.add(sender: sender))
            if task != StoreTask.none { tasks.append(task) }
          }
          group.leave()
        }.start()
      }
      group.notify(queue: .global()) { done.resume() }
    }
    for task in tasks.values { await task.finish() }

    let state = store.state
    #expect(state.total == Self.senders * Self.actionsPerSender)
    #expect(state.perSender == [Int](repeating: Self.actionsPerSender, count: Self.senders))
    #expect(state.doubled == 2 * state.total)
    #expect(state.effectsDone == Self.senders * Self.actionsPerSender / Self.effectEvery)
    #expect(runs.values.isEmpty, "an observer saw a half-applied action")
    withExtendedLifetime(token) {}
  }
}
