import Testing
import Unidirectional
import UnidirectionalTestSupport

/// A feature whose actions trigger each kind of effect; every reduced action is logged.
struct Effects: Reducer {
  struct State: Equatable, Sendable {
    var log: [String] = []
  }
  enum Action: Equatable, Sendable {
    case runSendsTwice
    case syncSend
    case merged
    case concatenated
    case startLongLiving(id: Int, cancelInFlight: Bool)
    case cancel(id: Int)
    case throwing(handled: Bool)
    case gated
    case response(String)
  }
  let gate: Gate
  let finished: Log<String>

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .response(let value):
      state.log.append(value)
      return .none
    case .runSendsTwice:
      return .run { send in
        await send(.response("run 1"))
        await send(.response("run 2"))
      }
    case .syncSend:
      return .send(.response("sync"))
    case .merged:
      return .merge(
        .send(.response("merge sync 1")),
        // Waits for the gate: on an executor of its own, it would otherwise race the checks.
        .run { send in
          await gate.wait()
          await send(.response("merge async"))
        },
        .send(.response("merge sync 2"))
      )
    case .concatenated:
      return .concatenate(
        .run { send in
          await gate.wait()
          await send(.response("first"))
        },
        .send(.response("second")),
        .run { send in await send(.response("third")) }
      )
    case .startLongLiving(let id, let cancelInFlight):
      return .run { send in
        await waitForCancellation()
        finished.append("cancelled \(id)")
        // Dropped: the effect is cancelled.
        await send(.response("after cancel \(id)"))
      }
      .cancellable(id: id, cancelInFlight: cancelInFlight)
    case .cancel(let id):
      return .cancel(id: id)
    case .throwing(let handled):
      struct Failure: Error {}
      guard handled else { return .run { _ in throw Failure() } }
      return .run { _ in
        throw Failure()
      } catch: { _, send in
        await send(.response("caught"))
      }
    case .gated:
      return .run { send in
        await gate.wait()
        await send(.response("gate opened"))
      }
    }
  }
}

/// The effect semantics; those marked with `arguments:` hold on the global executor, on a
/// pinned thread and on a test executor alike.
@Suite struct EffectTests {
  let gate = Gate()
  let finished = Log<String>()
  let issues = Log<String>()
  var store: Store<Effects.State, Effects.Action> {
    makeStore(nil)
  }

  func makeStore(_ runner: EffectRunner?) -> Store<Effects.State, Effects.Action> {
    Store(
      initialState: Effects.State(), reducer: Effects(gate: gate, finished: finished),
      onIssue: { [issues] issue in issues.append(issue.description) },
      effectExecutor: runner?.executor)
  }

  @Test(arguments: EffectExecutorChoice.allCases)
  func runFeedsActionsBackInOrder(_ choice: EffectExecutorChoice) async {
    let runner = choice.makeRunner()
    let store = makeStore(runner)
    await store.send(.runSendsTwice).finish()
    #expect(store.log == ["run 1", "run 2"])
  }

  @Test func sendIsReducedBeforeSendReturns() {
    let store = self.store
    let task = store.send(.syncSend)
    #expect(store.log == ["sync"])
    #expect(task.isCancelled)  // No asynchronous work: nothing to finish.
  }

  @Test(arguments: EffectExecutorChoice.allCases)
  func mergeRunsSynchronousPartsInOrderAndAwaitsTheRest(_ choice: EffectExecutorChoice) async {
    let runner = choice.makeRunner()
    let store = makeStore(runner)
    let task = store.send(.merged)
    #expect(store.log == ["merge sync 1", "merge sync 2"])
    gate.open()
    await task.finish()
    #expect(store.log == ["merge sync 1", "merge sync 2", "merge async"])
  }

  @Test(arguments: EffectExecutorChoice.allCases)
  func concatenateRunsOneAfterAnother(_ choice: EffectExecutorChoice) async {
    let runner = choice.makeRunner()
    let store = makeStore(runner)
    let task = store.send(.concatenated)
    #expect(store.log.isEmpty)  // "second" waits for the first effect to end.
    gate.open()
    await task.finish()
    #expect(store.log == ["first", "second", "third"])
  }

  @Test func effectsStartAfterTheStateIsCommitted() async {
    let seen = Log<Int>()
    let store = Store(initialState: 0) {
      Reduce<Int, Bool> { state, start in
        guard start else { return .none }
        state = 42
        return .run { _ in seen.append(-1) }
      }
    }
    let token = store.observe { seen.append(store.state) }
    await store.send(true).finish()
    // The observer saw 42 and the effect ran; the effect could not have seen the old state.
    #expect(store.state == 42)
    #expect(seen.values.contains(42))
    #expect(seen.values.contains(-1))
    withExtendedLifetime(token) {}
  }

  @Test(arguments: EffectExecutorChoice.allCases)
  func cancelByIDStopsTheEffectAndDropsItsActions(_ choice: EffectExecutorChoice) async {
    let runner = choice.makeRunner()
    let store = makeStore(runner)
    let task = store.send(.startLongLiving(id: 1, cancelInFlight: false))
    store.send(.cancel(id: 1))
    await task.finish()
    #expect(finished.values == ["cancelled 1"])
    #expect(store.log.isEmpty)
    #expect(task.isCancelled)  // The action's task is the effect that was cancelled.
  }

  @Test(arguments: EffectExecutorChoice.allCases)
  func cancelByIDLeavesOtherIDsRunning(_ choice: EffectExecutorChoice) async {
    let runner = choice.makeRunner()
    let store = makeStore(runner)
    let one = store.send(.startLongLiving(id: 1, cancelInFlight: false))
    let two = store.send(.startLongLiving(id: 2, cancelInFlight: false))
    store.send(.cancel(id: 1))
    await one.finish()
    #expect(finished.values == ["cancelled 1"])
    two.cancel()
    await two.finish()
    #expect(finished.values == ["cancelled 1", "cancelled 2"])
  }

  @Test(.timeLimit(.minutes(1)))
  func nestedIDsAreCancellableAsSoonAsTheEffectStarts() async {
    let (ended, endings) = AsyncStream<String>.makeStream()
    let store = Store(
      initialState: 0,
      reducer: Reduce<Int, String> { _, action in
        guard action == "start" else { return .cancel(id: action) }
        return .merge(
          .run { _ in
            await waitForCancellation()
            endings.yield("inner")
          }
          .cancellable(id: "inner"),
          .run { _ in
            await waitForCancellation()
            endings.yield("sibling")
          }
        )
        .cancellable(id: "outer")
      })
    var iterator = ended.makeAsyncIterator()
    let task = store.send("start")
    // Sent before either task had a chance to run: the inner id is already registered.
    store.send("inner")
    #expect(await iterator.next() == "inner")
    store.send("outer")
    #expect(await iterator.next() == "sibling")
    await task.finish()
  }

  @Test(arguments: EffectExecutorChoice.allCases)
  func cancelInFlightCancelsThePreviousEffect(_ choice: EffectExecutorChoice) async {
    let runner = choice.makeRunner()
    let store = makeStore(runner)
    let first = store.send(.startLongLiving(id: 7, cancelInFlight: true))
    let second = store.send(.startLongLiving(id: 7, cancelInFlight: true))
    await first.finish()
    #expect(finished.values == ["cancelled 7"])
    #expect(second.isCancelled == false)
    store.send(.cancel(id: 7))
    await second.finish()
    #expect(finished.values == ["cancelled 7", "cancelled 7"])
  }

  @Test func cancellationIDsAreScopedToTheStore() async {
    let one = self.store
    let two = self.store
    let task = one.send(.startLongLiving(id: 3, cancelInFlight: false))
    two.send(.cancel(id: 3))
    two.send(.startLongLiving(id: 3, cancelInFlight: true)).cancel()
    #expect(task.isCancelled == false)
    #expect(finished.values.allSatisfy { $0 == "cancelled 3" })
    one.send(.cancel(id: 3))
    await task.finish()
  }

  @Test(arguments: EffectExecutorChoice.allCases)
  func storeTaskCancelStopsTheEffects(_ choice: EffectExecutorChoice) async {
    let runner = choice.makeRunner()
    let store = makeStore(runner)
    let task = store.send(.gated)
    task.cancel()
    #expect(task.isCancelled)
    gate.open()
    await task.finish()
    #expect(store.log.isEmpty)
  }

  @Test(arguments: EffectExecutorChoice.allCases)
  func deinitCancelsRunningEffects(_ choice: EffectExecutorChoice) async {
    let runner = choice.makeRunner()
    weak var weakStore: Store<Effects.State, Effects.Action>?
    var task: StoreTask?
    do {
      let store = makeStore(runner)
      weakStore = store
      task = store.send(.startLongLiving(id: 1, cancelInFlight: false))
    }
    #expect(weakStore == nil)  // Running effects do not keep the store alive.
    await task?.finish()
    #expect(finished.values == ["cancelled 1"])
  }

  @Test func unhandledErrorsReachTheIssueHandler() async {
    let store = self.store
    await store.send(.throwing(handled: false)).finish()
    #expect(issues.values.count == 1)
    let issue = issues.values.first ?? ""
    #expect(issue.contains("EffectTests.swift"))
    #expect(issue.contains("Failure"))
    #expect(store.log.isEmpty)
  }

  @Test func handledErrorsGoToTheCatchHandler() async {
    let store = self.store
    await store.send(.throwing(handled: true)).finish()
    #expect(issues.values.isEmpty)
    #expect(store.log == ["caught"])
  }

  @Test func cancellationErrorsAreNotReported() async {
    let store = Store(
      initialState: 0,
      reducer: Reduce<Int, Int> { _, _ in
        // wall-clock: an effect that never ends by itself (the tests cancel it); nothing waits for it.
        .run { _ in try await Task.sleep(for: .seconds(3_600)) }
      }
    ) { [issues] issue in issues.append(issue.description) }
    let task = store.send(1)
    task.cancel()
    await task.finish()
    #expect(issues.values.isEmpty)
  }

  @Test func theDefaultIssueDescriptionIsOneLine() {
    struct Boom: Error {}
    let issue = StoreIssue(kind: .effectFailed(Boom()), fileID: "Feature/File.swift", line: 12)
    #expect(issue.description.contains("Feature/File.swift:12"))
    #expect(!issue.description.contains("\n"))
  }

  @Test func mapTransformsSentActions() async {
    let store = Store(initialState: [String]()) {
      Reduce<[String], String> { state, action in
        if action == "start" {
          return Effect<Int>.run { send in await send(1) }
            .merge(with: .send(2))
            .map { "got \($0)" }
        }
        state.append(action)
        return .none
      }
    }
    await store.send("start").finish()
    #expect(Set(store.state) == ["got 1", "got 2"])
  }
}
