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
/// atomic loads, `write(2)`, `tcsetattr`, `signal`, `pthread_sigmask`, `raise` and `_exit(2)`
/// (output is never buffered, so nothing is lost).
enum Interrupt {
  // Both are set (so initialized) before the handler is installed: the handler never runs a
  // lazy initializer.
  /// The descriptor a prompt is showing on now, whose line the handler ends; -1 for none.
  private static let promptDescriptor = Atomic<Int32>(-1)
  /// The exit status.
  private static let status = Atomic<Int32>(130)
  /// The terminal whose echo is off now (a secret is being typed), whose settings the handler
  /// puts back from `savedSettings`; -1 for none.
  private static let quietDescriptor = Atomic<Int32>(-1)
  /// The settings of `quietDescriptor` before its echo was turned off. Written before
  /// `quietDescriptor` is set, and read by the handler only after it finds it set: the atomic
  /// orders the two. `nonisolated(unsafe)`: that ordering is what makes it safe; one secret is
  /// read at a time (the REPL's loop).
  nonisolated(unsafe) private static let savedSettings = UnsafeMutablePointer<termios>.allocate(
    capacity: 1)

  static func install(status: Int32) {
    promptDescriptor.store(-1, ordering: .sequentiallyConsistent)
    quietDescriptor.store(-1, ordering: .sequentiallyConsistent)
    _ = savedSettings
    self.status.store(status, ordering: .sequentiallyConsistent)
    _ = signal(SIGINT, handleInterrupt)
  }

  /// Records that the echo of the terminal `descriptor` is off, and its `settings` from before,
  /// or, for `nil`, that no echo is off.
  static func echoIsOff(on descriptor: Int32?, settings: termios) {
    if let descriptor {
      savedSettings.pointee = settings
      quietDescriptor.store(descriptor, ordering: .sequentiallyConsistent)
    } else {
      quietDescriptor.store(-1, ordering: .sequentiallyConsistent)
    }
  }

  /// Records that a prompt now shows on `descriptor` (the cursor is after it, not at the start
  /// of a line), or, for `nil`, that none does.
  static func promptShows(on descriptor: Int32?) {
    promptDescriptor.store(descriptor ?? -1, ordering: .sequentiallyConsistent)
  }

  fileprivate static func handle() -> Never {
    let quiet = quietDescriptor.load(ordering: .sequentiallyConsistent)
    if quiet >= 0 {
      // The shell would be left without echo.
      _ = tcsetattr(quiet, TCSANOW, savedSettings)
    }
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
