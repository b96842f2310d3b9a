/// Lets tasks wait, with a wall-clock limit, until something they watch changes.
///
/// A waiter reads ``generation``, checks its condition, and, if it does not hold yet, waits
/// with ``wait(past:timeout:)``: a change signalled after the read wakes it (or keeps it from
/// sleeping at all), so no change between the check and the wait is lost.
///
/// States of a waiter: registered (in `waiters`, with a timer task) → resumed with `true` by
/// ``signal()``, or with `false` by its timer; the other party finds it gone and does nothing.
package final class ChangeSignal: Sendable {
  private struct Waiter {
    let continuation: CheckedContinuation<Bool, Never>
    var timer: Task<Void, Never>?
  }

  private struct State {
    var generation: UInt64 = 0
    var nextWaiterID: UInt64 = 0
    var waiters: [UInt64: Waiter] = [:]
  }

  private let state = Locked(State())

  package init() {}

  /// A number that changes on every ``signal()``.
  package var generation: UInt64 {
    state.withLock { $0.generation }
  }

  /// Records a change and wakes every waiter.
  package func signal() {
    let waiters = state.withLock { state in
      state.generation &+= 1
      defer { state.waiters = [:] }
      return state.waiters.values
    }
    for waiter in waiters {
      waiter.timer?.cancel()
      waiter.continuation.resume(returning: true)
    }
  }

  /// Waits until the generation is no longer `seen`, or until `timeout` has passed.
  ///
  /// - Returns: Whether a change was signalled.
  package func wait(past seen: UInt64, timeout: Duration) async -> Bool {
    await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
      let id = state.withLock { state -> UInt64? in
        guard state.generation == seen else { return nil }
        let id = state.nextWaiterID
        state.nextWaiterID += 1
        state.waiters[id] = Waiter(continuation: continuation)
        return id
      }
      guard let id else { return continuation.resume(returning: true) }
      // A wall-clock limit, not a synchronization: a signal resumes the waiter first and
      // cancels this timer.
      let timer = Task { [self] in
        guard (try? await Task.sleep(for: timeout)) != nil else { return }
        let expired = state.withLock { $0.waiters.removeValue(forKey: id) }
        expired?.continuation.resume(returning: false)
      }
      let isGone = state.withLock { state -> Bool in
        guard state.waiters[id] != nil else { return true }
        state.waiters[id]?.timer = timer
        return false
      }
      if isGone { timer.cancel() }
    }
  }
}
