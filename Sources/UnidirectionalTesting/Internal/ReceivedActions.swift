import Unidirectional

/// The actions a test store's effects fed back, waiting for the test to receive them.
///
/// States: empty with no waiter; holding actions (no waiter); empty with one waiter (a
/// `receive` suspended until an action arrives or its timeout ends). A delivery to a waiter
/// resumes it directly; otherwise the action is queued in order.
final class ReceivedActions<Action: Sendable>: Sendable {
  private struct Waiter {
    let id: UInt64
    let continuation: CheckedContinuation<Action?, Never>
    let timeout: Task<Void, Never>
  }

  private struct Storage {
    var actions: [Action] = []
    var waiter: Waiter?
    var nextWaiterID: UInt64 = 0
  }

  private let storage = Locked(Storage())

  /// Queues an action fed back by an effect, or hands it to the waiting `receive`.
  func deliver(_ action: Action) {
    let waiter = storage.withLock { storage -> Waiter? in
      guard let waiter = storage.waiter else {
        storage.actions.append(action)
        return nil
      }
      storage.waiter = nil
      return waiter
    }
    if let waiter {
      waiter.timeout.cancel()
      waiter.continuation.resume(returning: action)
    }
  }

  /// The actions waiting to be received, oldest first.
  var pending: [Action] {
    storage.withLock { $0.actions }
  }

  /// Removes and returns every waiting action.
  func removeAll() -> [Action] {
    storage.withLock { storage in
      defer { storage.actions = [] }
      return storage.actions
    }
  }

  /// The oldest waiting action; or, if there is none and `mayStillArrive` is true, the next one
  /// to arrive within `timeout`. `nil` if none arrived.
  func next(timeout: Duration, mayStillArrive: Bool) async -> Action? {
    if let action = popFirst() { return action }
    guard mayStillArrive else { return nil }
    return await withCheckedContinuation { continuation in
      let ready = storage.withLock { storage -> Action? in
        if !storage.actions.isEmpty { return storage.actions.removeFirst() }
        let id = storage.nextWaiterID
        storage.nextWaiterID += 1
        // The deadline is a wall-clock limit for a failing test, not a synchronization: a
        // delivery resumes the waiter at once and cancels it.
        let timeout = Task { [self] in
          guard (try? await Task.sleep(for: timeout)) != nil else { return }
          expire(id)
        }
        storage.waiter = Waiter(id: id, continuation: continuation, timeout: timeout)
        return nil
      }
      if let ready { continuation.resume(returning: ready) }
    }
  }

  private func popFirst() -> Action? {
    storage.withLock { $0.actions.isEmpty ? nil : $0.actions.removeFirst() }
  }

  private func expire(_ id: UInt64) {
    let waiter = storage.withLock { storage -> Waiter? in
      guard let waiter = storage.waiter, waiter.id == id else { return nil }
      storage.waiter = nil
      return waiter
    }
    waiter?.continuation.resume(returning: nil)
  }
}
