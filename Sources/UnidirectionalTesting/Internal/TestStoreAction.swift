import Unidirectional

/// An action of a test store's underlying store, marked with where it came from.
///
/// The mark is what lets the test store tell the action a step sent from the actions effects
/// fed back around it, even when another thread reduces them in between.
enum TestStoreAction<Action: Sendable>: Sendable {
  /// Sent by the test, by the step numbered `step`.
  case sent(Action, step: UInt64)
  /// Fed back by an effect (or sent by an observer): the test receives it.
  case received(Action)

  /// The number of the send step that sent it, or `nil` for a received action.
  var step: UInt64? {
    if case .sent(_, let step) = self { step } else { nil }
  }

  /// The action itself.
  var action: Action {
    switch self {
    case .sent(let action, _), .received(let action): action
    }
  }
}

/// The reducer of a test store's underlying store: the reducer under test, run with the test
/// store's dependencies as they are when each action is reduced.
struct TestReducer<Base: Reducer>: Reducer where Base.Action: Sendable {
  let base: Base
  let dependencies: @Sendable () -> DependencyValues

  func reduce(
    into state: inout Base.State, action: TestStoreAction<Base.Action>
  ) -> Effect<TestStoreAction<Base.Action>> {
    // `withDependencies` rather than binding the task-local directly: it also tells effects
    // created here that they must capture the dependencies in force.
    let values = dependencies()
    return withDependencies {
      $0 = values
    } operation: {
      base.reduce(into: &state, action: action.action)
    }
    .map { TestStoreAction.received($0) }
  }
}
