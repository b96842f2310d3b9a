import Testing
import Unidirectional

extension TestStore {
  // MARK: Observers

  /// Registers a named observer of the store, tracked by the real observation engine.
  ///
  /// `body` receives the underlying store; the values it reads through it are what the observer
  /// depends on, exactly as with `Store.observe`. It runs now, and again after any step that
  /// changed a value it read. Every step then asserts the set of observers that ran (its
  /// `fires:` argument).
  ///
  /// - Parameters:
  ///   - name: The name steps use in `fires:`. Names must be unique within a test store.
  ///   - body: The observer.
  ///   - fileID: The file of the call, where failures are reported (filled in for you).
  ///   - filePath: The full path of that file (filled in for you).
  ///   - line: The line of the call (filled in for you).
  ///   - column: The column of the call (filled in for you).
  public func observe(
    _ name: String,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column,
    _ body: @escaping @Sendable (Store<State, Action>) -> Void
  ) {
    let location = TestSourceLocation(
      fileID: fileID, filePath: filePath, line: line, column: column)
    guard observers.withLock({ $0.tokens[name] == nil }) else {
      TestFailure.record("An observer named \"\(name)\" is already registered.", at: location)
      return
    }
    let observers = self.observers
    let token = store.observe { [weak store] in
      guard let store else { return }
      body(store)
      observers.withLock { $0.fired.append(name) }
    }
    observers.withLock { $0.tokens[name] = token }
  }

  // MARK: Sending

  /// Sends an action and asserts the state change and the observers it fired.
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
    let unreceived = received.removeAll()
    if !unreceived.isEmpty {
      if case .on = exhaustivity {
        TestFailure.record(
          TestFailure.message(
            "Must handle \(unreceived.count) received action(s) before sending an action:",
            listing: unreceived),
          at: location)
      } else {
        skipped("\(unreceived.count) received action(s) were skipped.", at: location)
      }
      // Reduced anyway, so that the state stays what the application would have.
      for action in unreceived { _ = reduce(action, at: location) }
    }
    return step(action, fires: fires, assert: assert, at: location)
  }

  // MARK: Receiving

  /// Receives an action fed back by an effect, reduces it, and asserts the state change and the
  /// observers it fired.
  ///
  /// Waits for the action if it has not arrived yet, up to `timeout` (default ``timeout``), but
  /// fails at once when no effect is running that could send it.
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
      description: expected, timeout: timeout, fires: fires, assert: assert,
      location: TestSourceLocation(fileID: fileID, filePath: filePath, line: line, column: column),
      matches: { $0 == expected })
  }

  /// Receives an action fed back by an effect that `isMatching` accepts, reduces it, and
  /// asserts the state change and the observers it fired.
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
      description: "an action matching the predicate", timeout: timeout, fires: fires,
      assert: assert,
      location: TestSourceLocation(fileID: fileID, filePath: filePath, line: line, column: column),
      matches: isMatching)
  }

  /// Receives an action fed back by an effect that is in the case `action`, reduces it, and
  /// asserts the state change and the observers it fired.
  ///
  /// ```swift
  /// await store.receive(.factResponse) { $0.fact = "7 is prime." }
  /// ```
  ///   - fileID: The file of the call, where failures are reported (filled in for you).
  ///   - filePath: The full path of that file (filled in for you).
  ///   - line: The line of the call (filled in for you).
  ///   - column: The column of the call (filled in for you).
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
      description: "an action of the expected case", timeout: timeout, fires: fires,
      assert: assert,
      location: TestSourceLocation(fileID: fileID, filePath: filePath, line: line, column: column),
      matches: { action.extract($0) != nil })
  }

  nonisolated(nonsending) private func receive(
    description: Any,
    timeout: Duration?,
    fires: Set<String>,
    assert: ((inout State) throws -> Void)?,
    location: TestSourceLocation,
    matches: (Action) -> Bool
  ) async -> StoreTask {
    let timeout = timeout ?? self.timeout
    while true {
      let next = await received.next(
        timeout: timeout, mayStillArrive: store.runningEffectCount > 0)
      guard let action = next else {
        let reason =
          store.runningEffectCount > 0
          ? "none arrived within \(timeout)" : "no effect is running that could send one"
        TestFailure.record(
          TestFailure.message(
            "Expected to receive an action, but \(reason):", listing: [description]),
          at: location)
        return StoreTask.none
      }
      if matches(action) {
        return step(action, fires: fires, assert: assert, at: location)
      }
      if case .on = exhaustivity {
        let headline = "Received an unexpected action:"
        if type(of: description) == Action.self {
          TestFailure.record(
            TestFailure.message(headline, expected: description, actual: action), at: location)
        } else {
          TestFailure.record(TestFailure.message(headline, listing: [action]), at: location)
        }
        return step(action, fires: fires, assert: assert, at: location)
      }
      skipped("A received action was skipped:", listing: [action], at: location)
      _ = reduce(action, at: location)
    }
  }

  // MARK: Ending

  /// Waits for every effect to finish and asserts that every action they fed back was received.
  ///
  /// Effects still running after `timeout` (default ``timeout``) fail the test, one failure at
  /// the line of each step that started them (when exhaustive), and are cancelled.
  ///   - fileID: The file of the call, where failures are reported (filled in for you).
  ///   - filePath: The full path of that file (filled in for you).
  ///   - line: The line of the call (filled in for you).
  ///   - column: The column of the call (filled in for you).
  nonisolated(nonsending) public func finish(
    timeout: Duration? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    let location = TestSourceLocation(
      fileID: fileID, filePath: filePath, line: line, column: column)
    let deadline = ContinuousClock.now.advanced(by: timeout ?? self.timeout)
    let steps = effects.withLock { $0.running.sorted { $0.key < $1.key } }
    for (id, step) in steps {
      let finished = await withTaskGroup(of: Bool.self) { group in
        group.addTask {
          await step.task.finish()
          return true
        }
        group.addTask {
          try? await Task.sleep(until: deadline)
          return false
        }
        let first = await group.next() ?? false
        group.cancelAll()  // Cancels the effect too if it did not finish.
        return first
      }
      effects.withLock { _ = $0.running.removeValue(forKey: id) }
      if !finished {
        if case .on = exhaustivity {
          TestFailure.record(Self.stillRunningMessage, at: step.location)
        } else {
          skipped("An effect was still running; it was cancelled.", at: step.location)
        }
      }
    }
    let unreceived = received.removeAll()
    guard !unreceived.isEmpty else { return }
    let headline = "The store received \(unreceived.count) unexpected action(s):"
    if case .on = exhaustivity {
      TestFailure.record(TestFailure.message(headline, listing: unreceived), at: location)
    } else {
      skipped(headline, listing: unreceived, at: location)
      for action in unreceived { _ = reduce(action, at: location) }
    }
  }

  /// Reduces every action fed back so far without asserting anything about them.
  ///   - fileID: The file of the call, where failures are reported (filled in for you).
  ///   - filePath: The full path of that file (filled in for you).
  ///   - line: The line of the call (filled in for you).
  ///   - column: The column of the call (filled in for you).
  nonisolated(nonsending) public func skipReceivedActions(
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    let location = TestSourceLocation(
      fileID: fileID, filePath: filePath, line: line, column: column)
    for action in received.removeAll() { _ = reduce(action, at: location) }
  }

  /// Cancels every effect still running, so that the end of the test does not require them to
  /// finish.
  nonisolated(nonsending) public func skipInFlightEffects() async {
    let steps = effects.withLock { effects in
      defer { effects.running = [:] }
      return effects.running.values
    }
    for step in steps {
      step.task.cancel()
      await step.task.finish()
    }
  }

  // MARK: Steps

  /// Sends `action` to the store and checks what it changed against the step's assertions.
  func step(
    _ action: Action,
    fires expectedFires: Set<String>,
    assert: ((inout State) throws -> Void)?,
    at location: TestSourceLocation
  ) -> StoreTask {
    let before = store.untrackedState
    let (task, fired) = reduce(action, at: location)
    let after = store.untrackedState
    checkObservers(fired: fired, expected: expectedFires, at: location)
    checkState(before: before, after: after, assert: assert, at: location)
    return task
  }

  /// Reduces `action` through the store with the test's dependencies, tracks its effects, and
  /// returns the names of the observers it fired.
  @discardableResult
  func reduce(_ action: Action, at location: TestSourceLocation) -> (StoreTask, [String]) {
    currentLocation.withLock { $0 = location }
    observers.withLock { $0.fired.removeAll(keepingCapacity: true) }
    let dependencies = settings.withLock { $0.dependencies }
    let task = DependencyValues.$current.withValue(dependencies) { store.send(action) }
    if task.hasAsynchronousWork {
      let effects = self.effects
      let id = effects.withLock { effects in
        effects.nextID += 1
        effects.running[effects.nextID] = Effects.Step(task: task, location: location)
        return effects.nextID
      }
      // Forgets the step once its effects are done, for the end-of-test check.
      Task {
        await task.finish()
        effects.withLock { _ = $0.running.removeValue(forKey: id) }
      }
    }
    return (task, observers.withLock { $0.fired })
  }

  private func checkObservers(
    fired: [String], expected: Set<String>, at location: TestSourceLocation
  ) {
    let fired = Set(fired)
    guard fired != expected else { return }
    let unexpected = fired.subtracting(expected).sorted()
    let silent = expected.subtracting(fired).sorted()
    var lines: [String] = []
    if !unexpected.isEmpty {
      lines.append(
        "Fired but not expected: " + unexpected.map { "\"\($0)\"" }.joined(separator: ", "))
    }
    if !silent.isEmpty {
      lines.append(
        "Expected but did not fire: " + silent.map { "\"\($0)\"" }.joined(separator: ", "))
    }
    let headline: String
    switch (unexpected.isEmpty, silent.isEmpty) {
    case (false, true): headline = "Unexpected observers fired."
    case (true, false): headline = "Expected observers did not fire."
    default: headline = "Unexpected observers fired, and expected observers did not fire."
    }
    if case .on = exhaustivity {
      TestFailure.record(([headline, ""] + lines).joined(separator: "\n"), at: location)
    } else if !silent.isEmpty {
      TestFailure.record(
        "Expected observers did not fire.\n\n" + lines.last!, at: location)
    }
  }

  private func checkState(
    before: State, after: State, assert: ((inout State) throws -> Void)?,
    at location: TestSourceLocation
  ) {
    let isExhaustive: Bool
    if case .on = exhaustivity { isExhaustive = true } else { isExhaustive = false }
    guard let assert else {
      if isExhaustive, before != after {
        TestFailure.record(
          TestFailure.message(
            "State was not expected to change, but a change occurred:", expected: before,
            actual: after),
          at: location)
      }
      return
    }
    // Exhaustive: the closure turns the old state into the whole new one. Otherwise it is
    // applied to the actual new state, so only the values it sets are checked.
    var expected = isExhaustive ? before : after
    do {
      try assert(&expected)
    } catch {
      TestFailure.record("The state assertion threw an error: \(error)", at: location)
      return
    }
    if expected != after {
      TestFailure.record(
        TestFailure.message(
          "State change does not match expectation:", expected: expected, actual: after),
        at: location)
    } else if isExhaustive, before == after {
      TestFailure.record(
        """
        Expected state to change, but no change occurred.

        The trailing closure made no observable change to the state. If no change is expected, \
        leave the closure out.
        """,
        at: location)
    }
  }

  /// Shows what a non-exhaustive test skipped, if it asked to.
  private func skipped(
    _ headline: String, listing values: [Any] = [], at location: TestSourceLocation
  ) {
    guard case .off(showSkippedAssertions: true) = exhaustivity else { return }
    let message = values.isEmpty ? headline : TestFailure.message(headline, listing: values)
    TestFailure.recordKnownIssue(message, at: location)
  }
}
