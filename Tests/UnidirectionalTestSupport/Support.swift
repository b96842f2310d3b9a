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

/// The id of a process that has ended, so names no process now: for tests of what is left by
/// processes that are gone (the system may give the id to a new process later, rarely soon).
///
/// - Throws: If `/bin/true` cannot run, or its id names a process again already.
public func endedProcessID() throws -> pid_t {
  struct StillRunning: Error {}
  let ended = Process()
  ended.executableURL = URL(fileURLWithPath: "/bin/true")
  try ended.run()
  ended.waitUntilExit()
  let id = ended.processIdentifier
  guard kill(id, 0) != 0, errno == ESRCH else { throw StillRunning() }
  return id
}

/// Runs `body` on a thread of its own and reports whether it finished within `timeout`: a
/// deadlocked body leaves its thread behind, but the test fails instead of hanging.
///
/// The caller waits without holding a thread of the concurrency pool: a test that blocked one
/// for the minutes a stress test runs would leave the other tests' tasks (and their time
/// limits) one thread on a two-core machine.
// wall-clock: the limit of a wait that returns as soon as what it waits for happens.
public func finishes(within timeout: Duration, _ body: @escaping @Sendable () -> Void) async
  -> Bool
{
  let done = DispatchGroup()
  done.enter()
  Thread {
    body()
    done.leave()
  }.start()
  return await finishes(done, within: timeout)
}

/// Waits until every thread that entered `group` has left it, or until `timeout` has passed,
/// without holding a thread of the concurrency pool; returns whether the group emptied.
// wall-clock: a failure bound; a passing run is signalled long before.
public func finishes(_ group: DispatchGroup, within timeout: Duration) async -> Bool {
  let waiting = Locked<CheckedContinuation<Bool, Never>?>(nil)
  // Whichever comes first resumes the wait; the other finds no continuation left.
  let resume: @Sendable (Bool) -> Void = { finished in
    let continuation = waiting.withLock { continuation in
      defer { continuation = nil }
      return continuation
    }
    continuation?.resume(returning: finished)
  }
  return await withCheckedContinuation { continuation in
    waiting.withLock { $0 = continuation }
    group.notify(queue: .global()) { resume(true) }
    let seconds = Double(timeout.components.seconds)
    DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { resume(false) }
  }
}
