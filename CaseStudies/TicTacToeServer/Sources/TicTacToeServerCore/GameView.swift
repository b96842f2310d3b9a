import TicTacToeCore

/// What a player sees of a game: the `state` frame.
public struct GameView: Equatable, Sendable {
  /// The game's id.
  public var game: String
  /// The board.
  public var board: Board
  /// Whose turn it is while the game is on; the `state` frame of a finished game (an
  /// ``outcome`` set) has no `turn`.
  public var turn: Player
  /// How many moves were accepted.
  public var moveCount: Int
  /// The last accepted move.
  public var lastMove: GameRoom.Move?
  /// How the game ended, or `nil` while it is on.
  public var outcome: GameRoom.Outcome?

  /// Creates a view.
  ///
  /// - Parameters:
  ///   - game: The game's id.
  ///   - board: The board.
  ///   - turn: Whose turn it is.
  ///   - moveCount: How many moves were accepted.
  ///   - lastMove: The last accepted move.
  ///   - outcome: How the game ended, if it did.
  public init(
    game: String, board: Board, turn: Player, moveCount: Int, lastMove: GameRoom.Move?,
    outcome: GameRoom.Outcome?
  ) {
    self.game = game
    self.board = board
    self.turn = turn
    self.moveCount = moveCount
    self.lastMove = lastMove
    self.outcome = outcome
  }
}
