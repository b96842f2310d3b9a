import Foundation
import Testing
import TicTacToeCore
import Unidirectional
import UnidirectionalTestSupport

/// Recording a session to an action log: the password and the two-factor code never reach the
/// file, and a replay stops before the first of them, saying why.
@Suite struct TicTacToeReplayTests {
  static let session = [
    "email blob2fa@example.com", "password wrong-horse", "login", "password password", "login",
    "code 1111", "submit", "code 1234", "submit", "x Ann", "o Bob", "start",
    "a1", "b1", "a2", "b2", "zz", "c3", "b3", "again", "a1", "leave",
  ]

  static let redactedMessage =
    "cannot replay this action: its secret (login.passwordChanged) was redacted when it was "
    + "recorded; the replay stops before it"

  @Test func aRecordedSessionReplaysUpToItsFirstSecret() async throws {
    let path = temporaryFilePath("tictactoe-in-process")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let recorder = try ActionLogRecorder<TicTacToe.Action>(path: path, program: "tictactoe")
    let live = withDependencies {
      $0.continuousClock = ImmediateClock()
    } operation: {
      Store(
        initialState: TicTacToe.State(), reducer: TicTacToe(),
        interceptors: [recorder.interceptor()])
    }
    var stateBeforeThePassword: TicTacToe.State?
    for line in Self.session {
      if line.hasPrefix("password"), stateBeforeThePassword == nil {
        stateBeforeThePassword = live.state
      }
      if case .send(let action) = TicTacToeCommand(line, state: live.state) {
        await live.send(action).finish()
      }
    }
    #expect(live.state.newGame != nil)  // Logged in, played, and left the game.

    let log = try ActionLog<TicTacToe.Action>(path: path, program: "tictactoe")
    #expect(log.header?.program == "tictactoe")
    // The email (line 2) is replayed; the password (line 3) cannot be.
    #expect(log.entries.count == 1)
    #expect(log.error?.line == 3)
    #expect(log.error?.reason == .redacted(["login.passwordChanged"]))
    let replayed = Store(initialState: TicTacToe.State()) { TicTacToe().ignoringEffects() }
    log.replay(into: replayed)
    #expect(replayed.state == stateBeforeThePassword)
  }

  @Test func theRecordNeverHoldsThePasswordOrTheCode() throws {
    let path = temporaryFilePath("tictactoe-secrets")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let input = Data(Self.session.map { $0 + "\n" }.joined().utf8)
    let recorded = try Program.run("tictactoe", input: input, arguments: ["--record=\(path)"])
    // A script with a refused line ('zz') exits with status 1, like a sqlite3 script.
    #expect(recorded.status == 1)
    #expect(recorded.standardOutput.contains("O (Bob) wins!"))

    let bytes = try String(contentsOfFile: path, encoding: .utf8)
    #expect(bytes.hasPrefix(#"{"actionLog":1,"actionType":"TicTacToeCore.TicTacToe.Action","#))
    #expect(bytes.contains(#""program":"tictactoe""#))
    // Neither password (the wrong one and the right one) nor either code is in the file.
    for secret in [#"wrong-horse"#, #""password""#, #""1111""#, #""1234""#] {
      #expect(!bytes.contains(secret), "\(secret) was recorded")
    }
    #expect(bytes.components(separatedBy: #""<redacted>""#).count - 1 == 4)
    #expect(bytes.contains(#""emailChanged":{"_0":"blob2fa@example.com"}"#))
    // Readable by its owner only.
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
  }

  @Test func aReplayStopsBeforeTheFirstSecretAndSaysWhy() throws {
    let path = temporaryFilePath("tictactoe-program")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let input = Data(Self.session.map { $0 + "\n" }.joined().utf8)
    _ = try Program.run("tictactoe", input: input, arguments: ["--record", path])

    let replayed = try Program.run("tictactoe", input: Data(), arguments: ["--replay=\(path)"])
    #expect(replayed.status == 1)
    #expect(
      replayed.standardError
        == "error: the replay stopped after 1 action: \(path), line 3: \(Self.redactedMessage)\n")
    // The output up to there: the login screen, with the email typed.
    #expect(
      replayed.standardOutput == """
        == Log in ==
        commands: email ADDRESS, password SECRET, login, help, quit
        email set to 'blob2fa@example.com'; now type 'password SECRET' (or 'password' alone, to \
        type it unseen)

        """)
  }

  @Test func aCorruptedLogStopsAtTheLastGoodActionWithAnError() throws {
    let path = temporaryFilePath("tictactoe-corrupted")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let input = Data(Self.session.prefix(5).map { $0 + "\n" }.joined().utf8)
    _ = try Program.run("tictactoe", input: input, arguments: ["--record", path])
    var lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
    lines[1] = "{not json"  // The first entry: line 1 is the header.
    try (lines.joined(separator: "\n") + "\n").write(
      toFile: path, atomically: true, encoding: .utf8)

    let replayed = try Program.run("tictactoe", input: Data(), arguments: ["--replay", path])
    #expect(replayed.status == 1)
    #expect(replayed.standardError.hasPrefix("error: the replay stopped after 0 actions: "))
    #expect(replayed.standardError.contains("\(path), line 2: not a valid entry"))
  }

  @Test func anotherProgramsLogIsRefusedNamingBoth() throws {
    let path = temporaryFilePath("tictactoe-other-program")
    defer { try? FileManager.default.removeItem(atPath: path) }
    _ = try Program.run("counter", input: Data("+\n".utf8), arguments: ["--record", path])
    let replayed = try Program.run("tictactoe", input: Data(), arguments: ["--replay", path])
    #expect(replayed.status == 1)
    #expect(replayed.standardOutput.isEmpty)
    #expect(
      replayed.standardError
        == "error: cannot replay: \(path), line 1: the log was recorded by 'counter', not by "
        + "'tictactoe': replay it with 'counter'\n")
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
