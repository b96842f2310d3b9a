#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The processor time the threads of this process have used, to tell a busy process from one
/// whose threads all wait (see `EffectActivity.waitUntilQuiet`).
enum ProcessorTime {
  /// The processor time used so far, summed over every thread of the process.
  static var used: Duration {
    var time = timespec()
    guard clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time) == 0 else { return .zero }
    return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
  }
}
