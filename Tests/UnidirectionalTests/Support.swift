import Synchronization
import Unidirectional

/// A thread-safe log that tests append to from observers and effects.
final class Log<Element: Sendable>: Sendable {
  private let storage = Mutex<[Element]>([])

  func append(_ element: Element) {
    storage.withLock { $0.append(element) }
  }

  var values: [Element] {
    storage.withLock { $0 }
  }

  func removeAll() {
    storage.withLock { $0.removeAll() }
  }
}

/// A one-shot gate an effect waits on until the test opens it.
final class Gate: Sendable {
  private let state = Mutex<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>(
    (false, [])
  )

  func wait() async {
    await withCheckedContinuation { continuation in
      let isOpen = state.withLock { state in
        if !state.isOpen { state.waiters.append(continuation) }
        return state.isOpen
      }
      if isOpen { continuation.resume() }
    }
  }

  func open() {
    let waiters = state.withLock { state in
      state.isOpen = true
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }
}

/// Suspends until cancelled.
func waitForCancellation() async {
  let stream = AsyncStream<Never> { _ in }
  for await _ in stream {}
}

/// A reference type used as a state value, compared by identity.
final class Model: Sendable {
  let name: String
  init(name: String) { self.name = name }
}

/// A value that is neither Equatable nor a class.
struct Opaque: Sendable {
  var value: Int
}
