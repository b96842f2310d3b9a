import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The `SIGINT` handler of ``Terminal/exitOnInterrupt(status:)``.
///
/// A plain signal handler, not a `DispatchSource`: on Linux a dispatch signal source reads a
/// `signalfd`, which sees the signal only if every thread blocks it, and threads started before
/// the source (the concurrency pool's) do not. The handler does only what is async-signal-safe:
/// atomic loads, `write(2)`, `signal`, `pthread_sigmask`, `raise` and `_exit(2)` (output is never buffered, so
/// nothing is lost).
enum Interrupt {
  // Both are set (so initialized) before the handler is installed: the handler never runs a
  // lazy initializer.
  /// The descriptor a prompt is showing on now, whose line the handler ends; -1 for none.
  private static let promptDescriptor = Atomic<Int32>(-1)
  /// The exit status.
  private static let status = Atomic<Int32>(130)

  static func install(status: Int32) {
    promptDescriptor.store(-1, ordering: .sequentiallyConsistent)
    self.status.store(status, ordering: .sequentiallyConsistent)
    _ = signal(SIGINT, handleInterrupt)
  }

  /// Records that a prompt now shows on `descriptor` (the cursor is after it, not at the start
  /// of a line), or, for `nil`, that none does.
  static func promptShows(on descriptor: Int32?) {
    promptDescriptor.store(descriptor ?? -1, ordering: .sequentiallyConsistent)
  }

  fileprivate static func handle() -> Never {
    let descriptor = promptDescriptor.load(ordering: .sequentiallyConsistent)
    if descriptor >= 0 {
      var newline = UInt8(ascii: "\n")
      _ = write(descriptor, &newline, 1)
    }
    let status = status.load(ordering: .sequentiallyConsistent)
    if status == 128 + SIGINT {
      // Die by the signal, so that a shell running this in a script stops as well (bash goes
      // on after a child that merely exited 130). `signal` and `raise` are async-signal-safe.
      // `SIGINT` is blocked while its handler runs: unblock it, or `raise` would only leave it
      // pending until after `_exit`. (`pthread_sigmask` is async-signal-safe too.)
      _ = signal(SIGINT, SIG_DFL)
      var signals = sigset_t()
      sigemptyset(&signals)
      sigaddset(&signals, SIGINT)
      _ = pthread_sigmask(SIG_UNBLOCK, &signals, nil)
      _ = raise(SIGINT)
    }
    _exit(status)
  }
}

private func handleInterrupt(_: Int32) {
  Interrupt.handle()
}
