import Testing
import Unidirectional
import UnidirectionalTestSupport

// MARK: - Dependencies for one subtree

private enum GreetingKey: DependencyKey {
  static let liveValue = "live"
  static let testValue = "test"
}

extension DependencyValues {
  fileprivate var greeting: String {
    get { self[GreetingKey.self] }
    set { self[GreetingKey.self] = newValue }
  }
}

/// Records the greeting its reducer and its effect see.
private struct Speaker: Reducer {
  struct State: Equatable, Sendable {
    var inReducer = ""
    var inEffect = ""
  }

  enum Action: Equatable, Sendable {
    case speak
    case heard(String)
  }

  @Dependency(\.greeting) var greeting

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .speak:
      state.inReducer = greeting
      return .run { send in
        @Dependency(\.greeting) var greeting
        await send(.heard(greeting))
      }
    case .heard(let greeting):
      state.inEffect = greeting
      return .none
    }
  }
}

private struct Speakers: Reducer {
  struct State: Equatable, Sendable {
    var overridden = Speaker.State()
    var transformed = Speaker.State()
    var plain = Speaker.State()
  }

  enum Action: Equatable, Sendable {
    case overridden(Speaker.Action)
    case transformed(Speaker.Action)
    case plain(Speaker.Action)
  }

  var body: some Reducer<State, Action> {
    Scope(state: \.overridden, action: .overridden) {
      Speaker().dependency(\.greeting, "override")
    }
    Scope(state: \.transformed, action: .transformed) {
      Speaker().transformDependency(\.greeting) { $0 += "!" }
    }
    Scope(state: \.plain, action: .plain) { Speaker() }
  }
}

extension CasePath where Root == Speakers.Action {
  fileprivate static var overridden: CasePath<Speakers.Action, Speaker.Action> {
    .init(Speakers.Action.overridden) { if case .overridden(let a) = $0 { a } else { nil } }
  }
  fileprivate static var transformed: CasePath<Speakers.Action, Speaker.Action> {
    .init(Speakers.Action.transformed) { if case .transformed(let a) = $0 { a } else { nil } }
  }
  fileprivate static var plain: CasePath<Speakers.Action, Speaker.Action> {
    .init(Speakers.Action.plain) { if case .plain(let a) = $0 { a } else { nil } }
  }
}

@Suite(.timeLimit(.minutes(1))) struct ReducerToolsTests {
  @Test func aDependencyOverrideReachesTheReducerAndItsEffectsOnly() async {
    let store = Store(initialState: Speakers.State(), reducer: Speakers())
    await store.send(.overridden(.speak)).finish()
    await store.send(.transformed(.speak)).finish()
    await store.send(.plain(.speak)).finish()
    #expect(store.overridden == Speaker.State(inReducer: "override", inEffect: "override"))
    #expect(store.transformed == Speaker.State(inReducer: "live!", inEffect: "live!"))
    #expect(store.plain == Speaker.State(inReducer: "live", inEffect: "live"))
  }

  @Test func aDependencyOverrideAppliesOverTheStoresDependencies() async {
    let store = withDependencies {
      $0.greeting = "store"
    } operation: {
      Store(initialState: Speakers.State(), reducer: Speakers())
    }
    await store.send(.transformed(.speak)).finish()
    await store.send(.plain(.speak)).finish()
    await store.send(.overridden(.speak)).finish()
    #expect(store.transformed == Speaker.State(inReducer: "store!", inEffect: "store!"))
    #expect(store.plain == Speaker.State(inReducer: "store", inEffect: "store"))
    #expect(store.overridden == Speaker.State(inReducer: "override", inEffect: "override"))
  }

  // MARK: onChange

  struct Counter: Reducer {
    struct State: Equatable, Sendable {
      var count = 0
      var other = 0
      var changes: [String] = []
    }

    enum Action: Equatable, Sendable {
      case set(Int)
      case touchOther
      case changeNoted
    }

    var body: some Reducer<State, Action> {
      Reduce { state, action in
        switch action {
        case .set(let count): state.count = count
        case .touchOther: state.other += 1
        case .changeNoted: break
        }
        return .none
      }
      .onChange(of: \.count) { old, new in
        Reduce { state, action in
          state.changes.append("\(old)→\(new) on \(action)")
          return .send(.changeNoted)
        }
      }
    }
  }

  @Test func onChangeRunsOnlyWhenTheValueChangedWithOldAndNewValues() {
    let log = Log<Counter.Action>()
    let store = Store(
      initialState: Counter.State(),
      reducer: Counter(),
      interceptors: [StoreInterceptor(willReduce: { action, _ in log.append(action) })])
    store.send(.set(0))
    store.send(.touchOther)
    #expect(store.changes.isEmpty)
    store.send(.set(3))
    store.send(.set(3))
    store.send(.set(5))
    #expect(store.changes == ["0→3 on set(3)", "3→5 on set(5)"])
    // The onChange reducer's effects run, merged with the base reducer's.
    #expect(
      log.values == [.set(0), .touchOther, .set(3), .changeNoted, .set(3), .set(5), .changeNoted])
  }

  // MARK: Cancelling by id inside effects

  struct Worker: Reducer {
    struct State: Equatable, Sendable {
      var results: [String] = []
    }

    enum Action: Equatable, Sendable {
      case startLong
      case cancelLongFromEffect
      case cancelLongFromChildTask
      case guarded
      case cancelGuardedPart
      case result(String)
    }

    struct LongID: Hashable, Sendable {}
    struct GuardedID: Hashable, Sendable {}

    let name: String
    let log: Log<String>
    let clock: TestClock

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .startLong:
        return .run { [name, log] _ in
          await waitForCancellation()
          log.append("\(name) long cancelled")
        }
        .cancellable(id: LongID())
      case .cancelLongFromEffect:
        return .run { _ in Task.cancel(id: LongID()) }
      case .cancelLongFromChildTask:
        return .run { _ in
          await withTaskGroup(of: Void.self) { group in
            group.addTask { Task.cancel(id: LongID()) }
          }
        }
      case .guarded:
        return .run { [clock] send in
          let outcome = await withTaskCancellation(id: GuardedID(), cancelInFlight: true) {
            do {
              try await clock.sleep(for: .seconds(10))
              return "done"
            } catch {
              return "cancelled"
            }
          }
          // The effect goes on after its cancellable part was cancelled.
          await send(.result(outcome))
        }
      case .cancelGuardedPart:
        return .cancel(id: GuardedID())
      case .result(let result):
        state.results.append(result)
        return .none
      }
    }
  }

  func makeWorker(
    _ name: String, log: Log<String>, clock: TestClock = TestClock(),
    executor: TestExecutor? = nil
  ) -> Store<Worker.State, Worker.Action> {
    Store(
      initialState: Worker.State(), reducer: Worker(name: name, log: log, clock: clock),
      effectExecutor: executor)
  }

  @Test func taskCancelInsideAnEffectCancelsItsOwnStoresEffectOnly() async {
    let log = Log<String>()
    let a = makeWorker("a", log: log)
    let b = makeWorker("b", log: log)
    let longA = a.send(.startLong)
    let longB = b.send(.startLong)
    await a.send(.cancelLongFromEffect).finish()
    await longA.finish()
    #expect(log.values == ["a long cancelled"])
    #expect(!longB.isCancelled)
    await b.send(.cancelLongFromChildTask).finish()
    await longB.finish()
    #expect(log.values == ["a long cancelled", "b long cancelled"])
  }

  @Test func withTaskCancellationCancelsInFlightAndByID() async {
    let clock = TestClock()
    let executor = TestExecutor()
    let store = makeWorker("w", log: Log(), clock: clock, executor: executor)
    let first = store.send(.guarded)
    executor.drain()
    let second = store.send(.guarded)  // Cancels the first one's guarded part.
    await first.finish()
    #expect(store.results == ["cancelled"])
    executor.drain()
    await clock.advance(by: .seconds(10))
    await second.finish()
    #expect(store.results == ["cancelled", "done"])
    let third = store.send(.guarded)
    executor.drain()
    store.send(.cancelGuardedPart)
    await third.finish()
    #expect(store.results == ["cancelled", "done", "cancelled"])
  }

  @Test func outsideAnEffectTheyReportAndDoNoHarm() async {
    let reports = Log<String>()
    let value = await withDependencies {
      $0.reportIssue = { reports.append($0) }
    } operation: {
      Task.cancel(id: Worker.LongID())
      return await withTaskCancellation(id: Worker.GuardedID()) { 42 }
    }
    #expect(value == 42)
    #expect(reports.values.count == 2)
    #expect(reports.values.first?.contains("Task.cancel(id:) was called at") == true)
    #expect(reports.values.last?.contains("outside an effect; the operation ran") == true)
  }
}
