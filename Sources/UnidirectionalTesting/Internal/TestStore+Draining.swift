import Unidirectional

extension TestStore {
  /// How a wait for effects ended.
  enum DrainOutcome: Equatable {
    /// What the step waited for holds.
    case done
    /// The executor is idle and the wait can tell that nothing outside will help.
    case gaveUp
    /// The deadline passed while effects waited for something outside the executor.
    case timedOut
  }

  /// Drains the test store's executor until `isDone()` holds.
  ///
  /// Each time the executor is idle and `isDone()` does not hold, the wait ends if
  /// `givesUp()` holds, and otherwise suspends (never blocking a thread) until a job is queued
  /// or an action is reduced elsewhere, or until `deadline`: work outside the executor (an
  /// unstructured task, real I/O) is the only thing that can change anything then.
  func drain(
    until isDone: () -> Bool,
    givingUpWhen givesUp: () -> Bool = { false },
    deadline: ContinuousClock.Instant
  ) async -> DrainOutcome {
    while true {
      await executor.drainUntilIdle()
      // Read before the checks, so that a change after them ends the wait at once.
      let seen = executor.generation
      if isDone() { return .done }
      if executor.hasQueuedJobs { continue }
      if givesUp() { return .gaveUp }
      guard ContinuousClock.now < deadline else { return .timedOut }
      await executor.waitForChange(after: seen, until: deadline)
    }
  }

  /// The end of a failure message about effects still running: what the test can do.
  var runningEffectsAdvice: String {
    let sleepers = executor.clockSleeperCount
    guard sleepers > 0 else {
      return """
        No effect is asleep on a TestClock: they wait for work outside the test store's \
        executor (an unstructured 'Task {}', another actor's executor, real I/O).
        """
    }
    return """
      \(sleepers) effect task(s) are asleep on a TestClock: only the test can wake them, by \
      advancing the clock.
      """
  }
}
