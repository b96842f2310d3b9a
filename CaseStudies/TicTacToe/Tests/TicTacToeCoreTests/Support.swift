import CaseStudySupport
import TicTacToeCore
import Unidirectional
import UnidirectionalTerminal
import UnidirectionalTesting

/// A test store of the whole program whose named observers are the program's own output
/// concerns, with the live authentication client on a test clock.
func makeStore(
  _ state: TicTacToe.State = TicTacToe.State(),
  clock: TestClock = TestClock(),
  authenticationClient: AuthenticationClient = .liveValue
) -> TestStore<TicTacToe.State, TicTacToe.Action> {
  let store = TestStore(initialState: state) {
    TicTacToe()
  } withDependencies: {
    $0.continuousClock = clock
    $0.authenticationClient = authenticationClient
  }
  for concern in TicTacToeDisplay.concerns {
    store.observe(concern.name) { _ = concern.render($0, .plain) }
  }
  return store
}

/// A logged-in state on the new-game screen, optionally with a game between Ann (X) and Bob (O).
func loggedIn(game: Game.State? = nil) -> TicTacToe.State {
  .newGame(NewGame.State(xName: "Ann", oName: "Bob", game: game))
}

/// A game between Ann (X) and Bob (O) on `board`, with `player` to move.
func game(_ board: Board = Board(), next player: Player = .x) -> Game.State {
  var game = Game.State(xName: "Ann", oName: "Bob")
  game.board = board
  game.currentPlayer = player
  return game
}

extension TestStore where State == TicTacToe.State {
  /// The state of the game being played; fails the test if there is none.
  var currentGame: Game.State? { state.newGame?.game }
}
