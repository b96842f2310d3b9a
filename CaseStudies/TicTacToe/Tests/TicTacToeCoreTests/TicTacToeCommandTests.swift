import Testing
import TicTacToeCore
import Unidirectional
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
      TicTacToeCommand("password a b", state: login)
        == .send(.login(.passwordChanged(Secret("a b")))))
    #expect(TicTacToeCommand("password", state: login) == .readPassword)
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
      TicTacToeCommand("code 4242", state: twoFactor)
        == .send(.login(.twoFactor(.codeChanged(Secret("4242"))))))
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
    #expect(TicTacToeCommand("leave", state: playing) == .send(.newGame(.game(.quitButtonTapped))))
    for text in ["bb", "22", "b22", "b2x"] {
      guard case .invalid(let message) = TicTacToeCommand(text, state: playing) else {
        Issue.record("'\(text)' should be invalid")
        continue
      }
      #expect(message.contains("valid here: a move such as b2"))
    }
  }

  @Test func quitAndHelpMeanTheSameOnEveryScreen() {
    for state in [login, twoFactor, newGame, playing] {
      #expect(TicTacToeCommand("quit", state: state) == .exit)
      #expect(TicTacToeCommand("exit", state: state) == .exit)
      #expect(TicTacToeCommand(" help ", state: state) == .help)
      #expect(
        TicTacToeCommand.commandList(on: state.screen).contains(
          "quit, exit       leave the program"))
      guard case .invalid(let message) = TicTacToeCommand("quit now", state: state) else {
        Issue.record("'quit now' should be invalid")
        continue
      }
      #expect(message.hasPrefix("'quit' takes no argument"))
    }
    // Each screen's way back has its own name, in its help.
    #expect(TicTacToeCommand.commandList(on: .game).contains("leave            leave the game"))
    #expect(TicTacToeCommand.commandList(on: .newGame).contains("logout           log out"))
    #expect(TicTacToeCommand.commandList(on: .twoFactor).contains("back             return"))
  }

  @Test func emailsAreCheckedWhenTyped() {
    let cases = [
      ("notanemail", "it has no '@'"),
      ("a@b@c.d", "it has more than one '@'"),
      ("@example.com", "nothing comes before the '@'"),
      ("blob@", "nothing comes after the '@'"),
      ("blob@localhost", "the domain 'localhost' has no dot inside it"),
      ("blob@example.", "the domain 'example.' has no dot inside it"),
      ("blob @x.io", "it contains a space"),
    ]
    for (address, problem) in cases {
      #expect(
        TicTacToeCommand("email \(address)", state: login)
          == .invalid(
            message: "'\(address)' is not an email address: \(problem); use the form "
              + "NAME@DOMAIN, e.g. 'email blob@example.com'"))
    }
    #expect(
      TicTacToeCommand("email a@b.c", state: login) == .send(.login(.emailChanged("a@b.c"))))
  }

  @Test func codesAreCheckedWhenTyped() {
    let cases = [
      ("abcd", "'a' is not a digit"), ("12a4", "'a' is not a digit"),
      ("12", "it has 2 digits"), ("123456789", "it has 9 digits"),
    ]
    for (code, problem) in cases {
      #expect(
        TicTacToeCommand("code \(code)", state: twoFactor)
          == .invalid(
            message: "'\(code)' is not a code: \(problem); a code is 4 to 8 digits, "
              + "e.g. 'code 1234'"))
    }
    #expect(
      TicTacToeCommand("code 123456", state: twoFactor)
        == .send(.login(.twoFactor(.codeChanged(Secret("123456"))))))
  }

  @Test func badMovesSayWhatIsWrong() {
    let cases = [
      ("b2 b2", "one move per line: 'b2' is a move, and 'b2' after it is an extra argument"),
      ("a1 c3", "one move per line: 'a1' is a move, and 'c3' after it is an extra argument"),
      ("d1", "no column 'd': columns are a, b, c (e.g. 'b2' is the centre)"),
      ("D 1", "no column 'D': columns are a, b, c (e.g. 'b2' is the centre)"),
      ("a4", "no row '4': rows are 1, 2, 3 (e.g. 'b2' is the centre)"),
      ("c0", "no row '0': rows are 1, 2, 3 (e.g. 'b2' is the centre)"),
    ]
    for (line, message) in cases {
      #expect(TicTacToeCommand(line, state: playing) == .invalid(message: message))
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
