/// The screen the user is on, which decides the commands they can type.
public enum Screen: Equatable, Sendable {
  /// Email and password.
  case login
  /// The two-factor code, for accounts that need one.
  case twoFactor
  /// The players' names, before a game.
  case newGame
  /// A game in progress or just ended.
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
