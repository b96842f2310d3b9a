import TicTacToeCore
import Unidirectional

/// One game on the server: its own store, two players, the moves they made, and how it ended.
///
/// The board rules are `TicTacToeCore`'s ``Game`` reducer: a move the room accepts is handed to
/// it as a tap. The room adds what a server needs on top: who may move (each side is a
/// ``Player``, and only the player whose turn it is), a record of the accepted moves with the
/// client's sequence number (the acknowledgement a client waits for), and the outcome, which
/// includes a forfeit when a player leaves, disconnects or times out.
///
/// ## The leaderboard
///
/// Every game of a server holds the server's ``Leaderboard`` as a ``Shared`` value
/// (``State/leaderboard``): the action that decides a game with a winner counts the win with
/// `withLock`, so wins from games on any thread are never lost. A store that should keep its
/// copy of the board current receives changes made by other games as
/// ``Action/leaderboardChanged(_:)`` (see ``receivingLeaderboard()``); the server's game stores do
/// not, as nothing in a game reads the board (see ``GameServer``).
public struct GameRoom: Reducer {
  /// A game's state.
  public struct State: Equatable, Sendable {
    /// The game's id, unique on the server.
    public let id: String
    /// The board, whose turn it is and the players' names, as `TicTacToeCore` keeps them.
    public var game: Game.State
    /// Every accepted move, in order.
    public var moves: [Move] = []
    /// How the game ended, or `nil` while it is on.
    public var outcome: Outcome?
    /// How many moves were refused. Only the server's logs read it: clients never see it, so a
    /// refused move sends no frame to anyone.
    public var refusedMoves = 0
    /// Wins per player name, shared with the server's other games: the action that decides
    /// this game with a winner counts its win here.
    public var leaderboard: Shared<Leaderboard>

    /// Creates a game that has not started.
    ///
    /// - Parameters:
    ///   - id: The game's id.
    ///   - xName: The name of the player who plays X (first).
    ///   - oName: The name of the player who plays O.
    ///   - leaderboard: The board the game counts its win on; by default the one shared under
    ///     ``Leaderboard/key`` in ``DependencyValues/sharedStorage``.
    public init(
      id: String, xName: String, oName: String,
      leaderboard: Shared<Leaderboard> = Shared(Leaderboard.key, default: Leaderboard())
    ) {
      self.id = id
      self.game = Game.State(xName: xName, oName: oName)
      self.leaderboard = leaderboard
    }

    /// Why `move` cannot be played now, or `nil` if it can.
    ///
    /// - Parameter move: The move to check.
    /// - Returns: The reason it is refused, or `nil`.
    public func refusal(of move: Move) -> MoveRefusal? {
      GameRoom.refusal(
        of: move, outcome: outcome, turn: game.currentPlayer, cells: game.board.cells)
    }
  }

  /// Why `move` cannot be played in a game with this outcome, turn and cells, or `nil` if it
  /// can: ``State/refusal(of:)`` from the few values it needs, so a caller can read just those.
  ///
  /// - Parameters:
  ///   - move: The move to check.
  ///   - outcome: How the game ended, if it did.
  ///   - turn: Whose turn it is.
  ///   - cells: The board's cells.
  /// - Returns: The reason it is refused, or `nil`.
  public static func refusal(
    of move: Move, outcome: Outcome?, turn: Player, cells: [Player?]
  ) -> MoveRefusal? {
    if outcome != nil { return .gameOver }
    guard (0..<9).contains(move.cell) else { return .badCell }
    guard move.player == turn else { return .notYourTurn }
    guard cells[move.cell] == nil else { return .cellTaken }
    return nil
  }

  /// The `state` a retried move is answered with: the view of the game just after `move` was
  /// accepted, if `moves` (a game's accepted moves) holds it (the same player, cell and seq);
  /// `nil` if it does not.
  ///
  /// A client that lost its connection after sending a move cannot know whether it was played;
  /// it rejoins and sends it again. Played, its cell is taken, so the same move is never a new
  /// one: the server answers it with the frame that acknowledged it the first time, rebuilt from
  /// the moves up to it, and the game does not change. (A move that was refused changed nothing:
  /// sent again, it is judged again.)
  ///
  /// - Parameters:
  ///   - move: The move sent again.
  ///   - id: The game's id.
  ///   - names: The players' names, X's then O's.
  ///   - moves: The game's accepted moves, in order.
  /// - Returns: The view that acknowledged `move`, or `nil`.
  public static func acknowledgement(
    of move: Move, id: String, names: (x: String, o: String), moves: [Move]
  ) -> GameView? {
    guard let index = moves.firstIndex(of: move) else { return nil }
    // Through the board rules alone: a room would count a replayed win on a leaderboard (the
    // ambient one, by default), and the moves were accepted once already.
    var game = Game.State(xName: names.x, oName: names.o)
    for accepted in moves[...index] {
      _ = Game().reduce(
        into: &game, action: .cellTapped(row: accepted.cell / 3, column: accepted.cell % 3))
    }
    let outcome: Outcome? = game.winner.map { .won($0) } ?? (game.board.isFull ? .tie : nil)
    return GameView(
      game: id, board: game.board, turn: game.currentPlayer, moveCount: index + 1,
      lastMove: move, outcome: outcome)
  }

  /// A move accepted into a game.
  public struct Move: Equatable, Sendable {
    /// Who moved.
    public var player: Player
    /// The cell, 0...8, row by row.
    public var cell: Int
    /// The number the client gave the move, echoed in its acknowledgement.
    public var seq: Int

    /// Creates a move.
    ///
    /// - Parameters:
    ///   - player: Who moves.
    ///   - cell: The cell, 0...8, row by row.
    ///   - seq: The client's number for the move.
    public init(player: Player, cell: Int, seq: Int) {
      self.player = player
      self.cell = cell
      self.seq = seq
    }
  }

  /// How a game ended.
  public enum Outcome: Equatable, Sendable {
    /// Three in a line.
    case won(Player)
    /// A full board without a line.
    case tie
    /// The loser left, disconnected or timed out; the other player wins.
    case forfeit(loser: Player, reason: ForfeitReason)

    /// The winner, if any.
    public var winner: Player? {
      switch self {
      case .won(let player): player
      case .tie: nil
      case .forfeit(let loser, _): loser.other
      }
    }
  }

  /// Why a player forfeited.
  public enum ForfeitReason: String, Equatable, Sendable {
    /// The player sent `leave`.
    case left
    /// The player's connection closed.
    case disconnected
    /// The server waited on the player for longer than the idle timeout.
    case idle
    /// The server shut down while the game was on.
    case shutdown
  }

  /// What can happen to a game.
  public enum Action: Equatable, Sendable {
    /// A player asks to move; refused moves change nothing but ``State/refusedMoves``.
    case move(Move)
    /// A player gives up the game (see ``ForfeitReason``). Ignored once the game is over.
    case forfeit(Player, ForfeitReason)
    /// Another game changed the leaderboard (received by a store made with
    /// ``receivingLeaderboard()``); the copy has it already.
    case leaderboardChanged(SharedChange<Leaderboard>)
  }

  /// Creates the reducer.
  public init() {}

  /// Plays or refuses a move, or ends the game by forfeit.
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .move(let move):
      guard state.refusal(of: move) == nil else {
        state.refusedMoves += 1
        return .none
      }
      // The board rules are the case study's own: the room only decides who may move.
      _ = Game().reduce(
        into: &state.game, action: .cellTapped(row: move.cell / 3, column: move.cell % 3))
      state.moves.append(move)
      // The winner is worked out once (`isTie` would work it out again).
      if let winner = state.game.winner {
        state.outcome = .won(winner)
        Self.countWin(&state)
      } else if state.game.board.isFull {
        state.outcome = .tie
      }
      return .none
    case .forfeit(let player, let reason):
      guard state.outcome == nil else { return .none }
      state.outcome = .forfeit(loser: player, reason: reason)
      Self.countWin(&state)
      return .none
    case .leaderboardChanged:
      // The copy has the new board already (see `receivingShared`).
      return .none
    }
  }

  /// Counts the win of the game just decided, in one locked change of the shared board: wins
  /// decided at once in other games are never lost.
  private static func countWin(_ state: inout State) {
    guard let outcome = state.outcome else { return }
    let (xName, oName) = (state.game.xName, state.game.oName)
    state.leaderboard.withLock { $0.record(outcome, xName: xName, oName: oName) }
  }

  /// The game as a store runs it when it keeps its copy of the leaderboard current: it
  /// receives each change another game makes as ``Action/leaderboardChanged(_:)``.
  public static func receivingLeaderboard() -> ReceiveSharedReducer<GameRoom, Leaderboard> {
    GameRoom().receivingShared(\.leaderboard, action: .case(Action.leaderboardChanged))
  }
}
