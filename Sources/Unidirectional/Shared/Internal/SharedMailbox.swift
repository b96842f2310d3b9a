import Dispatch

/// The changes of a shared value on their way to one store's field: every change, sent in the
/// order it was posted, by one drain at a time, never inside the reducer that made it.
///
/// ## States
///
/// - *idle* (`isDraining` false, no change waiting): a posted change schedules a drain.
/// - *draining* (`isDraining` true): a drain is scheduled or running; a posted change waits in
///   `changes` for it. The drain takes every waiting change under the lock, sends them outside
///   it, oldest first, and goes back to *idle* only when it finds none left.
///
/// A burst of changes wakes one thread, where a job per change would wake one per change (a
/// futex call and a switch, microseconds each, when the receiving stores are idle).
final class SharedMailbox<Value: Sendable>: Sendable {
  private struct State {
    var changes: [SharedChange<Value>] = []
    var isDraining = false
  }

  private let state = Locked(State())
  /// Counts the drains until they return (see ``SharedStorage/delivered()``); `nil` for a value
  /// whose storage is gone.
  private let storage: SharedStorage?
  /// Sends one change to the store.
  private let send: @Sendable (SharedChange<Value>) -> Void

  /// A mailbox that sends each change with `send`, counting its drains in `storage`.
  init(storage: SharedStorage?, send: @escaping @Sendable (SharedChange<Value>) -> Void) {
    self.storage = storage
    self.send = send
  }

  /// Adds `change` after the waiting ones, and schedules a drain if none is scheduled.
  func post(_ change: SharedChange<Value>) {
    let schedule = state.withLock { state in
      state.changes.append(change)
      defer { state.isDraining = true }
      return !state.isDraining
    }
    guard schedule else { return }
    if let storage {
      storage.deliver { self.drain() }
    } else {
      DispatchQueue.global().async { self.drain() }
    }
  }

  /// Sends the waiting changes, oldest first, until none is left (the scheduled job).
  private func drain() {
    // Two arrays swapped back and forth: a steady stream of changes allocates nothing.
    var batch: [SharedChange<Value>] = []
    while true {
      state.withLock { state in
        swap(&batch, &state.changes)
        if batch.isEmpty { state.isDraining = false }
      }
      if batch.isEmpty { return }
      for change in batch { send(change) }
      batch.removeAll(keepingCapacity: true)
    }
  }
}
