import Unidirectional

/// Every action a test store's store reduced, in order, from the moment it is reduced until the
/// test asserts it.
///
/// The store reduces actions exactly as in production (effects' actions as soon as they are
/// sent); this log keeps, for each one, the states around it and the observers it fired, so that
/// a later `receive` asserts what happened then.
///
/// States of a record: in progress (reduced; its effects are starting and its observers
/// running, on the thread that reduced it; at most one, the last) → complete (the store told
/// `didComplete`) → taken by a step of the test, which removes it.
final class ReducedActions<State: Sendable, Action: Sendable>: Sendable {
  /// What one action did.
  struct Record: Sendable {
    /// The action.
    let action: Action
    /// The number of the send step that sent it, or `nil` for an action an effect fed back.
    let step: UInt64?
    /// The state before and after it.
    let before: State
    let after: State
    /// The test store's observers it fired, in the order they ran.
    var fired: [String] = []
    /// Its effects.
    var effects = StoreTask.none
    var isComplete = false
  }

  private let records = Locked<[Record]>([])
  private let changes = ChangeSignal()

  // MARK: Recording (on the thread that reduces)

  /// Records an action the store just reduced.
  func didReduce(_ action: TestStoreAction<Action>, before: State, after: State) {
    let step: UInt64?
    if case .sent(_, let number) = action { step = number } else { step = nil }
    records.withLock {
      $0.append(Record(action: action.action, step: step, before: before, after: after))
    }
  }

  /// Records that the observer `name` ran because of the action in progress.
  ///
  /// Runs outside any action (an observer's first run) are not recorded.
  func observerRan(_ name: String) {
    records.withLock { records in
      guard let last = records.indices.last, !records[last].isComplete else { return }
      records[last].fired.append(name)
    }
  }

  /// Marks the action in progress complete, with the task of its effects.
  func didComplete(_ effects: Task<Void, Never>?) {
    records.withLock { records in
      guard let last = records.indices.last, !records[last].isComplete else { return }
      records[last].effects = StoreTask(effects)
      records[last].isComplete = true
    }
    changes.signal()
  }

  // MARK: Taking (on the test's task)

  /// Whether an action is being reduced or completed right now.
  var hasActionInProgress: Bool {
    records.withLock { $0.last.map { !$0.isComplete } ?? false }
  }

  /// Removes and returns the complete records at the front of the log: actions fed back by
  /// effects that the test has not received.
  func takeReceived() -> [Record] {
    records.withLock { records in
      let count = records.prefix { $0.isComplete && $0.step == nil }.count
      defer { records.removeFirst(count) }
      return Array(records.prefix(count))
    }
  }

  /// Waits for the record of send step `step` to be complete, then removes it, with the
  /// received actions the store reduced before it.
  func takeSent(step: UInt64) async -> (earlier: [Record], record: Record) {
    while true {
      let seen = changes.generation
      let taken = records.withLock { records -> ([Record], Record)? in
        guard let index = records.firstIndex(where: { $0.step == step }),
          records[index].isComplete
        else { return nil }
        let earlier = Array(records[..<index])
        let record = records[index]
        records.removeFirst(index + 1)
        return (earlier, record)
      }
      if let taken { return taken }
      // The step's action is reduced by whichever thread owns the store; it always completes.
      _ = await changes.wait(past: seen, timeout: .seconds(1))
    }
  }

  /// Removes and returns the oldest received action once it is complete; or, while
  /// `mayStillArrive()` is true, waits up to `timeout` for one. `nil` if none arrived.
  func nextReceived(timeout: Duration, mayStillArrive: () -> Bool) async -> Record? {
    let deadline = ContinuousClock.now.advanced(by: timeout)
    while true {
      let seen = changes.generation
      let next = records.withLock { records -> Record? in
        guard let first = records.first, first.isComplete else { return nil }
        return records.removeFirst()
      }
      if let next { return next }
      let remaining = ContinuousClock.now.duration(to: deadline)
      guard remaining > .zero, hasActionInProgress || mayStillArrive() else { return nil }
      // Effects that end without sending do not signal: look again every few milliseconds.
      _ = await changes.wait(past: seen, timeout: min(remaining, .milliseconds(5)))
    }
  }

  /// Waits until no action is in progress, or until `deadline`.
  func waitForActionInProgress(deadline: ContinuousClock.Instant) async {
    while true {
      let seen = changes.generation
      let remaining = ContinuousClock.now.duration(to: deadline)
      guard hasActionInProgress, remaining > .zero else { return }
      _ = await changes.wait(past: seen, timeout: remaining)
    }
  }
}
