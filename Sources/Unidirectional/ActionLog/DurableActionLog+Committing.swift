import Foundation

extension DurableActionLog: CommitParticipant {
  func takeBatch() -> CommitBatch? {
    storage.withLock { storage in
      storage.isScheduled = false
      // Lines appended before an encoding failure are still committed; after a sink failure
      // nothing is pending (see `finish`).
      guard !storage.pending.isEmpty || !storage.pendingSnapshots.isEmpty else { return nil }
      defer {
        storage.pending = Data()
        storage.pendingSnapshots = []
      }
      return CommitBatch(
        lines: storage.pending, through: storage.nextSequence - 1,
        snapshots: storage.pendingSnapshots)
    }
  }

  func finish(_ batch: CommitBatch, failure: ActionLogError?) {
    if let failure, case .unavailable = failure.reason {
      retryLater(batch, failure)
      return
    }
    if let failure {
      let (ready, isNew) = storage.withLock { storage -> ([Waiter], Bool) in
        let isNew = storage.failure == nil
        storage.failure = storage.failure ?? failure
        // The sink's state is unknown now: write nothing more to it.
        storage.pending = Data()
        storage.pendingSnapshots = []
        defer { storage.waiters = [] }
        return (storage.waiters, isNew)
      }
      if isNew {
        writeToStandardError("Unidirectional: the durable action log stopped: \(failure)\n")
      }
      for waiter in ready { waiter.resume(failure) }
      return
    }
    // Snapshots first, acknowledgements after: once an entry is acknowledged, the snapshot due
    // with it is on its storage, so a log waited on, closed and opened again (a restart, a test)
    // does not race its predecessor's last snapshot. The next round waits for this thread anyway.
    for snapshot in batch.snapshots {
      do throws(ActionLogError) {
        try snapshot()
      } catch {
        // The log is intact: recovery uses the previous snapshot and a longer tail.
        writeToStandardError("Unidirectional: a snapshot of the action log failed: \(error)\n")
      }
    }
    let ready = storage.withLock { storage -> [Waiter] in
      storage.durableThrough = batch.through
      storage.isHeaderDurable = true
      let ready = storage.waiters.filter { $0.through <= batch.through }
      storage.waiters.removeAll { $0.through <= batch.through }
      return ready
    }
    for waiter in ready { waiter.resume(nil) }
  }

  /// The sink could not reach its storage and kept nothing of `batch`: its lines go back in
  /// front of those appended since, for the next round, and the waiters they cover learn that
  /// nothing was acknowledged.
  private func retryLater(_ batch: CommitBatch, _ failure: ActionLogError) {
    let (failed, schedule) = storage.withLock { storage -> ([Waiter], Bool) in
      storage.pending = batch.lines + storage.pending
      storage.pendingSnapshots = batch.snapshots + storage.pendingSnapshots
      let failed = storage.waiters.filter { $0.through <= batch.through }
      storage.waiters.removeAll { $0.through <= batch.through }
      // Scheduled already if an action was appended during the round.
      defer { storage.isScheduled = true }
      return (failed, !storage.isScheduled)
    }
    for waiter in failed { waiter.resume(failure) }
    if schedule { committer.schedule(self) }
  }
}
