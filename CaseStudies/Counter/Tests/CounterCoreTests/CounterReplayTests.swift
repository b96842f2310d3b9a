import CounterCore
import Foundation
import Testing
import Unidirectional
import UnidirectionalTestSupport

/// Recording a session to an action log and replaying it reaches the same state.
@Suite struct CounterReplayTests {
  @Test func aRecordedSessionReplaysToTheSameState() async throws {
    let path = temporaryFilePath("counter-in-process")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let recorder = try ActionLogRecorder<Counter.Action>(path: path, program: "counter")
    let live = withDependencies {
      $0.continuousClock = ImmediateClock()
    } operation: {
      Store(
        initialState: Counter.State(), reducer: Counter(),
        interceptors: [recorder.interceptor()])
    }
    for line in ["+", "+", "fact", "-", "-", "-", "-", "fact", "+"] {
      if case .send(let action) = CounterCommand(line) { await live.send(action).finish() }
    }

    let log = try ActionLog<Counter.Action>(path: path, program: "counter")
    #expect(log.error == nil)
    // The effects' actions (facts, returns toward zero) are in the log.
    #expect(log.entries.contains { if case .factResponse = $0.action { true } else { false } })
    #expect(log.entries.contains { $0.action == .decrementDelayFinished })
    let replayed = Store(initialState: Counter.State()) { Counter().ignoringEffects() }
    log.replay(into: replayed)
    #expect(replayed.state == live.state)
  }

  @Test func theProgramReplaysWhatItRecorded() throws {
    let path = temporaryFilePath("counter-program")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let session = "+\nfact\n-\n-\ntimer\nwait 1.5\ntimer\n+\n"
    let recorded = try Program.run(
      "counter", input: Data(session.utf8), arguments: ["--record", path],
      environment: CounterEnvironment.isolated)
    #expect(recorded.status == 0)
    let replayed = try Program.run(
      "counter", input: Data(), arguments: ["--replay", path],
      environment: CounterEnvironment.isolated)
    #expect(replayed.status == 0)
    #expect(replayed.standardError.isEmpty)
    #expect(replayed.standardOutput == recorded.standardOutput)
    #expect(replayed.standardOutput.hasSuffix("timer: off\ncount: 2\n"))
  }

  @Test func anEmptyFileIsSaidToBeEmpty() throws {
    let replayed = try Program.run(
      "counter", input: Data(), arguments: ["--replay", "/dev/null"],
      environment: CounterEnvironment.isolated)
    #expect(replayed.status == 1)
    #expect(
      replayed.standardError
        == "error: cannot replay: /dev/null: the file is empty; a recorded log starts with a "
        + "header line\n")
    #expect(replayed.standardOutput.isEmpty)
  }

  @Test func aTruncatedLogReplaysUpToItsLastGoodAction() throws {
    let path = temporaryFilePath("counter-truncated")
    defer { try? FileManager.default.removeItem(atPath: path) }
    _ = try Program.run(
      "counter", input: Data("+\n+\n+\n".utf8), arguments: ["--record", path],
      environment: CounterEnvironment.isolated)
    // Cut the file in the middle of its last line, as a crash while writing would.
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    try data.prefix(data.count - 10).write(to: URL(fileURLWithPath: path))

    let replayed = try Program.run(
      "counter", input: Data(), arguments: ["--replay", path],
      environment: CounterEnvironment.isolated)
    #expect(replayed.status == 1)
    #expect(replayed.standardOutput == "count: 0\ncount: 1\ncount: 2\n")
    // Line 1 is the header, line 2 the settings the session started with.
    #expect(replayed.standardError.contains("line 5: the log ends in the middle of an entry"))
  }

  @Test func recordTakesItsFileEitherWayAndNeverReplacesOneUnlessForced() throws {
    let path = temporaryFilePath("counter-force")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let first = try Program.run(
      "counter", input: Data("+\n".utf8), arguments: ["--record=\(path)"],
      environment: CounterEnvironment.isolated)
    #expect(first.status == 0)
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    let recorded = try Data(contentsOf: URL(fileURLWithPath: path))
    #expect(String(decoding: recorded, as: UTF8.self).contains(#""program":"counter""#))

    // An existing file is refused, and left as it was.
    let refused = try Program.run(
      "counter", input: Data("+\n+\n".utf8), arguments: ["--record", path],
      environment: CounterEnvironment.isolated)
    #expect(refused.status == 1)
    #expect(refused.standardOutput.isEmpty)
    #expect(
      refused.standardError
        == "error: cannot record: \(path) already exists; add --force to replace it, or choose "
        + "another file\n")
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == recorded)

    // With --force it is replaced.
    let forced = try Program.run(
      "counter", input: Data("+\n+\n".utf8), arguments: ["--record", path, "--force"],
      environment: CounterEnvironment.isolated)
    #expect(forced.status == 0)
    let replayed = try Program.run(
      "counter", input: Data(), arguments: ["--replay", path],
      environment: CounterEnvironment.isolated)
    #expect(replayed.standardOutput == "count: 0\ncount: 1\ncount: 2\n")
  }

  @Test func recordingToADirectoryIsRefusedWithOrWithoutForce() throws {
    let directory = temporaryFilePath("counter-record-directory")
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    for arguments in [["--record", directory], ["--record", directory, "--force"]] {
      let refused = try Program.run(
        "counter", input: Data("+\n".utf8), arguments: arguments,
        environment: CounterEnvironment.isolated)
      #expect(refused.status == 1)
      #expect(refused.standardOutput.isEmpty)
      #expect(
        refused.standardError
          == "error: cannot record: \(directory) is a directory; give the path of a file\n")
    }
  }

  @Test func anotherProgramsLogIsRefusedNamingBoth() throws {
    let path = temporaryFilePath("counter-other-program")
    defer { try? FileManager.default.removeItem(atPath: path) }
    _ = try Program.run(
      "tictactoe", input: Data("email a@b.c\n".utf8), arguments: ["--record", path])
    let replayed = try Program.run(
      "counter", input: Data(), arguments: ["--replay", path],
      environment: CounterEnvironment.isolated)
    #expect(replayed.status == 1)
    #expect(replayed.standardOutput.isEmpty)
    #expect(
      replayed.standardError
        == "error: cannot replay: \(path), line 1: the log was recorded by 'tictactoe', not by "
        + "'counter': replay it with 'tictactoe'\n")
  }

  @Test func headerlessLogsStillReplay() throws {
    // A log written before logs had headers: entries from line 1.
    let path = temporaryFilePath("counter-old")
    defer { try? FileManager.default.removeItem(atPath: path) }
    try """
    {"action":{"increment":{}},"sequence":1,"timestamp":"2026-01-01T00:00:00.000Z"}
    {"action":{"increment":{}},"sequence":2,"timestamp":"2026-01-01T00:00:01.000Z"}

    """.write(toFile: path, atomically: true, encoding: .utf8)
    let replayed = try Program.run(
      "counter", input: Data(), arguments: ["--replay", path],
      environment: CounterEnvironment.isolated)
    #expect(replayed.standardError.isEmpty)
    #expect(replayed.status == 0)
    #expect(replayed.standardOutput == "count: 0\ncount: 1\ncount: 2\n")
  }
}
