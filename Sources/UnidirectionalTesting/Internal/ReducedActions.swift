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
///
/// Not generic on purpose: a test store runs unspecialized (its generic code is compiled once,
/// in this module), and unspecialized generic code looks type metadata up on every use of a
/// generic array, optional or tuple, which cost a step microseconds. Records hold their values
/// as `any Sendable`; the test store casts them back.
final class ReducedActions: Sendable {
  /// What one action did.
  final class Record: @unchecked Sendable {
    // Safe: the `let`s never change; `fired`, `effects` and `isComplete` are written under the
    // log's lock while the record is in progress, and read only once it is complete, after the
    // test took it under the same lock.

    /// The action.
    let action: any Sendable
    /// The number of the send step that sent it, or `nil` for an action an effect fed back.
    let step: UInt64?
    /// The state before and after it.
    let before: any Sendable
    let after: any Sendable
    /// The test store's observers it fired, in the order they ran.
    var fired: [String] = []
    /// Its effects.
    var effects = StoreTask.none
    var isComplete = false

    init(action: any Sendable, step: UInt64?, before: any Sendable, after: any Sendable) {
      self.action = action
      self.step = step
      self.before = before
      self.after = after
    }
  }

  private struct Log {
    /// Records not yet taken start at `head` (taking from the front moves `head`, not the
    /// elements).
    var records: [Record] = []
    var head = 0
    /// Received actions reduced before a send step's own action, set aside by `takeSent`.
    var raced: [Record] = []

    var pending: ArraySlice<Record> { records[head...] }

    /// The record in progress, if any: only the last one can be.
    var inProgress: Record? {
      guard head < records.count, let last = records.last, !last.isComplete else { return nil }
      return last
    }

    mutating func removeFirst(_ count: Int) {
      head += count
      if head == records.count {
        records.removeAll(keepingCapacity: true)
        head = 0
      }
    }
  }

  private let log = Locked(Log())
  private let changes = ChangeSignal()
  /// The executor of the test store's effects: a `receive` waiting on it wakes when an action
  /// completes, whichever thread reduced it.
  private let executor: TestExecutor

  init(executor: TestExecutor) {
    self.executor = executor
  }

  // MARK: Recording (on the thread that reduces)

  /// Records an action the store just reduced.
  func didReduce(action: any Sendable, step: UInt64?, before: any Sendable, after: any Sendable) {
    let record = Record(action: action, step: step, before: before, after: after)
    log.withLock { $0.records.append(record) }
  }

  /// Records that the observer `name` ran because of the action in progress.
  ///
  /// Runs outside any action (an observer's first run) are not recorded.
  func observerRan(_ name: String) {
    log.withLock { $0.inProgress?.fired.append(name) }
  }

  /// Marks the action in progress complete, with the task of its effects.
  func didComplete(_ effects: Task<Void, Never>?) {
    log.withLock { log in
      guard let record = log.inProgress else { return }
      record.effects = StoreTask(effects, testExecutor: executor)
      record.isComplete = true
    }
    changes.signal()
    executor.wakeWaiters()
  }

  // MARK: Taking (on the test's task)

  /// Whether an action is being reduced or completed right now.
  var hasActionInProgress: Bool {
    log.withLock { $0.inProgress != nil }
  }

  /// Removes and returns the complete records at the front of the log: actions fed back by
  /// effects that the test has not received.
  func takeReceived() -> [Record] {
    log.withLock { log in
      let taken = Array(log.pending.prefix { $0.isComplete && $0.step == nil })
      log.removeFirst(taken.count)
      return taken
    }
  }

  /// Removes and returns the received actions that `takeSent` found before its step's action.
  func takeRaced() -> [Record] {
    log.withLock { log in
      defer { log.raced = [] }
      return log.raced
    }
  }

  /// Waits for the record of send step `step` to be complete, then removes and returns it. The
  /// received actions the store reduced before it are set aside for `takeRaced()`.
  func takeSent(step: UInt64) async -> Record {
    while true {
      let seen = changes.generation
      if let record = takeSentIfComplete(step: step) { return record }
      // The step's action is reduced by whichever thread owns the store; it always completes.
      _ = await changes.wait(past: seen, timeout: .seconds(1))
    }
  }

  private func takeSentIfComplete(step: UInt64) -> Record? {
    log.withLock { log in
      // Usually the step's action is the only record.
      guard let index = log.pending.firstIndex(where: { $0.step == step }),
        log.records[index].isComplete
      else { return nil }
      log.raced += log.records[log.head..<index]
      let record = log.records[index]
      log.removeFirst(index + 1 - log.head)
      return record
    }
  }

  /// Removes and returns the oldest received action if it is complete.
  func takeNextReceived() -> Record? {
    log.withLock { log -> Record? in
      guard let first = log.pending.first, first.isComplete else { return nil }
      log.removeFirst(1)
      return first
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
