#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Whether the processors were busy over a stretch of wall time, to tell an effect that may be
/// working, or waiting for a processor, from one that waits on something outside its store (see
/// `EffectActivity.waitUntilQuiet`).
///
/// Two readings, either of which makes a stretch busy:
/// - this process used at least half a processor (`CLOCK_PROCESS_CPUTIME_ID`): one of its
///   threads computes, or its threads compete with each other;
/// - on Linux, the machine's processors were nearly all busy (`/proc/stat`, other processes and
///   time stolen by the hypervisor included): a thread of this process that is ready to run may
///   be waiting for one.
///
/// A reading that fails counts as idle: the stretch then ends the wait as it did before either
/// reading existed.
enum ProcessorLoad {
  /// The readings at the start of a stretch.
  struct Sample {
    let wall: ContinuousClock.Instant
    let processTime: Duration?
    let machine: MachineTicks?
  }

  /// Time the machine's processors spent busy, and in all, in clock ticks summed over every
  /// processor.
  struct MachineTicks: Equatable, Sendable {
    var busy: UInt64
    var total: UInt64

    /// Parses the first line of `/proc/stat` (`cpu  user nice system idle iowait irq softirq
    /// steal ...`): idle and iowait are idle time, the rest of the first eight fields busy time.
    /// Guest time is already part of user time, so it is left out.
    init?(procStatLine line: Substring) {
      let fields = line.split(separator: " ")
      guard fields.first == "cpu", fields.count >= 5 else { return nil }
      var values: [UInt64] = []
      for field in fields.dropFirst().prefix(8) {
        guard let value = UInt64(field) else { return nil }
        values.append(value)
      }
      let idle = values[3] + (values.count > 4 ? values[4] : 0)
      total = values.reduce(0, +)
      busy = total - idle
    }

    init(busy: UInt64, total: UInt64) {
      self.busy = busy
      self.total = total
    }
  }

  /// Takes the readings that start a stretch.
  ///
  /// The machine's reading may be up to `machineReadingReuse` old: a wait starts a stretch on
  /// every change of its store's effects, and reading `/proc/stat` costs about 10 µs, which
  /// made the test store's parity suite a fifth slower. Its ticks are 10 ms long anyway.
  static func sample() -> Sample {
    let now = ContinuousClock.now
    let machine = lastMachineReading.withLock { last -> MachineTicks? in
      if let last, last.at.duration(to: now) < machineReadingReuse { return last.ticks }
      return nil
    }
    return Sample(
      wall: now, processTime: processTime(), machine: machine ?? freshMachineTicks(at: now))
  }

  /// Whether the stretch since `start` was busy (see the type's description).
  static func wasBusy(since start: Sample) -> Bool {
    let now = ContinuousClock.now
    if let before = start.processTime, let used = processTime(),
      used - before >= start.wall.duration(to: now) / 2
    {
      return true
    }
    if let before = start.machine, let after = freshMachineTicks(at: now) {
      return isNearlyAllBusy(from: before, to: after)
    }
    return false
  }

  /// How old a machine reading `sample()` takes may be.
  static let machineReadingReuse = Duration.milliseconds(5)

  /// The newest machine reading, and when it was taken.
  private static let lastMachineReading = Locked<MachineReading?>(nil)
  private typealias MachineReading = (at: ContinuousClock.Instant, ticks: MachineTicks)

  /// Reads the machine's ticks, and keeps the reading for `sample()`.
  private static func freshMachineTicks(at now: ContinuousClock.Instant) -> MachineTicks? {
    guard let ticks = machineTicks() else { return nil }
    lastMachineReading.withLock { $0 = (now, ticks) }
    return ticks
  }

  /// Whether at least nine in ten of the ticks between two readings were busy.
  static func isNearlyAllBusy(from before: MachineTicks, to after: MachineTicks) -> Bool {
    guard after.total > before.total, after.busy >= before.busy else { return false }
    return (after.busy - before.busy) * 10 >= (after.total - before.total) * 9
  }

  /// The processor time used so far, summed over every thread of the process.
  private static func processTime() -> Duration? {
    var time = timespec()
    guard clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time) == 0 else { return nil }
    return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
  }

  /// The machine's ticks so far, from `/proc/stat` (Linux only).
  static func machineTicks() -> MachineTicks? {
    #if os(Linux)
      let descriptor = open("/proc/stat", O_RDONLY | O_CLOEXEC)
      guard descriptor >= 0 else { return nil }
      defer { close(descriptor) }
      // The first line, the sum over every processor, fits easily.
      var buffer = [UInt8](repeating: 0, count: 256)
      let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      guard count > 0 else { return nil }
      let text = String(decoding: buffer[..<count], as: UTF8.self)
      guard let line = text.split(separator: "\n", maxSplits: 1).first else { return nil }
      return MachineTicks(procStatLine: line)
    #else
      return nil
    #endif
  }
}
