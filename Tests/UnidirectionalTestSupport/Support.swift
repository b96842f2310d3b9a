import Foundation
import Unidirectional

// Helpers shared by the package's test targets. `Locked` (the package's pthread lock) is used
// instead of `Mutex` because ThreadSanitizer cannot see `Mutex`'s ordering on Linux.

/// A thread-safe log that tests append to from observers and effects.
public final class Log<Element: Sendable>: Sendable {
  private let storage = Locked<[Element]>([])

  /// Creates an empty log.
  public init() {}

  /// Appends `element`.
  public func append(_ element: Element) {
    storage.withLock { $0.append(element) }
  }

  /// Everything appended so far, in order.
  public var values: [Element] {
    storage.withLock { $0 }
  }

  /// Empties the log.
  public func removeAll() {
    storage.withLock { $0.removeAll() }
  }
}

/// A one-shot gate an effect waits on until the test opens it.
public final class Gate: Sendable {
  private let state = Locked<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>(
    (false, [])
  )

  /// Creates a closed gate.
  public init() {}

  /// Suspends until the gate is open.
  public func wait() async {
    await withCheckedContinuation { continuation in
      let isOpen = state.withLock { state in
        if !state.isOpen { state.waiters.append(continuation) }
        return state.isOpen
      }
      if isOpen { continuation.resume() }
    }
  }

  /// How many tasks are waiting for the gate to open.
  public var waiterCount: Int {
    state.withLock { $0.waiters.count }
  }

  /// Opens the gate and resumes everyone waiting.
  public func open() {
    let waiters = state.withLock { state in
      state.isOpen = true
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }
}

/// Suspends until cancelled.
public func waitForCancellation() async {
  let stream = AsyncStream<Never> { _ in }
  for await _ in stream {}
}

/// A path in the temporary directory that no other test uses, for a file a test writes.
///
/// - Parameter name: A readable part of the file name.
public func temporaryFilePath(_ name: String) -> String {
  FileManager.default.temporaryDirectory.path
    + "/unidirectional-\(name)-\(ProcessInfo.processInfo.processIdentifier)-"
    + "\(UInt64.random(in: 0...UInt64.max)).jsonl"
}

/// Runs `body` on a thread of its own and reports whether it finished within `timeout`: a
/// deadlocked body leaves its thread behind, but the test fails instead of hanging.
// wall-clock: the limit of a wait that returns as soon as what it waits for happens.
public func finishes(within timeout: Duration, _ body: @escaping @Sendable () -> Void) -> Bool {
  let done = DispatchSemaphore(value: 0)
  Thread {
    body()
    done.signal()
  }.start()
  let seconds = Double(timeout.components.seconds)
  // wall-clock: a failure bound; a passing run is signalled long before.
  return done.wait(timeout: .now() + seconds) == .success
}
