import Testing
import Unidirectional

/// A store for tests that asserts, step by step, every state change, every action fed back by
/// effects, that effects finish, and which observers fired.
///
/// ```swift
/// @Test func increment() async {
///   let store = TestStore(initialState: Counter.State()) { Counter() }
///   store.observe("count label") { store in _ = store.count }
///   await store.send(.increment, fires: ["count label"]) { $0.count = 1 }
/// }
/// ```
///
/// A test store runs the real `Store` (the same reducer, effect and observation code as
/// production) and reduces every action exactly when the store would: an action an effect sends
/// is reduced at once, in the same order as in production. The test store records what each
/// action did (the states before and after, the observers it fired, its effects) and each step
/// asserts one action's record: `send(_:fires:assert:)` the action it sends,
/// `receive(_:timeout:fires:assert:)` the next action an effect fed back.
///
/// Failures are recorded with `Issue.record` inside a Swift Testing test and with `XCTFail`
/// under XCTest, at the line of the step, one failure per mistake. Exhaustive by default (see
/// ``exhaustivity``): at the end of the test (``finish(timeout:fileID:filePath:line:column:)``,
/// or when the test store is released) the test store first lets effects run, then requires
/// that every action was received and every effect has finished.
///
/// ## Time that is known
///
/// The store's effects run on a `TestExecutor` of the test store's own, which runs their jobs
/// only when the test store drains it. Every step drains it before it looks: when `send`
/// returns, every effect has run until it waits for something (a clock, another task, something
/// outside), and the actions they sent are reduced. No step decides this from a wall-clock
/// window. The test store attaches its executor to every `TestClock` among its dependencies, so
/// that advancing the clock runs the effects it wakes (see `TestClock`).
///
/// What a step waits for, and what it never waits for:
///
/// | A step waits for                               | A step never waits for                |
/// | ---------------------------------------------- | ------------------------------------- |
/// | effect code, up to its next suspension         | a `TestClock` deadline (advance it)   |
/// | `async let`, task groups, default actors       | `Task {}` or `Task.detached` inside   |
/// | continuations resumed before the step          | `MainActor` code, actors' executors   |
/// | actions effects send, and the effects they start | real I/O, a store made in an effect |
///
/// Only `receive` and `finish` wait for what runs outside, up to their timeout.
///
/// Drive a test store from one task at a time, awaiting each step.
public final class TestStore<State: Equatable & Sendable, Action: Sendable>: Sendable {
  let store: Store<State, TestStoreAction<Action>>
  /// The executor the store's effects run on; the test store drains it at every step.
  let executor: TestExecutor
  /// A child store over the whole state that observers read through: the store's actions are
  /// marked with their origin, the observers' API is in the feature's own actions.
  let view: Store<State, Action>
  let reduced: ReducedActions
  let settings: Locked<Settings>
  let observers = Locked<[String: ObservationToken]>([:])
  let progress: Locked<Progress>
  /// Records failures found outside a step's own checks (dependencies without test values,
  /// effects that threw) at the step in progress.
  let reporter: StepReporter
  let creationLocation: TestSourceLocation

  struct Settings {
    var exhaustivity: Exhaustivity = .on
    var timeout: Duration = .seconds(1)
    var dependencies: DependencyValues
  }

  struct Progress {
    var nextStep: UInt64 = 0
    var isFinished = false
    /// The state after the last action the test asserted or skipped: the state an exhaustive
    /// `assert` starts from.
    var assertedState: State
    var nextEffectsID = 0
    /// Effects of asserted actions that have not been seen to finish, by id, with the line of
    /// the step that asserted the action.
    var runningEffects: [Int: (effects: StoreTask, location: TestSourceLocation)] = [:]
  }

  /// Creates a test store.
  ///
  /// - Parameters:
  ///   - initialState: The state to start from, made with the test store's dependencies: its
  ///     `Shared` values live in a `SharedStorage` of this test store's own, whose files are
  ///     in memory (override `sharedStorage` in `prepareDependencies` to share one, or to use
  ///     files on disk).
  ///   - reducer: Builds the reducer under test.
  ///   - prepareDependencies: Overrides dependencies. Dependencies not overridden use their
  ///     `testValue`; one without a test value fails the test, naming the dependency.
  ///   - fileID: The file of the call, where failures are reported (filled in for you).
  ///   - filePath: The full path of that file (filled in for you).
  ///   - line: The line of the call (filled in for you).
  ///   - column: The column of the call (filled in for you).
  public init<R: Reducer>(
    initialState: @autoclosure () -> State,
    @ReducerBuilder<State, Action> reducer: () -> R,
    withDependencies prepareDependencies: (inout DependencyValues) -> Void = { _ in },
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) where R.State == State, R.Action == Action {
    let location = TestSourceLocation(
      fileID: fileID, filePath: filePath, line: line, column: column)
    let reporter = StepReporter(location: location)
    var dependencies = DependencyValues.current
    dependencies.context = .test
    dependencies.reportIssue = { message in
      reporter.record(message)
    }
    // Isolated: parallel tests never see each other's shared values.
    dependencies.sharedStorage = SharedStorage()
    prepareDependencies(&dependencies)
    let initialState = withDependencies {
      $0 = dependencies
    } operation: {
      initialState()
    }
    let reducer = reducer()
    let settings = Locked(Settings(dependencies: dependencies))
    let executor = TestExecutor()
    let reduced = ReducedActions(executor: executor)
    Self.attach(executor, toClocksIn: dependencies)
    self.executor = executor
    self.reduced = reduced
    self.creationLocation = location
    self.reporter = reporter
    self.settings = settings
    self.progress = Locked(Progress(assertedState: initialState))
    self.store = Store(
      testing: initialState,
      reducer: TestReducer(base: reducer, dependencies: { settings.withLock(\.dependencies) }),
      interceptor: StoreInterceptor(
        willReduce: nil,
        didReduce: { action, before, after in
          reduced.didReduce(action: action.action, step: action.step, before: before, after: after)
        },
        didComplete: { effects in reduced.didComplete(effects) }),
      onIssue: { issue in
        reporter.record(issue.description)
      },
      effectExecutor: executor)
    self.view = store.scope(state: \.self, action: { TestStoreAction.received($0) })
    // Changes of shared values from outside are actions the test receives.
    if let receiving = reducer as? any SharedReceiving<State, Action> {
      store.subscribeToSharedValues(of: receiving, embed: { TestStoreAction.received($0) })
    }
  }

  deinit {
    // Never blocks: runs what is ready now, and hands what comes later to the global executor
    // (`release()`), so that effects left behind (cancelled as the store goes) end by themselves.
    defer { executor.release() }
    executor.drain()
    reporter.recordLate()
    guard !progress.withLock(\.isFinished), case .on = exhaustivity else { return }
    if store.runningEffectCount > 0 {
      reportRunningEffects(waited: nil, fallback: creationLocation)
    }
    let unreceived = reduced.takeReceived()
    if !unreceived.isEmpty {
      TestFailure.record(
        TestFailure.message(
          "The store received \(unreceived.count) unexpected action(s) by the end of the test:",
          listing: unreceived.map(\.action)),
        at: creationLocation)
    }
  }

  /// Attaches `executor` to every `TestClock` set in `dependencies`, so that advancing the
  /// clock drains it.
  static func attach(_ executor: TestExecutor, toClocksIn dependencies: DependencyValues) {
    for case let clock as TestClock in dependencies.overriddenValues {
      clock.attach(executor)
    }
  }

  // MARK: Settings

  /// How strictly steps and the end of the test are checked. Default: ``Exhaustivity/on``.
  public var exhaustivity: Exhaustivity {
    get { settings.withLock { $0.exhaustivity } }
    set { settings.withLock { $0.exhaustivity = newValue } }
  }

  /// How long `receive(_:timeout:fires:assert:)` and
  /// ``finish(timeout:fileID:filePath:line:column:)`` wait by default for work that runs
  /// outside the test store's executor (see "Time that is known"). Default: one second.
  ///
  /// A wall-clock limit for tests that fail; passing tests never wait for it. Effects that run
  /// only on the test store's executor and sleep only on a `TestClock` pass with `.zero`.
  public var timeout: Duration {
    get { settings.withLock { $0.timeout } }
    set { settings.withLock { $0.timeout = newValue } }
  }

  /// The dependencies the reducer and the effects of later steps use. A `TestClock` set here
  /// drains the test store's executor as it advances.
  public var dependencies: DependencyValues {
    get { settings.withLock { $0.dependencies } }
    set {
      Self.attach(executor, toClocksIn: newValue)
      settings.withLock { $0.dependencies = newValue }
    }
  }

  /// The current state of the store: the state after every action it has reduced, including
  /// actions effects fed back that the test has not received yet.
  public var state: State { store.untrackedState }

  /// The executor the store's effects run on, for the package's tests.
  package var effectExecutor: TestExecutor { executor }

  /// Runs `operation` with ``exhaustivity`` set to `exhaustivity`, then restores it.
  ///
  /// - Parameters:
  ///   - exhaustivity: The exhaustivity for the steps `operation` takes.
  ///   - operation: The steps.
  /// - Returns: What `operation` returns.
  nonisolated(nonsending) public func withExhaustivity<R>(
    _ exhaustivity: Exhaustivity, operation: () async throws -> R
  ) async rethrows -> R {
    let saved = self.exhaustivity
    self.exhaustivity = exhaustivity
    defer { self.exhaustivity = saved }
    return try await operation()
  }
}
