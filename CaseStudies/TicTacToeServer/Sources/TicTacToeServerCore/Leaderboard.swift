import Unidirectional

/// Wins per player name, shared by every game of a server (see ``GameRoom/State/leaderboard``)
/// and shown to clients by the `leaders` frame.
///
/// A player is a name: the one given in `hello` (trimmed), or taken back with `rejoin`. Names
/// are not accounts: two clients that say hello with one name add to one count, and `Ann` and
/// `ann` are two players.
///
/// A game counts one win for its winner: three in a line, or a forfeit (the opponent left,
/// disconnected or timed out), as the `state` frame names a `winner` for each. A tie counts
/// nothing, and neither does a game closed as abandoned when a durable server recovers it
/// (nobody won it: neither player came back).
public struct Leaderboard: Codable, Equatable, Sendable {
  /// A player's place on the board.
  public struct Entry: Equatable, Sendable {
    /// The player's name.
    public var name: String
    /// The games the player won.
    public var wins: Int

    /// Creates an entry.
    ///
    /// - Parameters:
    ///   - name: The player's name.
    ///   - wins: The games the player won.
    public init(name: String, wins: Int) {
      self.name = name
      self.wins = wins
    }
  }

  /// Wins by player name; a player with no win has no entry.
  public private(set) var wins: [String: Int]

  /// How many players a `leaders` frame shows.
  public static let shownInFrames = 10

  /// The key every game of a storage shares the board under.
  public static let key = InMemoryKey<Leaderboard>("leaderboard")

  /// Creates a board.
  ///
  /// - Parameter wins: Wins by player name.
  public init(wins: [String: Int] = [:]) {
    self.wins = wins
  }

  /// Counts a win for `name`.
  ///
  /// - Parameter name: The winner's name.
  public mutating func recordWin(by name: String) {
    wins[name, default: 0] += 1
  }

  /// Counts the win of a game that ended with `outcome` between `xName` and `oName`, if it has
  /// a winner (see ``Leaderboard``).
  ///
  /// - Parameters:
  ///   - outcome: How the game ended.
  ///   - xName: X's name.
  ///   - oName: O's name.
  public mutating func record(_ outcome: GameRoom.Outcome, xName: String, oName: String) {
    guard let winner = outcome.winner else { return }
    recordWin(by: winner == .x ? xName : oName)
  }

  /// The `count` players with the most wins, most first; players with as many wins in the order
  /// of their names.
  ///
  /// - Parameter count: How many players at most.
  /// - Returns: Their entries.
  public func top(_ count: Int = Leaderboard.shownInFrames) -> [Entry] {
    let sorted = wins.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
    return sorted.prefix(max(count, 0)).map { Entry(name: $0.key, wins: $0.value) }
  }
}
