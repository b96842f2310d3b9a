import Unidirectional

extension TestStore {
  /// Asserts that the next action an effect fed back is `expected`, with its state change and
  /// the observers it fired.
  ///
  /// The store reduced the action when the effect sent it; this step checks what it did then.
  /// If it has not arrived yet, drains the test store's executor; if it still has not, and an
  /// effect is running that could send it, suspends until work outside the executor (an
  /// unstructured task, real I/O) sends it, up to `timeout` (default ``timeout``). It fails at
  /// once when no effect is running.
  ///
  /// - Parameters:
  ///   - expected: The action expected next.
  ///   - timeout: How long to wait for it.
  ///   - fires: The observers expected to run; by default none.
  ///   - assert: Turns the state before the action into the expected state after it.
  ///   - fileID: The file of the call, where failures are reported (filled in for you).
  ///   - filePath: The full path of that file (filled in for you).
  ///   - line: The line of the call (filled in for you).
  ///   - column: The column of the call (filled in for you).
  /// - Returns: A task for the effects the received action started.
  @discardableResult
  nonisolated(nonsending) public func receive(
    _ expected: Action,
    timeout: Duration? = nil,
    fires: Set<String> = [],
    assert: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async -> StoreTask where Action: Equatable {
    await receive(
      .action(expected), timeout: timeout, fires: fires, assert: assert,
      location: TestSourceLocation(fileID: fileID, filePath: filePath, line: line, column: column),
      matches: { $0 == expected })
  }

  /// Asserts that the next action an effect fed back is one `isMatching` accepts, with its
  /// state change and the observers it fired.
  ///
  /// - Parameters:
  ///   - isMatching: Whether an action is the one expected.
  ///   - timeout: How long to wait for it (default ``timeout``).
  ///   - fires: The observers expected to run; by default none.
  ///   - assert: Turns the state before the action into the expected state after it.
  ///   - fileID: The file of the call, where failures are reported (filled in for you).
  ///   - filePath: The full path of that file (filled in for you).
  ///   - line: The line of the call (filled in for you).
  ///   - column: The column of the call (filled in for you).
  /// - Returns: A task for the effects the received action started.
  @discardableResult
  nonisolated(nonsending) public func receive(
    _ isMatching: (Action) -> Bool,
    timeout: Duration? = nil,
    fires: Set<String> = [],
    assert: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async -> StoreTask {
    await receive(
      .description("an action matching the predicate"), timeout: timeout, fires: fires,
      assert: assert,
      location: TestSourceLocation(fileID: fileID, filePath: filePath, line: line, column: column),
      matches: isMatching)
  }

  /// Asserts that the next action an effect fed back is in the case `action`, whatever its
  /// payload, with its state change and the observers it fired.
  ///
  /// ```swift
  /// await store.receive(.factResponse) { $0.fact = "7 is prime." }
  /// ```
  ///
  /// - Parameters:
  ///   - action: The case expected.
  ///   - timeout: How long to wait for it (default ``timeout``).
  ///   - fires: The observers expected to run; by default none.
  ///   - assert: Turns the state before the action into the expected state after it.
  ///   - fileID: The file of the call, where failures are reported (filled in for you).
  ///   - filePath: The full path of that file (filled in for you).
  ///   - line: The line of the call (filled in for you).
  ///   - column: The column of the call (filled in for you).
  /// - Returns: A task for the effects the received action started.
  @discardableResult
  nonisolated(nonsending) public func receive<Value>(
    _ action: CasePath<Action, Value>,
    timeout: Duration? = nil,
    fires: Set<String> = [],
    assert: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async -> StoreTask {
    await receive(
      .description("an action of the case \(Value.self) embeds in"), timeout: timeout,
      fires: fires, assert: assert,
      location: TestSourceLocation(fileID: fileID, filePath: filePath, line: line, column: column),
      matches: { action.extract($0) != nil })
  }

  /// Asserts that the next action an effect fed back is in the case `action` with the payload
  /// `value`, with its state change and the observers it fired.
  ///
  /// ```swift
  /// await store.receive(.factResponse, "7 is prime.") { $0.fact = "7 is prime." }
  /// ```
  ///
  /// A mismatch shows the difference between the action expected (`value` embedded in the
  /// case) and the one received.
  ///
  /// - Parameters:
  ///   - action: The case expected.
  ///   - value: The payload expected.
  ///   - timeout: How long to wait for it (default ``timeout``).
  ///   - fires: The observers expected to run; by default none.
  ///   - assert: Turns the state before the action into the expected state after it.
  ///   - fileID: The file of the call, where failures are reported (filled in for you).
  ///   - filePath: The full path of that file (filled in for you).
  ///   - line: The line of the call (filled in for you).
  ///   - column: The column of the call (filled in for you).
  /// - Returns: A task for the effects the received action started.
  @discardableResult
  nonisolated(nonsending) public func receive<Value: Equatable>(
    _ action: CasePath<Action, Value>,
    _ value: Value,
    timeout: Duration? = nil,
    fires: Set<String> = [],
    assert: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async -> StoreTask {
    await receive(
      .action(action.embed(value)), timeout: timeout, fires: fires, assert: assert,
      location: TestSourceLocation(fileID: fileID, filePath: filePath, line: line, column: column),
      matches: { action.extract($0) == value })
  }

  /// What a `receive` expected, for its failure message.
  enum Expectation {
    /// An action: a mismatch is shown as a diff.
    case action(Action)
    /// A description of the actions that match.
    case description(String)
  }

  nonisolated(nonsending) private func receive(
    _ expected: Expectation,
    timeout: Duration?,
    fires: Set<String>,
    assert: ((inout State) throws -> Void)?,
    location: TestSourceLocation,
    matches: (Action) -> Bool
  ) async -> StoreTask {
    let timeout = timeout ?? self.timeout
    reporter.beginStep(at: location)
    // Changes of shared values made so far reach the store first: a fact, not a wait.
    await settings.withLock(\.dependencies).sharedStorage.delivered()
    let deadline = ContinuousClock.now.advanced(by: timeout)
    while true {
      var next: ReducedActions.Record?
      let outcome = await drain(
        until: {
          next = reduced.takeNextReceived()
          return next != nil
        },
        givingUpWhen: { store.runningEffectCount == 0 && !reduced.hasActionInProgress },
        deadline: deadline)
      guard let record = next else {
        let listing: Any
        switch expected {
        case .action(let action): listing = action
        case .description(let text): listing = text
        }
        let message = TestFailure.message(
          outcome == .gaveUp
            ? "Expected to receive an action, but no effect is running that could send one:"
            : "Expected to receive an action, but none arrived within \(timeout):",
          listing: [listing])
        TestFailure.record(
          outcome == .gaveUp ? message : message + "\n\n" + runningEffectsAdvice, at: location)
        return .none
      }
      let action = record.action as! Action
      if matches(action) {
        check(record, fires: fires, assert: assert, at: location)
        return record.effects
      }
      let after = record.after as! State
      progress.withLock { $0.assertedState = after }
      guard isExhaustive else {
        skipped("A received action was skipped:", listing: [record.action], at: location)
        continue
      }
      // One failure for this mistake: the state and observers of an action the test did not
      // expect are not checked against what it expected.
      let headline = "Received an unexpected action:"
      switch expected {
      case .action(let expectedAction):
        TestFailure.record(
          TestFailure.message(headline, expected: expectedAction, actual: action), at: location)
      case .description(let text):
        TestFailure.record(
          TestFailure.message(headline + " (expected \(text))", listing: [record.action]),
          at: location)
      }
      track(record.effects, at: location)
      return record.effects
    }
  }
}
