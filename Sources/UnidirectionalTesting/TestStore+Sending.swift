import Unidirectional

extension TestStore {
  /// Sends an action and asserts the state change and the observers it fired.
  ///
  /// First runs what is ready on the test store's executor (an effect resumed by the test, say),
  /// then sends the action. Returns once the action is reduced and the test store's executor
  /// is idle: every effect has run until it waits for something (a `TestClock`, another task,
  /// work outside the executor) or has ended. The actions those effects sent meanwhile are
  /// waiting to be received. It never waits for work outside the executor.
  ///
  /// - Parameters:
  ///   - action: The action.
  ///   - fires: The names of the observers expected to run because of this action; by default
  ///     none.
  ///   - assert: Turns the state before the action into the state expected after it. Leave it
  ///     out when the action must not change the state.
  ///   - fileID: The file of the call, where failures are reported (filled in for you).
  ///   - filePath: The full path of that file (filled in for you).
  ///   - line: The line of the call (filled in for you).
  ///   - column: The column of the call (filled in for you).
  /// - Returns: A task for the effects the action started, which the test can cancel or await.
  @discardableResult
  nonisolated(nonsending) public func send(
    _ action: Action,
    fires: Set<String> = [],
    assert: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async -> StoreTask {
    let location = TestSourceLocation(
      fileID: fileID, filePath: filePath, line: line, column: column)
    guard !progress.withLock(\.isFinished) else {
      TestFailure.record(
        """
        Sent an action after the test store finished:

        \(TestFailure.indented(action))

        'finish()' ends the test: make it the last step.
        """,
        at: location)
      return .none
    }
    await executor.drainUntilIdle()
    handleUnreceived(reduced.takeReceived(), before: "sending an action", at: location)
    reporter.beginStep(at: location)
    let step = progress.withLock { progress in
      progress.nextStep += 1
      return progress.nextStep
    }
    let task = store.send(.sent(action, step: step))
    let record = await reduced.takeSent(step: step)
    // Actions effects fed back that another thread reduced just before this one.
    handleUnreceived(reduced.takeRaced(), before: "sending an action", at: location)
    await executor.drainUntilIdle()
    check(record, fires: fires, assert: assert, at: location)
    return task
  }

  /// Asserts the current state without sending an action.
  ///
  /// When exhaustive, `update` turns the state after the last asserted action into the state
  /// expected now; otherwise it is applied to the current state, so only what it sets is
  /// checked. Useful in non-exhaustive tests, after skipping actions.
  ///
  /// ```swift
  /// store.exhaustivity = .off
  /// await store.send(.login)
  /// await store.skipReceivedActions()
  /// store.assert { $0.isLoggedIn = true }
  /// ```
  ///
  /// - Parameters:
  ///   - update: Changes a copy of the state into the expected state.
  ///   - fileID: The file of the call, where failures are reported (filled in for you).
  ///   - filePath: The full path of that file (filled in for you).
  ///   - line: The line of the call (filled in for you).
  ///   - column: The column of the call (filled in for you).
  public func assert(
    _ update: (inout State) throws -> Void,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) {
    let location = TestSourceLocation(
      fileID: fileID, filePath: filePath, line: line, column: column)
    handleUnreceived(reduced.takeReceived(), before: "asserting the state", at: location)
    let actual = store.untrackedState
    var expected = isExhaustive ? progress.withLock(\.assertedState) : actual
    do {
      try update(&expected)
    } catch {
      TestFailure.record("The state assertion threw an error: \(error)", at: location)
      return
    }
    progress.withLock { $0.assertedState = actual }
    guard expected != actual else { return }
    TestFailure.record(
      TestFailure.message(
        "State does not match expectation:", expected: expected, actual: actual),
      at: location)
  }
}
