import Foundation
import Testing
import Unidirectional
import UnidirectionalTestSupport

@Suite struct ActionLogTests {
  struct State: Equatable, Sendable {
    var count = 0
    var history: [String] = []
  }
  enum Action: Codable, Equatable, Sendable {
    case add(Int)
    case load(name: String)
    case loaded(String)
  }

  /// Every `load` runs an effect that feeds two actions back.
  static let feature = Reduce<State, Action> { state, action in
    switch action {
    case .add(let amount):
      state.count += amount
      return .none
    case .load(let name):
      return .run { send in
        await send(.loaded(name + " 1"))
        await send(.loaded(name + " 2"))
      }
    case .loaded(let value):
      state.history.append(value)
      return .none
    }
  }

  /// Records a session with effects into `path` and returns the live store's final state.
  func recordSession(at path: String) async throws -> State {
    let recorder = try ActionLogRecorder<Action>(path: path)
    let store = Store(
      initialState: State(), reducer: Self.feature, interceptors: [recorder.interceptor()])
    store.send(.add(2))
    await store.send(.load(name: "a")).finish()
    store.send(.add(-5))
    await store.send(.load(name: "b")).finish()
    #expect(recorder.recordedCount == 8)
    #expect(recorder.failure == nil)
    return store.state
  }

  func lines(of path: String) throws -> [String] {
    try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
  }

  @Test func aReplayReachesTheRecordedState() async throws {
    let path = temporaryFilePath("action-log")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let recorded = try await recordSession(at: path)

    let log = try ActionLog<Action>(path: path)
    #expect(log.error == nil)
    #expect(log.entries.map(\.sequence) == Array(1...8))
    #expect(
      log.entries.map(\.action) == [
        .add(2), .load(name: "a"), .loaded("a 1"), .loaded("a 2"),
        .add(-5), .load(name: "b"), .loaded("b 1"), .loaded("b 2"),
      ])
    #expect(zip(log.entries, log.entries.dropFirst()).allSatisfy { $0.timestamp <= $1.timestamp })

    // The fed-back actions come from the log: with effects ignored they arrive once.
    let replay = Store(initialState: State()) { Self.feature.ignoringEffects() }
    log.replay(into: replay)
    #expect(replay.state == recorded)
    #expect(replay.history == ["a 1", "a 2", "b 1", "b 2"])
  }

  @Test func eachLineIsOneJSONEntry() async throws {
    let path = temporaryFilePath("action-log")
    defer { try? FileManager.default.removeItem(atPath: path) }
    _ = try await recordSession(at: path)
    let lines = try lines(of: path)
    #expect(lines.count == 9)  // The header, then 8 entries.
    let first = lines[1]
    #expect(first.hasPrefix(#"{"action":{"add":{"_0":2}},"sequence":1,"timestamp":"20"#))
    #expect(first.hasSuffix(#"Z"}"#))
  }

  /// Writes a recorded session with entry `index` (from 0) replaced or dropped, and reads it
  /// back. The header is line 1, so entry `index` is on line `index + 2`.
  func readSession(
    replacingLine index: Int? = nil, with replacement: String = "",
    droppingLine dropped: Int? = nil, endingWithNewline: Bool = true
  ) async throws -> (ActionLog<Action>, State) {
    let path = temporaryFilePath("action-log")
    defer { try? FileManager.default.removeItem(atPath: path) }
    _ = try await recordSession(at: path)
    var lines = try lines(of: path)
    if let index { lines[index + 1] = replacement }
    if let dropped { lines.remove(at: dropped + 1) }
    let text = lines.joined(separator: "\n") + (endingWithNewline ? "\n" : "")
    let log = try ActionLog<Action>(data: Data(text.utf8), path: "session.jsonl")
    let replay = Store(initialState: State()) { Self.feature.ignoringEffects() }
    log.replay(into: replay)
    return (log, replay.state)
  }

  @Test func aCorruptedLineStopsTheReplayAtTheLastGoodAction() async throws {
    let (log, state) = try await readSession(replacingLine: 4, with: #"{"action":{"add":"#)
    let error = try #require(log.error)
    #expect(error.line == 6)
    guard case .invalidEntry = error.reason else {
      Issue.record("expected an invalid entry, got \(error.reason)")
      return
    }
    #expect(error.description.hasPrefix("session.jsonl, line 6: not a valid entry: "))
    #expect(log.entries.count == 4)
    #expect(state == State(count: 2, history: ["a 1", "a 2"]))
  }

  @Test func anActionThatDoesNotDecodeNamesItsLine() async throws {
    let (log, _) = try await readSession(
      replacingLine: 1,
      with: #"{"action":{"explode":{}},"sequence":2,"timestamp":"2026-11-21T14:00:00.000Z"}"#)
    #expect(log.error?.line == 3)
    #expect(log.entries.count == 1)
  }

  @Test func aTruncatedLastLineIsReportedAsTruncated() async throws {
    let (log, state) = try await readSession(
      replacingLine: 7, with: #"{"action":{"loaded":{"_0":"b"#, endingWithNewline: false)
    #expect(log.error?.line == 9)
    #expect(log.error?.reason == .truncated("The given data was not valid JSON."))
    #expect(log.error?.description.contains("truncated") == true)
    #expect(log.entries.count == 7)
    #expect(state.history == ["a 1", "a 2", "b 1"])
  }

  @Test func aMissingLineIsASequenceGap() async throws {
    let (log, state) = try await readSession(droppingLine: 2)
    #expect(
      log.error
        == ActionLogError(
          path: "session.jsonl", line: 4, reason: .sequenceGap(expected: 3, found: 4)))
    #expect(
      log.error?.description == """
        session.jsonl, line 4: sequence number 4 where 3 was expected \
        (lines are missing or out of order)
        """)
    #expect(log.entries.count == 2)
    #expect(state == State(count: 2, history: []))
  }

  @Test func aBlankLineInTheMiddleIsAnError() async throws {
    let (log, _) = try await readSession(replacingLine: 3, with: "")
    #expect(log.error?.line == 5)
    #expect(log.error?.reason == .emptyLine)
    #expect(log.entries.count == 3)
  }

  @Test func blankLinesAfterTheLastEntryEndTheLog() async throws {
    let path = temporaryFilePath("action-log")
    defer { try? FileManager.default.removeItem(atPath: path) }
    _ = try await recordSession(at: path)
    let lines = try lines(of: path)
    let text = lines.joined(separator: "\n") + "\n\n\n"
    let log = try ActionLog<Action>(data: Data(text.utf8), path: "session.jsonl")
    #expect(log.error == nil)
    #expect(log.entries.count == lines.count - 1)
  }

  @Test func aMissingFileThrows() {
    #expect(
      throws: ActionLogError(
        path: "/nonexistent/log", line: nil, reason: .fileError("no such file"))
    ) {
      try ActionLog<Action>(path: "/nonexistent/log")
    }
  }

  /// An empty file (or /dev/null, which has no size to read by) is not a log: a recorder
  /// writes its header as it creates the file. Said as such, not as a file that cannot be read.
  @Test func anEmptyFileThrowsSayingItIsEmpty() throws {
    let path = temporaryFilePath("action-log-empty")
    defer { try? FileManager.default.removeItem(atPath: path) }
    try Data().write(to: URL(fileURLWithPath: path))
    for path in [path, "/dev/null"] {
      #expect(
        throws: ActionLogError(
          path: path, line: nil,
          reason: .fileError("the file is empty; a recorded log starts with a header line"))
      ) {
        try ActionLog<Action>(path: path)
      }
    }
    #expect(
      throws: ActionLogError(
        path: "/", line: nil, reason: .fileError("the file cannot be read"))
    ) {
      try ActionLog<Action>(path: "/")
    }
  }

  @Test func aRecorderThatCannotCreateItsFileThrows() {
    #expect {
      _ = try ActionLogRecorder<Action>(path: "/nonexistent-directory/log.jsonl")
    } throws: { error in
      (error as? ActionLogError)?.description
        == "/nonexistent-directory/log.jsonl: No such file or directory"
    }
  }

  @Test func anEmptyLogReplaysNothing() throws {
    let log = try ActionLog<Action>(data: Data())
    #expect(log.entries.isEmpty)
    #expect(log.error == nil)
  }
}
