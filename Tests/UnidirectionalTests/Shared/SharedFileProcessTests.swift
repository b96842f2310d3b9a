import Dispatch
import Foundation
import Testing
import UnidirectionalTestSupport

@testable import Unidirectional

#if canImport(Glibc)
  import Glibc
#endif

/// A running `shared-file-counter` (Tests/SharedFileCounter): its lines as it prints them, its
/// standard error, and its end.
///
/// Every wait here ends by itself: the program stops after its N increments (or, watching, once
/// it sees its target, with a bound of its own), closing its output.
final class CounterProcess: @unchecked Sendable {
  // Safe: `lines`, `ended` and `errors` are guarded by `condition`; `process` and `input` are
  // used by the test's thread alone.
  let process = Process()
  private let input = Pipe()
  private let condition = NSCondition()
  private var lines: [String] = []
  private var ended = false
  private var errors = Data()
  private let readers = DispatchGroup()

  static let executable = Program.executable(named: "shared-file-counter")

  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  /// Starts `shared-file-counter` with `arguments`.
  init(_ arguments: [String]) throws {
    guard FileManager.default.isExecutableFile(atPath: Self.executable.path) else {
      throw Failure(description: "no \(Self.executable.path): build the package with its tests")
    }
    process.executableURL = Self.executable
    process.arguments = arguments
    let output = Pipe()
    let errorOutput = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = errorOutput
    try process.run()
    DispatchQueue.global().async(group: readers) { [self] in
      var pending = Data()
      while true {
        let data = output.fileHandleForReading.availableData
        pending.append(data)
        var complete: [String] = []
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
          complete.append(String(decoding: pending[..<newline], as: UTF8.self))
          pending.removeSubrange(...newline)
        }
        condition.lock()
        lines += complete
        if data.isEmpty { ended = true }
        condition.broadcast()
        condition.unlock()
        if data.isEmpty { return }
      }
    }
    DispatchQueue.global().async(group: readers) { [self] in
      let data = errorOutput.fileHandleForReading.readDataToEndOfFile()
      condition.withLock { errors = data }
    }
  }

  /// Blocks until the program prints a line `matching`, and returns it; `nil` if its output
  /// ends first.
  func waitForLine(_ matching: (String) -> Bool) -> String? {
    condition.lock()
    defer { condition.unlock() }
    var checked = 0
    while true {
      if let line = lines[checked...].first(where: matching) { return line }
      checked = lines.count
      if ended { return nil }
      condition.wait()
    }
  }

  /// Writes `line` to the program's standard input.
  func send(_ line: String) {
    input.fileHandleForWriting.write(Data((line + "\n").utf8))
  }

  /// Kills the program at once, as a crash or a power cut would stop it.
  func kill() {
    Glibc.kill(process.processIdentifier, SIGKILL)
  }

  /// Waits for the program's end: its status (the signal, if killed), every line it printed,
  /// and its standard error.
  func end() -> (status: Int32, lines: [String], errors: String) {
    process.waitUntilExit()
    readers.wait()
    return condition.withLock {
      (process.terminationStatus, lines, String(decoding: errors, as: UTF8.self))
    }
  }
}

/// The values of `lines` that start with `prefix` (`saved 12` gives 12).
func values(_ prefix: String, in lines: [String]) -> [Int] {
  lines.compactMap { $0.hasPrefix(prefix + " ") ? Int($0.dropFirst(prefix.count + 1)) : nil }
}

/// The file's value, if it holds a JSON integer; `nil` if there is no file.
func fileValue(_ path: String) throws -> Int? {
  guard let data = FileManager.default.contents(atPath: path) else { return nil }
  return try JSONDecoder().decode(Int.self, from: data)
}

/// Separate processes on one file, with the live storage on disk: what `FileKey` promises across
/// processes, shown by running the program twice at once.
@Suite(.serialized) struct SharedFileProcessTests {
  @Test func theCounterProgramIsBuilt() {
    #expect(
      FileManager.default.isExecutableFile(atPath: CounterProcess.executable.path),
      "build the package with its tests first: \(CounterProcess.executable.path)")
  }

  /// Two processes increment one file at once: the last completed save wins.
  ///
  /// Each process adds 1 under its own lock, saves its value in the background, and takes the
  /// other's saves as its watch hears of them. Nothing locks the file across processes, so
  /// increments are lost: those of the other process, whose save is overwritten, and a
  /// process's own, when it takes a save of the other's that was made before them. The file
  /// holds the value of whichever process renamed its save into place last, at most 2N, and it
  /// can end below N (runs on the development machine ended between about N/5 and 1.2N).
  @Test func twoProcessesIncrementingOneFileEndWithTheLastCompletedSave() async throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("count.json")
    let increments = 20_000
    let outcome = Locked<[(status: Int32, lines: [String], errors: String)]>([])
    let failure = Locked<(any Error)?>(nil)
    // wall-clock: a failure bound; both processes end within a second or two.
    let finished = await finishes(within: .seconds(120)) {
      do {
        let counters = try (0..<2).map { _ in
          try CounterProcess(["increment", path, "\(increments)", "--start-on-input"])
        }
        // Both have loaded the value (no file yet) before either starts incrementing.
        for counter in counters {
          _ = counter.waitForLine { $0.hasPrefix("loaded") }
        }
        for counter in counters { counter.send("go") }
        let ends = counters.map { $0.end() }
        outcome.withLock { $0 = ends }
      } catch {
        failure.withLock { $0 = error }
      }
    }
    #expect(finished)
    if let error = failure.withLock({ $0 }) { throw error }
    let ends = outcome.withLock { $0 }
    try #require(ends.count == 2)
    for end in ends {
      #expect(end.status == 0)
      #expect(end.errors == "")
      #expect(values("loaded", in: end.lines) == [0])
    }
    let value = try #require(try fileValue(path))
    #expect((1...(2 * increments)).contains(value))
    // The last save of one of the two is in the file: the one renamed into place last.
    let lastSaves = ends.compactMap { values("saved", in: $0.lines).last }
    #expect(lastSaves.count == 2)
    #expect(lastSaves.contains(value), "file \(value), last saves \(lastSaves)")
    print(
      "two processes, \(increments) increments each: the file holds \(value), "
        + "\(2 * increments - value) increments lost; last saves \(lastSaves)")
  }

  /// One process increments while another only watches: the watcher's store receives the
  /// changes through the file's watch (`inotify`) and reads the final value.
  @Test func aWatchingProcessSeesTheFinalValueOfAnIncrementingOne() async throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("count.json")
    let increments = 20_000
    let outcome = Locked<
      (watched: [String], counted: [String], statuses: [Int32], errors: String)?
    >(
      nil)
    let failure = Locked<(any Error)?>(nil)
    // wall-clock: a failure bound; the watcher sees the last save within milliseconds, and
    // stops by itself after 60 seconds without it.
    let finished = await finishes(within: .seconds(120)) {
      do {
        let watcher = try CounterProcess(["watch", path, "\(increments)"])
        // Watching before the first save: every value comes through the watch.
        _ = watcher.waitForLine { $0 == "watching" }
        let counter = try CounterProcess(["increment", path, "\(increments)"])
        let counted = counter.end()
        let watched = watcher.end()
        outcome.withLock {
          $0 = (
            watched.lines, counted.lines, [counted.status, watched.status],
            counted.errors + watched.errors
          )
        }
      } catch {
        failure.withLock { $0 = error }
      }
    }
    #expect(finished)
    if let error = failure.withLock({ $0 }) { throw error }
    let (watcher, counter, statuses, errors) = try #require(outcome.withLock { $0 })
    #expect(statuses == [0, 0])
    #expect(errors == "")
    #expect(values("done", in: counter) == [increments])
    #expect(try fileValue(path) == increments)
    // The observer's first run read the default (no file yet); each later run, a newer save.
    let seen = watcher.compactMap { Int($0) }
    #expect(seen.first == 0)
    #expect(seen.last == increments)
    #expect(zip(seen, seen.dropFirst()).allSatisfy { $0 < $1 }, "\(seen)")
    // Every value the watcher read was one the counter saved.
    #expect(Set(seen.dropFirst()).isSubset(of: values("saved", in: counter)))
  }

  /// What one kill left: the file and the temporaries beside it.
  struct KillOutcome: Sendable {
    var pid: Int32
    /// The increments after which it was killed, and whether it printed that count.
    var point: Int
    var reachedPoint: Bool
    var killedBySignal: Bool
    /// The value the program loaded, and the file's before it started.
    var loaded: Int?
    var before: Int?
    /// The file's value after the kill (`nil`: no file), or why it does not load.
    var after: Result<Int?, FileFailure>
    /// The names of the temporary files in the directory after the kill.
    var temporaries: [String]
  }

  struct FileFailure: Error, Sendable {
    var description: String
  }

  /// `kill -9` while saving, 20 times, at moments chosen from a seed: the file always loads.
  ///
  /// The counter increments without end (10 million times) and saves continually, each save a
  /// temporary file written, `fsync`ed and renamed; it is killed once it has made a number of
  /// increments drawn from the seed, in the middle of one of its saves or between two. Each run
  /// starts from what the last left. After each kill the file holds a JSON integer (or does not
  /// exist yet), no smaller than before the run: a killed save leaves the file as it was, or
  /// renamed into place whole. The kill may leave the killed save's temporary file
  /// (`.count.json.PID.N.tmp`), and only that one: the next run's load removes it.
  ///
  /// Replay a failure's kill moments with `SHARED_CRASH_SEED=<the printed seed>`.
  @Test func killingTheCounterWhileItSavesAlwaysLeavesAFileThatLoads() async throws {
    let seed =
      ProcessInfo.processInfo.environment["SHARED_CRASH_SEED"].flatMap { UInt64($0) }
      ?? UInt64.random(in: 0...UInt64.max)
    print("crash test seed: \(seed) (SHARED_CRASH_SEED=\(seed) replays its kill moments)")
    var random = SplitMix64(seed: seed)
    let points = (0..<20).map { _ in Int.random(in: 1...100, using: &random) * 1_000 }
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("count.json")
    let temporaries: @Sendable () -> [String] = {
      ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
        .filter { $0 != "count.json" }.sorted()
    }
    let outcomes = Locked<[KillOutcome]>([])
    let last = Locked<(loaded: [Int], status: Int32, errors: String)?>(nil)
    let failure = Locked<(any Error)?>(nil)
    // wall-clock: a failure bound; each run is killed within a second of its start.
    let finished = await finishes(within: .seconds(600)) {
      do {
        for point in points {
          let before = try? fileValue(path)
          let counter = try CounterProcess(
            ["increment", path, "10000000", "--progress", "1000"])
          let loaded = counter.waitForLine { $0.hasPrefix("loaded") }
          let reached = counter.waitForLine { $0 == "\(point)" }
          counter.kill()
          let end = counter.end()
          let after: Result<Int?, FileFailure>
          do {
            after = .success(try fileValue(path))
          } catch {
            after = .failure(FileFailure(description: "\(error)"))
          }
          outcomes.withLock {
            $0.append(
              KillOutcome(
                pid: counter.process.processIdentifier, point: point,
                reachedPoint: reached != nil,
                killedBySignal: counter.process.terminationReason == .uncaughtSignal
                  && end.status == SIGKILL,
                loaded: loaded.flatMap { Int($0.dropFirst("loaded ".count)) },
                before: before ?? nil, after: after, temporaries: temporaries()))
          }
        }
        // A last run of no increments loads the file: the last kill's temporary goes.
        let end = try CounterProcess(["increment", path, "0"]).end()
        last.withLock { $0 = (values("loaded", in: end.lines), end.status, end.errors) }
      } catch {
        failure.withLock { $0 = error }
      }
    }
    #expect(finished)
    if let error = failure.withLock({ $0 }) { throw error }
    let kills = outcomes.withLock { $0 }
    #expect(kills.count == 20)
    for (index, kill) in kills.enumerated() {
      let context = Comment(rawValue: "kill \(index + 1) of 20 (seed \(seed)): \(kill)")
      #expect(kill.reachedPoint, context)
      #expect(kill.killedBySignal, context)
      // The program loaded what the last run left.
      #expect(kill.loaded == (kill.before ?? 0), context)
      switch kill.after {
      case .success(let value):
        if let value {
          #expect(value >= (kill.before ?? 0), context)
        } else {
          // No file yet: only before the first save of the first run completed.
          #expect(kill.before == nil, context)
        }
      case .failure(let error):
        Issue.record("the file does not load: \(error.description); \(context.rawValue)")
      }
      // At most the killed save's temporary is left: the earlier ones were removed at load.
      #expect(kill.temporaries.count <= 1, context)
      for name in kill.temporaries {
        #expect(name.hasPrefix(".count.json.\(kill.pid).") && name.hasSuffix(".tmp"), context)
      }
    }
    let finalValue = try fileValue(path)
    let lastRun = try #require(last.withLock { $0 })
    #expect(lastRun.status == 0)
    #expect(lastRun.errors == "")
    #expect(lastRun.loaded == [finalValue ?? 0])
    #expect(temporaries() == [])
    let leftTemporary = kills.filter { !$0.temporaries.isEmpty }.count
    print(
      "crash test: 20 kills, \(leftTemporary) during a save's temporary file; "
        + "the file ends at \(finalValue.map(String.init) ?? "none")")
  }

  /// The first load of a file removes the temporaries of dead processes' saves, and only them.
  @Test func aLoadRemovesTheTemporariesOfSavesOfDeadProcessesOnly() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("count.json")
    try Data("7".utf8).write(to: URL(fileURLWithPath: path))
    let dead = try endedProcessID()
    let names = [
      ".count.json.\(dead).0.tmp",  // a dead process's save: removed
      ".count.json.\(dead).17.tmp",  // another of its saves: removed
      ".count.json.1.3.tmp",  // pid 1 always runs: kept
      ".count.json.\(getpid()).9.tmp",  // this process's, perhaps saving now: kept
      ".other.json.\(dead).0.tmp",  // another file's: kept
      ".count.json.\(dead).tmp",  // not a save's name: kept
      "count.json.bak",
    ]
    for name in names {
      try Data("1".utf8).write(to: URL(fileURLWithPath: directory.file(name)))
    }
    let count = inStorage(SharedStorage(filesOnDisk: true)) {
      Shared(.file(path), default: 0)
    }
    #expect(count.value == 7)
    let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    #expect(
      left
        == [
          ".count.json.1.3.tmp", ".count.json.\(dead).tmp", ".count.json.\(getpid()).9.tmp",
          ".other.json.\(dead).0.tmp", "count.json", "count.json.bak",
        ].sorted())
  }
}
