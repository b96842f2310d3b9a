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
/// A test store runs the real `Store` machinery (the same reducer, effect and observation
/// code as production) with one difference: actions that effects feed back are not reduced
/// when they arrive, but queued until the test receives them with
/// `receive(_:timeout:fires:assert:)`, so each step's assertion shows exactly that step's change.
///
/// Failures are recorded with `Issue.record` inside a Swift Testing test and with `XCTFail`
/// under XCTest, at the line of the step. Exhaustive by default (see ``exhaustivity``): at the
/// end of the test (``finish(timeout:fileID:filePath:line:column:)``, or when the test store is
/// released) every action must have been received and every effect must have finished.
///
/// Drive a test store from one task at a time, awaiting each step.
public final class TestStore<State: Equatable & Sendable, Action: Sendable>: Sendable {
  let store: Store<State, Action>
  let received = ReceivedActions<Action>()
  let settings: Locked<Settings>
  let observers = Locked(Observers())
  let effects = Locked(Effects())
  /// The location of the step in progress: failures found outside a step's own checks
  /// (dependencies without test values, effects that threw) are recorded there.
  let currentLocation: Locked<TestSourceLocation>
  let creationLocation: TestSourceLocation

  struct Settings {
    var exhaustivity: Exhaustivity = .on
    var timeout: Duration = .seconds(1)
    var dependencies: DependencyValues
  }

  struct Observers {
    var tokens: [String: ObservationToken] = [:]
    /// Names of the observers that ran in the current step, in order.
    var fired: [String] = []
  }

  struct Effects {
    struct Step {
      let task: StoreTask
      let location: TestSourceLocation
    }
    var nextID = 0
    /// Steps whose effects have not been seen to finish, by step number.
    var running: [Int: Step] = [:]
  }

  /// Creates a test store.
  ///
  /// - Parameters:
  ///   - initialState: The state to start from.
  ///   - reducer: Builds the reducer under test.
  ///   - prepareDependencies: Overrides dependencies. Dependencies not overridden use their
  ///     `testValue`; one without a test value fails the test, naming the dependency.
  ///   - fileID: The file of the call, where failures are reported (filled in for you).
  ///   - filePath: The full path of that file (filled in for you).
  ///   - line: The line of the call (filled in for you).
  ///   - column: The column of the call (filled in for you).
  public init<R: Reducer>(
    initialState: State,
    @ReducerBuilder<State, Action> reducer: () -> R,
    withDependencies prepareDependencies: (inout DependencyValues) -> Void = { _ in },
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) where R.State == State, R.Action == Action {
    let location = TestSourceLocation(
      fileID: fileID, filePath: filePath, line: line, column: column)
    let currentLocation = Locked(location)
    var dependencies = DependencyValues.current
    dependencies.context = .test
    dependencies.reportIssue = { message in
      TestFailure.record(message, at: currentLocation.withLock { $0 })
    }
    prepareDependencies(&dependencies)
    self.creationLocation = location
    self.currentLocation = currentLocation
    self.settings = Locked(Settings(dependencies: dependencies))
    let received = self.received
    self.store = DependencyValues.$current.withValue(dependencies) {
      Store(
        initialState: initialState,
        reducer: reducer(),
        onIssue: { issue in
          TestFailure.record(issue.description, at: currentLocation.withLock { $0 })
        },
        effectActions: { action in received.deliver(action) })
    }
  }

  deinit {
    guard case .on = exhaustivity else { return }
    let unreceived = received.removeAll()
    if !unreceived.isEmpty {
      TestFailure.record(
        TestFailure.message(
          "The store received \(unreceived.count) unexpected action(s) by the end of the test:",
          listing: unreceived),
        at: creationLocation)
    }
    // Effects whose last action was just received may be returning on another thread right
    // now: give them a moment (this wait ends as soon as they are done).
    guard store.waitForRunningEffects(timeout: .milliseconds(100)) > 0 else { return }
    for step in effects.withLock({
      $0.running.values.sorted { $0.location.line < $1.location.line }
    }) {
      TestFailure.record(Self.stillRunningMessage, at: step.location)
    }
  }

  static var stillRunningMessage: String {
    """
    An effect returned for this action is still running. It must finish before the end of the \
    test.

    Receive its actions and let it end (for example by advancing a TestClock), cancel it with an \
    action, call 'skipInFlightEffects()', or make the test non-exhaustive.
    """
  }

  // MARK: Settings

  /// How strictly steps and the end of the test are checked. Default: ``Exhaustivity/on``.
  public var exhaustivity: Exhaustivity {
    get { settings.withLock { $0.exhaustivity } }
    set { settings.withLock { $0.exhaustivity = newValue } }
  }

  /// How long `receive(_:timeout:fires:assert:)` and
  /// ``finish(timeout:fileID:filePath:line:column:)`` wait by default. Default: one second.
  ///
  /// A wall-clock limit for tests that fail; passing tests never wait for it. Drive time in
  /// effects with a `TestClock` instead.
  public var timeout: Duration {
    get { settings.withLock { $0.timeout } }
    set { settings.withLock { $0.timeout = newValue } }
  }

  /// The dependencies the reducer and the effects of later steps use.
  public var dependencies: DependencyValues {
    get { settings.withLock { $0.dependencies } }
    set { settings.withLock { $0.dependencies = newValue } }
  }

  /// The current state.
  public var state: State { store.untrackedState }

  /// Runs `operation` with ``exhaustivity`` set to `exhaustivity`, then restores it.
  nonisolated(nonsending) public func withExhaustivity<R>(
    _ exhaustivity: Exhaustivity, operation: () async throws -> R
  ) async rethrows -> R {
    let saved = self.exhaustivity
    self.exhaustivity = exhaustivity
    defer { self.exhaustivity = saved }
    return try await operation()
  }
}
