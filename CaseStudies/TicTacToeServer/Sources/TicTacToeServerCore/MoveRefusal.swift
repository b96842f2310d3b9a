/// Why a game refused a move; each is an error code in the `error` frame.
public enum MoveRefusal: String, Error, Equatable, Sendable {
  /// The cell is not 0...8.
  case badCell = "bad-cell"
  /// It is the other player's turn.
  case notYourTurn = "not-your-turn"
  /// The cell is taken.
  case cellTaken = "cell-taken"
  /// The game is over.
  case gameOver = "game-over"
}
