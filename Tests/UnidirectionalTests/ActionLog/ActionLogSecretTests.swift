import Foundation
import Testing
import Unidirectional
import UnidirectionalTestSupport

/// Secrets in actions: written redacted at any depth, never printed, and not replayed.
@Suite struct ActionLogSecretTests {
  struct Code: Codable, Equatable, Sendable {
    var digits: String
  }
  enum Login: Codable, Equatable, Sendable {
    case emailChanged(String)
    case passwordChanged(Secret<String>)
    case codeEntered(code: Secret<Code>)
  }
  enum Action: Codable, Equatable, Sendable {
    case login(Login)
    case tap
  }
  struct State: Equatable, Sendable {
    var email = ""
    var password = ""
    var code = ""
    var taps = 0
  }

  static let feature = Reduce<State, Action> { state, action in
    switch action {
    case .login(.emailChanged(let email)): state.email = email
    case .login(.passwordChanged(let password)): state.password = password.value
    case .login(.codeEntered(let code)): state.code = code.value.digits
    case .tap: state.taps += 1
    }
    return .none
  }

  static let session: [Action] = [
    .tap, .login(.emailChanged("ann@example.com")), .login(.passwordChanged(Secret("hunter2"))),
    .tap, .login(.codeEntered(code: Secret(Code(digits: "246810")))), .tap,
  ]

  /// Records `session` through a store and returns the path and the file's bytes.
  func recordSession() throws -> (path: String, data: Data) {
    let path = temporaryFilePath("action-log-secret")
    let recorder = try ActionLogRecorder<Action>(path: path, program: "login")
    let store = Store(
      initialState: State(), reducer: Self.feature, interceptors: [recorder.interceptor()])
    for action in Self.session { store.send(action) }
    #expect(store.state.password == "hunter2")
    #expect(recorder.recordedCount == 6)
    #expect(recorder.failure == nil)
    return (path, try Data(contentsOf: URL(fileURLWithPath: path)))
  }

  @Test func secretsNeverReachTheFile() throws {
    let (path, data) = try recordSession()
    defer { try? FileManager.default.removeItem(atPath: path) }
    let text = try #require(String(data: data, encoding: .utf8))
    #expect(!text.contains("hunter2"))
    #expect(!text.contains("246810"))
    #expect(text.contains("ann@example.com"))  // Only secrets are redacted.
    let lines = text.split(separator: "\n")
    #expect(lines.count == 7)
    #expect(
      lines[3].hasPrefix(#"{"action":{"login":{"_0":{"passwordChanged":{"_0":"<redacted>"}}}},"#))
    #expect(lines[3].contains(#""redacted":["login.passwordChanged"],"sequence":3,"#))
    #expect(lines[5].contains(#"{"codeEntered":{"code":"<redacted>"}}"#))
    #expect(lines[5].contains(#""redacted":["login.codeEntered.code"]"#))
    #expect(!lines[4].contains("redacted"))
  }

  @Test func aReplayStopsBeforeTheFirstRedactedAction() throws {
    let (path, _) = try recordSession()
    defer { try? FileManager.default.removeItem(atPath: path) }
    let log = try ActionLog<Action>(path: path, program: "login")
    #expect(log.entries.map(\.action) == Array(Self.session.prefix(2)))
    #expect(
      log.error
        == ActionLogError(path: path, line: 4, reason: .redacted(["login.passwordChanged"])))
    #expect(
      log.error?.description == """
        \(path), line 4: cannot replay this action: its secret (login.passwordChanged) was \
        redacted when it was recorded; the replay stops before it
        """)
    let store = Store(initialState: State()) { Self.feature.ignoringEffects() }
    log.replay(into: store)
    #expect(store.state == State(email: "ann@example.com", taps: 1))
  }

  @Test func aRedactedEntryDoesNotDecodeOnItsOwn() throws {
    let (path, data) = try recordSession()
    defer { try? FileManager.default.removeItem(atPath: path) }
    let line = data.split(separator: 0x0A)[3]
    #expect(throws: DecodingError.self) {
      try JSONDecoder().decode(ActionLogEntry<Action>.self, from: Data(line))
    }
  }

  @Test func outsideActionLogsASecretEncodesItsValue() throws {
    let action = Action.login(.codeEntered(code: Secret(Code(digits: "1234"))))
    let data = try JSONEncoder().encode(action)
    #expect(String(decoding: data, as: UTF8.self).contains("1234"))
    #expect(try JSONDecoder().decode(Action.self, from: data) == action)
  }

  @Test func aSecretNeverPrints() {
    let action = Action.login(.passwordChanged(Secret("hunter2")))
    #expect(
      String(describing: action)
        == #"login(UnidirectionalTests.ActionLogSecretTests.Login.passwordChanged(<redacted>))"#)
    #expect(!String(reflecting: action).contains("hunter2"))
    #expect(!"\(Secret(Code(digits: "1234")))".contains("1234"))
    var dumped = ""
    dump(action, to: &dumped)
    #expect(!dumped.contains("hunter2"))

    let printed = Log<String>()
    let store = Store(initialState: State()) {
      Reduce<State, Action> { _, _ in .none }.printChanges(to: { printed.append($0) })
    }
    store.send(action)
    #expect(printed.values.count == 1)
    #expect(printed.values.allSatisfy { !$0.contains("hunter2") })
    #expect(printed.values.first?.contains("passwordChanged(<redacted>)") == true)
  }

  @Test func secretsCompareByValue() {
    #expect(Secret("a") == Secret("a"))
    #expect(Secret("a") != Secret("b"))
    #expect(Set([Secret("a"), Secret("a"), Secret("b")]).count == 2)
  }
}
