import Foundation

/// Holds the first round of a database in flight (before its transaction begins) until the
/// test opens the gate, and records the logs staged in every round it sees.
///
/// Install ``hook(_:)`` as the database's `beforeRound`.
final class RoundGate: @unchecked Sendable {
  // Safe: every property is read and written with `condition` locked.

  private let condition = NSCondition()
  private var isArmed = true
  private var hasArrived = false
  private var isOpen = false
  private var staged: [[String]] = []

  /// The logs staged in each round seen so far, in order.
  var rounds: [[String]] {
    condition.lock()
    defer { condition.unlock() }
    return staged
  }

  /// The database's `beforeRound`: the first round waits here until ``open()``.
  func hook(_ logs: [String]) {
    condition.lock()
    defer { condition.unlock() }
    staged.append(logs)
    guard isArmed else { return }
    isArmed = false
    hasArrived = true
    condition.broadcast()
    // wall-clock: a failure bound; a passing run opens the gate long before.
    let deadline = Date().addingTimeInterval(120)
    while !isOpen {
      // wall-clock: the same failure bound.
      guard condition.wait(until: deadline) else { return }
    }
  }

  /// Waits until a round is held at the gate; `false` if none came within the failure bound.
  /// On a thread of Dispatch's, not one of the concurrency pool.
  func waitForARound() async -> Bool {
    await withCheckedContinuation { continuation in
      DispatchQueue.global().async {
        self.condition.lock()
        defer { self.condition.unlock() }
        // wall-clock: a failure bound; a passing run's round arrives at once.
        let deadline = Date().addingTimeInterval(120)
        while !self.hasArrived {
          // wall-clock: the same failure bound.
          guard self.condition.wait(until: deadline) else { break }
        }
        continuation.resume(returning: self.hasArrived)
      }
    }
  }

  /// Lets the held round go on.
  func open() {
    condition.lock()
    isOpen = true
    condition.broadcast()
    condition.unlock()
  }
}
