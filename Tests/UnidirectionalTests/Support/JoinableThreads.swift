import Dispatch

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

// POSIX threads for tests of what a store keeps per thread: they need threads whose exit they
// wait for (`pthread_join`), and their ids, which Foundation's `Thread` does not give.

/// Starts a joinable thread running `body`; wait for it with `joinThread`.
func startJoinableThread(_ body: @escaping @Sendable () -> Void) -> pthread_t {
  final class Context: Sendable {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
  }
  var thread = pthread_t()
  let status = pthread_create(
    &thread, nil,
    { raw in
      Unmanaged<Context>.fromOpaque(raw!).takeRetainedValue().body()
      return nil
    }, Unmanaged.passRetained(Context(body)).toOpaque())
  precondition(status == 0, "pthread_create failed (\(status))")
  return thread
}

/// Waits for `thread` to exit.
func joinThread(_ thread: pthread_t) {
  pthread_join(thread, nil)
}

/// The current thread's id (`pthread_self`), as a number. A thread made after another exited
/// often gets its id.
func currentThreadID() -> UInt {
  #if canImport(Darwin)
    UInt(bitPattern: pthread_self())
  #else
    UInt(pthread_self())
  #endif
}

/// Runs `body` on a new thread, waits for it to exit, and returns the thread's id.
func runOnJoinedThread(_ body: @escaping @Sendable () -> Void) -> UInt {
  let id = EdgeBox<UInt>()
  joinThread(
    startJoinableThread {
      id.value = currentThreadID()
      body()
    })
  return id.value!
}

/// Runs `step(0)`, `step(1)`, … `step(2 * rounds - 1)` on two live threads that take turns
/// (even steps on one, odd on the other), one step at a time, and waits for both to exit.
func alternateOnTwoThreads(rounds: Int, _ step: @escaping @Sendable (Int) -> Void) {
  let turns = [DispatchSemaphore(value: 1), DispatchSemaphore(value: 0)]
  let threads = (0..<2).map { side in
    startJoinableThread {
      for round in 0..<rounds {
        turns[side].wait()
        step(round * 2 + side)
        turns[1 - side].signal()
      }
    }
  }
  threads.forEach(joinThread)
}
