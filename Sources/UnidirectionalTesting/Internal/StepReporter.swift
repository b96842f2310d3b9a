import Testing
import Unidirectional

/// Where a test store records the failures found outside a step's own checks (a dependency
/// without a test value, an effect that threw, an action from a child that is gone): at the
/// step in progress.
///
/// A failure can be reported from outside the test's tasks: a `Send` called from a detached
/// task or a Dispatch thread after its child was dismissed. Swift Testing attributes an issue to
/// a test only from inside that test's tasks, so such a failure is kept and recorded by the next
/// step of the test store (or as the store goes), which runs inside the test.
final class StepReporter: Sendable {
  private struct State {
    var location: TestSourceLocation
    var late: [(message: String, location: TestSourceLocation)] = []
  }

  private let state: Locked<State>

  /// Whether the store was made inside a Swift Testing test (XCTest attributes a failure to
  /// the running test from any thread).
  private let isInsideSwiftTesting = Test.current != nil

  init(location: TestSourceLocation) {
    state = Locked(State(location: location))
  }

  /// The location of the step in progress.
  var location: TestSourceLocation {
    state.withLock(\.location)
  }

  /// Records `message` at the step in progress, now if the caller runs inside the test, else
  /// at the next step.
  func record(_ message: String) {
    if isInsideSwiftTesting, Test.current == nil {
      state.withLock { $0.late.append((message, $0.location)) }
    } else {
      TestFailure.record(message, at: location)
    }
  }

  /// A step begins at `location`: failures kept from outside the test are recorded first.
  func beginStep(at location: TestSourceLocation) {
    recordLate()
    state.withLock { $0.location = location }
  }

  /// Records the failures kept from outside the test.
  func recordLate() {
    let late = state.withLock { state in
      defer { state.late = [] }
      return state.late
    }
    for failure in late { TestFailure.record(failure.message, at: failure.location) }
  }
}
