import Foundation
import TicTacToeCore
import Unidirectional

/// What the server must not lose, as a store whose actions go to a durable action log: the games
/// in progress, each with its players, their seat tokens and its moves.
///
/// Game stores stay the truth while the server runs; each change a game store makes is sent
/// here too, in that store's order, and a client is told of a move only once its journal entry
/// is on disk. After a crash the journal is recovered (snapshot plus log tail) and every game in
/// it is rebuilt by replaying its actions through ``GameRoom``. Finished games leave the state
/// (a snapshot holds only games in progress), but not the log, which keeps the whole history.
///
/// ## Last activity
///
/// Each game keeps the wall time (`@Dependency(\.date)`) of its last activity: its start, each
/// accepted action, and each rejoin (``Action/active(game:at:)``). A server that recovers a game
/// whose last activity is older than its abandonment time closes it, journaled as
/// ``Action/ended(game:)``, so that replaying the journal gives the same games and snapshots
/// stop carrying games nobody comes back to (see ``GameServer/Configuration/abandonAfter``).
/// Journals written before dates have none: their games are given the date of the recovery
/// that first finds them so, journaled as ``Action/active(game:at:)``.
///
/// ## The leaderboard
///
/// ``State/leaderboard`` is the server's board as it must survive a crash: the win of each
/// game, counted once, when the game's end is journaled (``Action/ended(game:)``), from the
/// game's own journaled actions. A game leaves the state with its end, so an end journaled
/// twice counts nothing the second time; the board is in every snapshot, while the games that
/// ended are not; and recovery (a snapshot, then the entries after it) counts exactly the ends
/// after the snapshot. A game whose winning move is on disk but whose end is not (a crash in
/// between) is ended, and counted, by the recovering server (see ``GameServer``). So a
/// recovered board holds every win whose move was acknowledged, once. Replaying a game to
/// rebuild it (``GameRecord/room(id:)``) counts on a board of its own, never on the server's.
public struct Journal: Reducer {
  /// A game in progress.
  public struct GameRecord: Codable, Equatable, Sendable {
    /// X's name.
    public var xName: String
    /// O's name.
    public var oName: String
    /// The secrets that let X and O take their seats again after a restart.
    public var xToken: String
    /// O's seat token.
    public var oToken: String
    /// The game's accepted actions, in order.
    public var actions: [RoomAction] = []
    /// The wall time of the game's last activity (its start, an accepted action or a rejoin);
    /// `nil` in a journal written before dates, until a recovery dates it (see ``Journal``).
    public var lastActivity: Date?

    /// Creates the record of a game that starts.
    ///
    /// - Parameters:
    ///   - xName: X's name.
    ///   - oName: O's name.
    ///   - xToken: X's seat token.
    ///   - oToken: O's seat token.
    ///   - lastActivity: When it starts (`nil` only for records from before dates).
    public init(
      xName: String, oName: String, xToken: String, oToken: String, lastActivity: Date?
    ) {
      self.xName = xName
      self.oName = oName
      self.xToken = xToken
      self.oToken = oToken
      self.lastActivity = lastActivity
    }

    /// The game's state, rebuilt by replaying its actions.
    ///
    /// The replay counts a win on a leaderboard of its own, in a storage of its own: rebuilding
    /// a game never counts its win again on a board that has it (see ``Journal``). Give the
    /// state the board its store should count on before making the store.
    ///
    /// - Parameter id: The game's id.
    /// - Returns: The state its store had after those actions, but for the leaderboard.
    public func room(id: String) -> GameRoom.State {
      var state = GameRoom.State(
        id: id, xName: xName, oName: oName, leaderboard: Leaderboard.inStorageOfItsOwn())
      for action in actions {
        _ = GameRoom().reduce(into: &state, action: action.roomAction)
      }
      return state
    }
  }

  /// An action a game store accepted, in a form that encodes.
  public enum RoomAction: Codable, Equatable, Sendable {
    /// A move: the player (`X` or `O`), the cell and the client's seq.
    case move(player: String, cell: Int, seq: Int)
    /// A forfeit: the player and the reason.
    case forfeit(player: String, reason: String)

    /// Encodes a game store's action; `nil` for a change of the shared leaderboard received
    /// from another game, which is that game's to journal (its end), not this one's.
    ///
    /// - Parameter action: The action.
    public init?(_ action: GameRoom.Action) {
      switch action {
      case .move(let move):
        self = .move(player: move.player.rawValue, cell: move.cell, seq: move.seq)
      case .forfeit(let player, let reason):
        self = .forfeit(player: player.rawValue, reason: reason.rawValue)
      case .leaderboardChanged:
        return nil
      }
    }

    /// The game store's action.
    public var roomAction: GameRoom.Action {
      switch self {
      case .move(let player, let cell, let seq):
        .move(GameRoom.Move(player: Player(rawValue: player) ?? .x, cell: cell, seq: seq))
      case .forfeit(let player, let reason):
        .forfeit(Player(rawValue: player) ?? .x, GameRoom.ForfeitReason(rawValue: reason) ?? .left)
      }
    }
  }

  /// The journal's state.
  public struct State: Codable, Equatable, Sendable {
    /// Games started since the first launch: new game ids go on from there.
    public var gamesStarted = 0
    /// The games in progress, by id.
    public var games: [String: GameRecord] = [:]
    /// Wins per player name, of the games whose end was journaled (see "The leaderboard"
    /// above).
    public var leaderboard = Leaderboard()

    /// Creates an empty journal.
    public init() {}

    /// Decodes a state; a snapshot from before the leaderboard has none, and starts an empty
    /// one (the wins of the games that ended before it are not counted).
    ///
    /// - Parameter decoder: The decoder.
    public init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      gamesStarted = try container.decode(Int.self, forKey: .gamesStarted)
      games = try container.decode([String: GameRecord].self, forKey: .games)
      leaderboard =
        try container.decodeIfPresent(Leaderboard.self, forKey: .leaderboard) ?? Leaderboard()
    }
  }

  /// What is journaled.
  public enum Action: Codable, Equatable, Sendable {
    /// The lobby opened game number `number` with id `game`.
    case started(game: String, number: Int, record: GameRecord)
    /// A game store accepted an action, at `at` (wall time; `nil` in journals from before
    /// dates, whose entries have no `at`).
    case room(game: String, action: RoomAction, at: Date? = nil)
    /// A game's players came back (a `rejoin`), or a recovery dated a game journaled before
    /// dates: its last activity is `at`.
    case active(game: String, at: Date)
    /// A game ended (won, tied, forfeited, or closed as abandoned); it leaves the state.
    case ended(game: String)
  }

  /// Creates the reducer.
  public init() {}

  /// Records a game's start, its actions and its end.
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .started(let game, let number, let record):
      state.gamesStarted = max(state.gamesStarted, number)
      state.games[game] = record
    case .room(let game, let action, let at):
      state.games[game]?.actions.append(action)
      if let at { state.games[game]?.lastActivity = at }
    case .active(let game, let at):
      state.games[game]?.lastActivity = at
    case .ended(let game):
      // Counted as the game leaves the state: once, however often its end is journaled.
      guard let record = state.games.removeValue(forKey: game) else { break }
      if let outcome = record.room(id: game).outcome {
        state.leaderboard.record(outcome, xName: record.xName, oName: record.oName)
      }
    }
    return .none
  }
}
