import Foundation
import Testing
import TicTacToeCore
import Unidirectional
import UnidirectionalTestSupport

/// Recording a session to an action log and replaying it reaches the same state.
@Suite struct TicTacToeReplayTests {
  static let session = [
    "email blob2fa@example.com", "password wrong", "login", "password password", "login",
    "code 1111", "submit", "code 1234", "submit", "x Ann", "o Bob", "start",
    "a1", "b1", "a2", "b2", "zz", "c3", "b3", "again", "a1", "leave",
  ]

  @Test func aRecordedSessionReplaysToTheSameState() async throws {
    let path = temporaryFilePath("tictactoe-in-process")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let recorder = try ActionLogRecorder<TicTacToe.Action>(path: path)
    let live = withDependencies {
      $0.continuousClock = ImmediateClock()
    } operation: {
      Store(
        initialState: TicTacToe.State(), reducer: TicTacToe(),
        interceptors: [recorder.interceptor()])
    }
    for line in Self.session {
      if case .send(let action) = TicTacToeCommand(line, state: live.state) {
        await live.send(action).finish()
      }
    }
    #expect(live.state.newGame != nil)  // Logged in, played, and quit the game.

    let log = try ActionLog<TicTacToe.Action>(path: path)
    #expect(log.error == nil)
    #expect(log.entries.count == recorder.recordedCount)
    let replayed = Store(initialState: TicTacToe.State()) { TicTacToe().ignoringEffects() }
    log.replay(into: replayed)
    #expect(replayed.state == live.state)
  }

  @Test func theProgramReplaysWhatItRecorded() throws {
    let path = temporaryFilePath("tictactoe-program")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let input = Data(Self.session.map { $0 + "\n" }.joined().utf8)
    let recorded = try Program.run("tictactoe", input: input, arguments: ["--record", path])
    // A script with a refused line ('zz') exits with status 1, like a sqlite3 script.
    #expect(recorded.status == 1)

    let replayed = try Program.run("tictactoe", input: Data(), arguments: ["--replay", path])
    #expect(replayed.status == 0)
    #expect(replayed.standardError.isEmpty)
    // The same screens, boards and messages, without the replies to invalid input (which sent
    // no action).
    #expect(replayed.standardOutput == recorded.standardOutput)
    #expect(recorded.standardError.contains("zz"))
  }

  @Test func aCorruptedLogStopsAtTheLastGoodActionWithAnError() throws {
    let path = temporaryFilePath("tictactoe-corrupted")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let input = Data(Self.session.prefix(5).map { $0 + "\n" }.joined().utf8)
    _ = try Program.run("tictactoe", input: input, arguments: ["--record", path])
    var lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
    lines[3] = "{not json"
    try (lines.joined(separator: "\n") + "\n").write(
      toFile: path, atomically: true, encoding: .utf8)

    let replayed = try Program.run("tictactoe", input: Data(), arguments: ["--replay", path])
    #expect(replayed.status == 1)
    #expect(replayed.standardError.hasPrefix("error: the replay stopped after 3 actions: "))
    #expect(replayed.standardError.contains("\(path), line 4: not a valid entry"))
  }

  @Test func badArgumentsAreRefused() throws {
    let missing = try Program.run("tictactoe", input: Data(), arguments: ["--replay"])
    #expect(missing.status == 2)
    #expect(
      missing.standardError
        == "error: --replay needs a file name, e.g. --replay session.log; try --help\n")
    let both = try Program.run(
      "tictactoe", input: Data(), arguments: ["--record", "a", "--replay", "b"])
    #expect(both.status == 2)
    #expect(both.standardError.contains("not both"))
    let absent = try Program.run(
      "tictactoe", input: Data(), arguments: ["--replay", "/nonexistent/log.jsonl"])
    #expect(absent.status == 1)
    #expect(absent.standardError == "error: cannot replay: /nonexistent/log.jsonl: no such file\n")
  }
}
