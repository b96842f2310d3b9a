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
/// atomic loads, `write(2)` and `_exit(2)` (output is never buffered, so nothing is lost).
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
    _exit(status.load(ordering: .sequentiallyConsistent))
  }
}

private func handleInterrupt(_: Int32) {
  Interrupt.handle()
}
