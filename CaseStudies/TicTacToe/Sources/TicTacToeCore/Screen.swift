/// The screen the user is on, which decides the commands they can type.
public enum Screen: Equatable, Sendable {
  case login
  case twoFactor
  case newGame
  case game
}

extension TicTacToe.State {
  /// The screen shown for this state.
  public var screen: Screen {
    switch self {
    case .login(let login): login.twoFactor == nil ? .login : .twoFactor
    case .newGame(let newGame): newGame.game == nil ? .newGame : .game
    }
  }
}

extension Game.State {
  /// Where the game stands.
  public enum Status: Equatable, Sendable {
    /// It is this player's turn.
    case turn(Player)
    /// This player has three in a line.
    case won(Player)
    /// The board is full with no winner.
    case tie
  }

  /// Where the game stands.
  public var status: Status {
    if let winner { return .won(winner) }
    return isTie ? .tie : .turn(currentPlayer)
  }
}
