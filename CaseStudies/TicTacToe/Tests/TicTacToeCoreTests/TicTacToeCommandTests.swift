import Testing
import TicTacToeCore
import UnidirectionalTestSupport

/// Parsing input for each screen, and the messages for input that cannot apply.
@Suite struct TicTacToeCommandTests {
  let login = TicTacToe.State()
  let twoFactor = TicTacToe.State.login(
    Login.State(twoFactor: TwoFactor.State(token: "t", code: "1234")))
  let newGame = TicTacToe.State.newGame(NewGame.State(xName: "Ann", oName: "Bob"))
  let playing = TicTacToe.State.newGame(
    NewGame.State(xName: "Ann", oName: "Bob", game: Game.State(xName: "Ann", oName: "Bob")))

  @Test func loginCommands() {
    #expect(
      TicTacToeCommand("email  blob@x.io ", state: login)
        == .send(.login(.emailChanged("blob@x.io"))))
    #expect(
      TicTacToeCommand("password a b", state: login) == .send(.login(.passwordChanged("a b"))))
    #expect(TicTacToeCommand("quit", state: login) == .exit)
    #expect(TicTacToeCommand("help", state: login) == .help)
    #expect(TicTacToeCommand("  ", state: login) == .nothing)
    #expect(
      TicTacToeCommand("email", state: login)
        == .invalid(message: "'email' needs an address, e.g. 'email blob@example.com'"))
    let ready = TicTacToe.State.login(Login.State(email: "a@b", password: "p"))
    #expect(TicTacToeCommand("login", state: ready) == .send(.login(.loginButtonTapped)))
  }

  @Test func twoFactorCommands() {
    #expect(
      TicTacToeCommand("code 42", state: twoFactor) == .send(.login(.twoFactor(.codeChanged("42"))))
    )
    #expect(
      TicTacToeCommand("submit", state: twoFactor) == .send(.login(.twoFactor(.submitButtonTapped)))
    )
    #expect(TicTacToeCommand("back", state: twoFactor) == .send(.login(.twoFactorDismissed)))
    let checking = TicTacToe.State.login(
      Login.State(twoFactor: TwoFactor.State(token: "t", code: "1", isRequestInFlight: true)))
    #expect(
      TicTacToeCommand("submit", state: checking)
        == .invalid(message: "please wait: checking the code…"))
    // Leaving is allowed while the code is checked: the check is abandoned.
    #expect(TicTacToeCommand("back", state: checking) == .send(.login(.twoFactorDismissed)))
  }

  @Test func newGameCommands() {
    #expect(
      TicTacToeCommand("x Ann Lee", state: newGame) == .send(.newGame(.xNameChanged("Ann Lee"))))
    #expect(TicTacToeCommand("o Bob", state: newGame) == .send(.newGame(.oNameChanged("Bob"))))
    #expect(TicTacToeCommand("start", state: newGame) == .send(.newGame(.letsPlayButtonTapped)))
    #expect(TicTacToeCommand("logout", state: newGame) == .send(.newGame(.logoutButtonTapped)))
    #expect(
      TicTacToeCommand("x " + String(repeating: "n", count: 41), state: newGame)
        == .invalid(message: "a name can have at most 40 characters"))
  }

  @Test func moves() {
    let b2 = TicTacToe.Action.newGame(.game(.cellTapped(row: 1, column: 1)))
    for text in ["b2", "B2", " b2 ", "b 2"] {
      #expect(TicTacToeCommand(text, state: playing) == .send(b2))
    }
    #expect(
      TicTacToeCommand("c3", state: playing)
        == .send(.newGame(.game(.cellTapped(row: 2, column: 2)))))
    #expect(TicTacToeCommand("quit", state: playing) == .send(.newGame(.game(.quitButtonTapped))))
    #expect(TicTacToeCommand("exit", state: playing) == .exit)
    for text in ["d1", "a4", "a0", "bb", "22", "b22", "b2x"] {
      guard case .invalid(let message) = TicTacToeCommand(text, state: playing) else {
        Issue.record("'\(text)' should be invalid")
        continue
      }
      #expect(message.contains("valid here: a move such as b2"))
    }
  }

  @Test func unknownCommandsNameTheScreensCommands() {
    for (state, usage) in [
      (login, "email ADDRESS"), (twoFactor, "code DIGITS"), (newGame, "x NAME"),
      (playing, "a move such as b2"),
    ] {
      guard case .invalid(let message) = TicTacToeCommand("dance", state: state) else {
        Issue.record("'dance' should be invalid")
        continue
      }
      #expect(message.hasPrefix("unknown command 'dance'; valid here: \(usage)"))
    }
  }

  @Test func anyInputGivesOneShortLine() {
    var generator = SplitMix64(seed: 7)
    let alphabet = Array("abcxo123 \t@-éß\u{FFFD}\u{0}")
    for state in [login, twoFactor, newGame, playing] {
      for _ in 0..<2_000 {
        let length = Int(generator.next() % 60)
        let line = String(
          (0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
        if case .invalid(let message) = TicTacToeCommand(line, state: state) {
          #expect(!message.contains("\n"))
          #expect(message.count < 200)
        }
      }
    }
    guard
      case .invalid(let message) = TicTacToeCommand(
        String(repeating: "z", count: 100_000), state: login)
    else {
      Issue.record("a long line should be invalid")
      return
    }
    #expect(message.count < 200)
  }
}
