import Unidirectional

/// A game between two named players: moves alternate, starting with X, until a win or a tie.
public struct Game: Reducer {
  /// The game's state.
  public struct State: Equatable, Sendable {
    /// The board.
    public var board = Board()
    /// Whose turn it is (while the game is on).
    public var currentPlayer = Player.x
    /// X's name.
    public var xName: String
    /// O's name.
    public var oName: String

    /// Creates a new game.
    public init(xName: String, oName: String) {
      self.xName = xName
      self.oName = oName
    }

    /// The winner, once someone has three in a line.
    public var winner: Player? { board.winner }
    /// Whether the board is full with no winner.
    public var isTie: Bool { board.winner == nil && board.isFull }
    /// Whether no more moves can be made.
    public var isOver: Bool { board.winner != nil || board.isFull }

    /// A player's name.
    public func name(of player: Player) -> String {
      player == .x ? xName : oName
    }
  }

  /// What the players can do.
  public enum Action: Codable, Equatable, Sendable {
    /// The current player marks a cell. Ignored on a taken cell or once the game is over.
    case cellTapped(row: Int, column: Int)
    /// Starts over with the same players, once the game is over.
    case playAgainButtonTapped
    /// Leaves the game (the new-game screen handles this).
    case quitButtonTapped
  }

  /// Creates the feature.
  public init() {}

  /// Plays a move, or starts over.
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .cellTapped(let row, let column):
      guard (0...2).contains(row), (0...2).contains(column), !state.isOver,
        state.board[row, column] == nil
      else { return .none }
      state.board[row, column] = state.currentPlayer
      if !state.isOver { state.currentPlayer = state.currentPlayer.other }
      return .none
    case .playAgainButtonTapped:
      guard state.isOver else { return .none }
      state.board = Board()
      state.currentPlayer = .x
      return .none
    case .quitButtonTapped:
      return .none
    }
  }
}
