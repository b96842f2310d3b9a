import Foundation
import Testing
import Unidirectional
import UnidirectionalTestSupport

/// The header line: written by the recorder, checked by the reader.
@Suite struct ActionLogHeaderTests {
  enum Action: Codable, Equatable, Sendable {
    case add(Int)
  }
  enum OtherAction: Codable, Equatable, Sendable {
    case add(Int)
  }

  static let feature = Reduce<Int, Action> { state, action in
    switch action {
    case .add(let amount):
      state += amount
      return .none
    }
  }

  /// Records `.add(1)`, `.add(2)` into a new file and returns its path.
  func record(program: String = "alpha", schemaVersion: Int = 1) throws -> String {
    let path = temporaryFilePath("action-log-header")
    let recorder = try ActionLogRecorder<Action>(
      path: path, program: program, schemaVersion: schemaVersion)
    recorder.record(.add(1))
    recorder.record(.add(2))
    #expect(recorder.failure == nil)
    return path
  }

  @Test func theFirstLineIsTheHeader() throws {
    let path = try record(schemaVersion: 4)
    defer { try? FileManager.default.removeItem(atPath: path) }
    let text = try String(contentsOfFile: path, encoding: .utf8)
    let first = try #require(text.split(separator: "\n").first)
    #expect(
      first == """
        {"actionLog":1,"actionType":"UnidirectionalTests.ActionLogHeaderTests.Action",\
        "program":"alpha","schemaVersion":4}
        """)
    #expect(String(reflecting: Action.self) == "UnidirectionalTests.ActionLogHeaderTests.Action")

    let log = try ActionLog<Action>(path: path, program: "alpha", schemaVersion: 4)
    #expect(
      log.header
        == ActionLogHeader(
          program: "alpha", actionType: String(reflecting: Action.self), schemaVersion: 4))
    #expect(log.entries.map(\.action) == [.add(1), .add(2)])
    #expect(log.error == nil)
  }

  @Test func anotherProgramsLogIsRefusedNamingBothPrograms() throws {
    let path = try record(program: "counter")
    defer { try? FileManager.default.removeItem(atPath: path) }
    #expect(
      throws: ActionLogError(
        path: path, line: 1, reason: .otherProgram(recorded: "counter", reading: "tictactoe"))
    ) {
      try ActionLog<Action>(path: path, program: "tictactoe")
    }
    let error = try #require(throws: ActionLogError.self) {
      try ActionLog<Action>(path: path, program: "tictactoe")
    }
    #expect(
      error.description == """
        \(path), line 1: the log was recorded by 'counter', not by 'tictactoe': \
        replay it with 'counter'
        """)
  }

  @Test func anotherActionTypeIsRefusedNamingBothTypes() throws {
    let path = try record()
    defer { try? FileManager.default.removeItem(atPath: path) }
    let error = try #require(throws: ActionLogError.self) {
      try ActionLog<OtherAction>(path: path, program: "alpha")
    }
    #expect(
      error.reason
        == .otherActionType(
          recorded: "UnidirectionalTests.ActionLogHeaderTests.Action",
          reading: "UnidirectionalTests.ActionLogHeaderTests.OtherAction"))
    #expect(error.description.contains("ActionLogHeaderTests.Action, not "))
  }

  @Test func aNewerSchemaIsRefusedAndAnOlderOneRead() throws {
    let path = try record(schemaVersion: 3)
    defer { try? FileManager.default.removeItem(atPath: path) }
    let error = try #require(throws: ActionLogError.self) {
      try ActionLog<Action>(path: path, program: "alpha", schemaVersion: 2)
    }
    #expect(error.reason == .newerSchema(recorded: 3, supported: 2))
    #expect(
      error.description == """
        \(path), line 1: the log was recorded with schema version 3 of its actions; \
        this program reads versions up to 2
        """)
    #expect(
      try ActionLog<Action>(path: path, program: "alpha", schemaVersion: 3).entries.count == 2)
    #expect(
      try ActionLog<Action>(path: path, program: "alpha", schemaVersion: 5).entries.count == 2)
  }

  /// A format version this library does not know is refused, naming the file, the version
  /// found and the versions read: its lines would be misread.
  @Test func anUnknownLogFormatIsRefused() throws {
    let text = """
      {"actionLog":99,"actionType":"UnidirectionalTests.ActionLogHeaderTests.Action",\
      "program":"alpha","schemaVersion":1}

      """
    let error = try #require(throws: ActionLogError.self) {
      try ActionLog<Action>(data: Data(text.utf8), path: "log.jsonl", program: "alpha")
    }
    #expect(
      error
        == ActionLogError(
          path: "log.jsonl", line: 1, reason: .unsupportedFormat(found: 99, supported: [1, 2])))
    #expect(
      error.description
        == "log.jsonl, line 1: the log's format version is 99, which this library does not "
        + "read (it reads format versions 1, 2); read it with the library that wrote it")
  }

  @Test func aMalformedHeaderIsAnInvalidFirstLine() throws {
    let text = #"{"actionLog":1,"program":"alpha"}"# + "\n"
    let error = try #require(throws: ActionLogError.self) {
      try ActionLog<Action>(data: Data(text.utf8), path: "log", program: "alpha")
    }
    #expect(error.line == 1)
    #expect(error.description.hasPrefix("log, line 1: not a valid entry: not a valid header: "))
  }

  /// Logs from before headers start with their first entry: they still replay, unchecked.
  @Test func aLogWithoutHeaderStillReplays() throws {
    let text = """
      {"action":{"add":{"_0":2}},"sequence":1,"timestamp":"2026-11-21T14:03:07.412Z"}
      {"action":{"add":{"_0":5}},"sequence":2,"timestamp":"2026-11-21T14:03:08.000Z"}
      {"action":{"add":{"_0":
      """
    let log = try ActionLog<Action>(data: Data(text.utf8), path: "old.jsonl", program: "any")
    #expect(log.header == nil)
    #expect(log.entries.map(\.action) == [.add(2), .add(5)])
    // Without a header, entries start on line 1.
    #expect(log.error?.line == 3)
    guard case .truncated = log.error?.reason else {
      Issue.record("expected a truncated last line, got \(String(describing: log.error))")
      return
    }
    let store = Store(initialState: 0) { Self.feature.ignoringEffects() }
    log.replay(into: store)
    #expect(store.state == 7)
  }

  @Test func aLogWithoutHeaderOfAnotherProgramSaysSo() throws {
    // An old log of another program: its first entry is not one of these actions.
    let text = """
      {"action":{"increment":{}},"sequence":1,"timestamp":"2026-11-21T14:03:07.412Z"}

      """
    let log = try ActionLog<Action>(data: Data(text.utf8), path: "old.jsonl", program: "any")
    #expect(log.entries.isEmpty)
    #expect(log.error?.line == 1)
    let message = log.error.map(String.init(describing:)) ?? ""
    #expect(message.contains("no header line"), "\(message)")
    #expect(message.contains("probably recorded by another program"), "\(message)")
    #expect(message.contains("ActionLogHeaderTests.Action"), "\(message)")
  }

  @Test func aLogWithOnlyItsHeaderReplaysNothing() throws {
    let path = temporaryFilePath("action-log-header")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let recorder = try ActionLogRecorder<Action>(path: path, program: "alpha")
    #expect(recorder.header.program == "alpha")
    let log = try ActionLog<Action>(path: path, program: "alpha")
    #expect(log.header != nil)
    #expect(log.entries.isEmpty)
    #expect(log.error == nil)
  }

  /// Without names, recorder and reader both use the executable's name.
  @Test func theDefaultProgramIsTheExecutablesName() throws {
    let path = temporaryFilePath("action-log-header")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let recorder = try ActionLogRecorder<Action>(path: path)
    recorder.record(.add(1))
    #expect(recorder.header.program == ProcessInfo.processInfo.processName)
    #expect(try ActionLog<Action>(path: path).entries.count == 1)
  }
}
