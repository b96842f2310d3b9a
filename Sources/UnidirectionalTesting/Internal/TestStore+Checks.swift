import Unidirectional

extension TestStore {
  /// Whether the test store is exhaustive now.
  var isExhaustive: Bool {
    if case .on = exhaustivity { true } else { false }
  }

  /// Checks one action's record against a step's expectations, then tracks its effects.
  func check(
    _ record: ReducedActions.Record,
    fires: Set<String>,
    assert: ((inout State) throws -> Void)?,
    at location: TestSourceLocation
  ) {
    // The records hold the states the test store's store gave them.
    let before = record.before as! State
    let after = record.after as! State
    progress.withLock { $0.assertedState = after }
    checkObservers(fired: record.fired, expected: fires, at: location)
    checkState(before: before, after: after, assert: assert, at: location)
    track(record.effects, at: location)
  }

  /// Fails (or, when not exhaustive, notes) actions effects fed back that the test did not
  /// receive before its next step.
  func handleUnreceived(
    _ records: [ReducedActions.Record], before step: String,
    at location: TestSourceLocation
  ) {
    guard let last = records.last else { return }
    let after = last.after as! State
    progress.withLock { $0.assertedState = after }
    let headline = "Must handle \(records.count) received action(s) before \(step):"
    if isExhaustive {
      TestFailure.record(
        TestFailure.message(headline, listing: records.map(\.action)), at: location)
    } else {
      skipped(
        "\(records.count) received action(s) were skipped:", listing: records.map(\.action),
        at: location)
    }
  }

  /// Remembers the effects of an asserted action until they finish, for the end of the test.
  func track(_ effects: StoreTask, at location: TestSourceLocation) {
    guard effects.hasAsynchronousWork else { return }
    let progress = self.progress
    let id = progress.withLock { progress in
      progress.nextEffectsID += 1
      progress.runningEffects[progress.nextEffectsID] = (effects, location)
      return progress.nextEffectsID
    }
    // Waits without draining: only the test's steps run the executor's jobs.
    let effects = effects.withoutDraining
    Task {
      await effects.finish()
      progress.withLock { _ = $0.runningEffects.removeValue(forKey: id) }
    }
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
    if isExhaustive {
      TestFailure.record(([headline, ""] + lines).joined(separator: "\n"), at: location)
    } else if !silent.isEmpty {
      TestFailure.record("Expected observers did not fire.\n\n" + lines.last!, at: location)
    }
  }

  private func checkState(
    before: State, after: State, assert: ((inout State) throws -> Void)?,
    at location: TestSourceLocation
  ) {
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
      // `withLock` on a shared value describes the expected copy, and changes no storage.
      try SharedExpectation.describing { try assert(&expected) }
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
  func skipped(
    _ headline: String, listing values: [Any] = [], at location: TestSourceLocation
  ) {
    guard case .off(showSkippedAssertions: true) = exhaustivity else { return }
    let message = values.isEmpty ? headline : TestFailure.message(headline, listing: values)
    TestFailure.recordKnownIssue(message, at: location)
  }
}
