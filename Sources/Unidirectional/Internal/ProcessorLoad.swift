#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Whether this process kept the processors busy over a stretch of wall time, to tell an effect
/// that may be working, or waiting for a processor, from one that waits on something outside its
/// store (see `EffectActivity.waitUntilQuiet`).
///
/// A stretch is busy when the process used at least half a processor in it
/// (`CLOCK_PROCESS_CPUTIME_ID`): one of its threads computes, or its threads compete with each
/// other for the processors (tests running in parallel). Load from other processes is not
/// seen. A reading that fails counts as idle: the stretch then ends the wait as it did before
/// the reading existed.
enum ProcessorLoad {
  /// The readings at the start of a stretch.
  struct Sample {
    let wall: ContinuousClock.Instant
    let processTime: Duration?
  }

  /// Takes the readings that start a stretch.
  static func sample() -> Sample {
    Sample(wall: .now, processTime: processTime())
  }

  /// Whether the stretch since `start` was busy (see the type's description).
  static func wasBusy(since start: Sample) -> Bool {
    wasBusy(from: start, to: sample())
  }

  /// Whether the stretch between two samples was busy; without both readings of processor
  /// time, it counts as idle.
  static func wasBusy(from start: Sample, to end: Sample) -> Bool {
    guard let before = start.processTime, let after = end.processTime else { return false }
    return isBusy(processTimeUsed: after - before, over: start.wall.duration(to: end.wall))
  }

  /// Whether `used` processor time over `wall` time is at least half a processor.
  static func isBusy(processTimeUsed used: Duration, over wall: Duration) -> Bool {
    used >= wall / 2
  }

  /// The processor time used so far, summed over every thread of the process.
  static func processTime() -> Duration? {
    var time = timespec()
    guard clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time) == 0 else { return nil }
    return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
  }
}
