import Unidirectional

extension TestStore {
  /// Ends the test: lets every effect finish, then asserts that every action they fed back was
  /// received.
  ///
  /// Drains the test store's executor. Effects that are then asleep on a `TestClock` (only the
  /// test could wake them) fail the test at once; effects that wait for work outside the
  /// executor are waited for up to `timeout` (default ``timeout``). Those still running fail
  /// the test, one failure at the line of each step whose action started them (when
  /// exhaustive), and are cancelled.
  /// Actions received after the last assertion then fail the test at this line. Steps after
  /// `finish` fail.
  ///
  /// - Parameters:
  ///   - timeout: How long to wait for effects to finish.
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
    let timeout = timeout ?? self.timeout
    guard !progress.withLock(\.isFinished) else { return }
    reporter.beginStep(at: location)
    let outcome = await drain(
      until: { store.runningEffectCount == 0 },
      givingUpWhen: { executor.clockSleeperCount > 0 },
      deadline: ContinuousClock.now.advanced(by: timeout))
    if outcome != .done {
      if isExhaustive {
        reportRunningEffects(waited: timeout, fallback: location)
      } else {
        skipped("Effects were still running; they were cancelled.", at: location)
      }
      store.cancelAllEffects()
      _ = await drain(
        until: { store.runningEffectCount == 0 },
        deadline: ContinuousClock.now.advanced(by: timeout))
    }
    // Changes of shared values made so far (by the steps, the effects or other stores) reach
    // the store before it is checked: each is an action the test must have received.
    await settings.withLock(\.dependencies).sharedStorage.delivered()
    await reduced.waitForActionInProgress(deadline: ContinuousClock.now.advanced(by: timeout))
    progress.withLock { $0.isFinished = true }
    let unreceived = reduced.takeReceived()
    guard !unreceived.isEmpty else { return }
    let headline = "The store received \(unreceived.count) unexpected action(s):"
    if isExhaustive {
      TestFailure.record(
        TestFailure.message(headline, listing: unreceived.map(\.action)), at: location)
    } else {
      skipped(headline, listing: unreceived.map(\.action), at: location)
    }
  }

  /// Accepts every action effects have fed back so far without asserting anything about them.
  ///
  /// First drains the test store's executor (see
  /// ``send(_:fires:assert:fileID:filePath:line:column:)``), so that actions the effects are about
  /// to send are skipped too. With
  /// `.off(showSkippedAssertions: true)`, the skipped actions are shown as a known issue.
  ///
  /// - Parameters:
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
    await executor.drainUntilIdle()
    let skippedRecords = reduced.takeReceived()
    guard let last = skippedRecords.last else { return }
    let after = last.after as! State
    progress.withLock { $0.assertedState = after }
    skipped(
      "\(skippedRecords.count) received action(s) were skipped:",
      listing: skippedRecords.map(\.action), at: location)
  }

  /// Cancels every effect still running and waits for them to end, so that the end of the test
  /// does not require them to finish.
  ///
  /// - Parameters:
  ///   - fileID: The file of the call, where failures are reported (filled in for you).
  ///   - filePath: The full path of that file (filled in for you).
  ///   - line: The line of the call (filled in for you).
  ///   - column: The column of the call (filled in for you).
  nonisolated(nonsending) public func skipInFlightEffects(
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    let location = TestSourceLocation(
      fileID: fileID, filePath: filePath, line: line, column: column)
    await executor.drainUntilIdle()
    let count = store.runningEffectCount
    store.cancelAllEffects()
    let outcome = await drain(
      until: { store.runningEffectCount == 0 },
      deadline: ContinuousClock.now.advanced(by: timeout))
    if outcome != .done {
      TestFailure.record(
        "Effects did not end within \(timeout) of being cancelled: they ignore cancellation.",
        at: location)
    }
    progress.withLock { $0.runningEffects = [:] }
    if count > 0 { skipped("\(count) effect(s) in flight were cancelled.", at: location) }
  }

  /// Fails the test once for each asserted step whose effects are still running (or once at
  /// `fallback` if the running effects belong to no asserted step).
  ///
  /// - Parameter waited: How long the test store waited for work outside its executor, or
  ///   `nil` if it did not wait (as it goes away).
  func reportRunningEffects(waited: Duration?, fallback: TestSourceLocation) {
    let waitedNote =
      waited.map { "waited up to \($0) for work outside the test store's executor" }
      ?? "the test store was released without 'finish()'"
    let message = """
      An effect is still running at the end of the test (\(waitedNote)). It must finish before \
      the test ends. \(runningEffectsAdvice)

      Receive its actions and let it end (for example by advancing a TestClock), cancel it with \
      an action, call 'skipInFlightEffects()', or make the test non-exhaustive.
      """
    let steps = progress.withLock { progress in
      defer { progress.runningEffects = [:] }
      return progress.runningEffects.sorted { $0.key < $1.key }.map(\.value.location)
    }
    if steps.isEmpty {
      TestFailure.record(message, at: fallback)
    }
    for location in steps {
      TestFailure.record(message, at: location)
    }
  }
}
