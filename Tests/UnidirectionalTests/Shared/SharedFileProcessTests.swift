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
}
