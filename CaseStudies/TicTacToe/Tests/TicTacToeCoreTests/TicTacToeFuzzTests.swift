import Testing
import TicTacToeCore
import Unidirectional
import UnidirectionalTestSupport

/// Ten thousand random lines, as the program handles them: parsed for the current screen, sent
/// (and their requests awaited) when valid, answered with one error line otherwise. Nothing
/// crashes and the state stays valid after every line.
@Suite struct TicTacToeFuzzTests {
  static let vocabulary = [
    "email blob@example.com", "email blob2fa@example.com", "email nope", "email",
    "password password",
    "password wrong", "password", "login", "code 1234", "code 0000", "code", "submit", "back",
    "x Ann", "o Bob", "x", "o   ", "start", "logout", "again", "leave", "quit", "help", "", "   ",
    "a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3", "d4", "b 2", "B2",
  ]

  static func randomLine(_ random: inout SplitMix64) -> String {
    switch Int.random(in: 0..<10, using: &random) {
    case 0:
      // Random characters, including controls, non-ASCII and U+FFFD (what bad bytes become).
      let alphabet = Array("ab xo12@\t\u{0}\u{7F}é\u{FFFD}🙂")
      let length = Int.random(in: 0..<80, using: &random)
      return String((0..<length).map { _ in alphabet.randomElement(using: &random)! })
    case 1:
      return String(repeating: "z", count: Int.random(in: 100..<5_000, using: &random))
    default:
      return vocabulary.randomElement(using: &random)!
    }
  }

  @Test func tenThousandRandomLines() async {
    var random = SplitMix64(seed: 2026)
    let store = withDependencies {
      $0.continuousClock = ImmediateClock()
    } operation: {
      Store(initialState: TicTacToe.State()) { TicTacToe() }
    }
    var counts = (sent: 0, invalid: 0, games: 0)
    for step in 0..<10_000 {
      let line = Self.randomLine(&random)
      let before = store.state
      switch TicTacToeCommand(line, state: before) {
      case .send(let action):
        await store.send(action).finish()
        counts.sent += 1
      case .invalid(let message):
        counts.invalid += 1
        #expect(!message.isEmpty && !message.contains("\n") && message.count < 200)
        #expect(store.state == before)
      case .help, .nothing, .exit, .readPassword:
        break
      }
      if let problem = Self.invalidity(of: store.state) {
        Issue.record("step \(step), line \(line.prefix(40).debugDescription): \(problem)")
        return
      }
      if store.state.newGame?.game?.isOver == true { counts.games += 1 }
    }
    // The vocabulary reaches every screen: the run is not stuck on the login screen.
    #expect(counts.sent > 1_000)
    #expect(counts.invalid > 1_000)
    #expect(counts.games > 0)
  }

  /// What is wrong with a state no sequence of actions should reach, if anything.
  static func invalidity(of state: TicTacToe.State) -> String? {
    switch state {
    case .login(let login):
      if login.isLoginRequestInFlight { return "a login request is still in flight" }
      if login.twoFactor?.isRequestInFlight == true { return "a code check is still in flight" }
    case .newGame(let newGame):
      guard let game = newGame.game else { return nil }
      let xs = game.board.cells.filter { $0 == .x }.count
      let os = game.board.cells.filter { $0 == .o }.count
      if xs - os != 0 && xs - os != 1 { return "\(xs) X and \(os) O on the board" }
      if !game.isOver, game.currentPlayer != (xs == os ? .x : .o) { return "wrong player to move" }
      if game.xName.isEmpty || game.oName.isEmpty { return "a player has no name" }
    }
    return nil
  }
}
