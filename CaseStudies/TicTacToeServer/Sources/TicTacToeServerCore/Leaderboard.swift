import Unidirectional

/// Wins per player name, shared by every game of a server (see ``GameRoom/State/leaderboard``)
/// and shown to clients by the `leaders` frame.
///
/// A player is a name: the one given in `hello` (trimmed), or taken back with `rejoin`. Names
/// are not accounts: two clients that say hello with one name add to one count, and `Ann` and
/// `ann` are two players. Names equal as `String`s (canonically equivalent) are one player,
/// shown with the spelling the board saw first.
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

  /// The first ``shownInFrames`` players in the order of ``top(_:)``, kept as wins are counted:
  /// a `leaders` frame costs the same however many players the board holds.
  private var leaders: [Entry] = []

  /// How many players a `leaders` frame shows.
  public static let shownInFrames = 10

  /// The key every game of a storage shares the board under.
  public static let key = InMemoryKey<Leaderboard>("leaderboard")

  /// Creates a board.
  ///
  /// - Parameter wins: Wins by player name.
  public init(wins: [String: Int] = [:]) {
    self.wins = wins
    for (name, count) in wins { rank(Entry(name: name, wins: count)) }
  }

  /// A board of its own: `board`, shared under ``key`` in a new ``SharedStorage`` that nothing
  /// else holds, so that the games given it count on it and on no other (a server's, or a
  /// replay's that must not count on the server's).
  ///
  /// - Parameter board: What it starts from.
  /// - Returns: The shared board.
  static func inStorageOfItsOwn(_ board: Leaderboard = Leaderboard()) -> Shared<Leaderboard> {
    withDependencies {
      $0.sharedStorage = SharedStorage()
    } operation: {
      Shared(key, default: board)
    }
  }

  /// Counts a win for `name`.
  ///
  /// - Parameter name: The winner's name.
  public mutating func recordWin(by name: String) {
    // A name equal to one on the board (canonically equivalent) counts there, under the
    // spelling the board saw first.
    if let index = wins.index(forKey: name) {
      wins.values[index] += 1
      rank(Entry(name: wins[index].key, wins: wins[index].value))
    } else {
      wins[name] = 1
      rank(Entry(name: name, wins: 1))
    }
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
  /// Up to ``shownInFrames`` players, it copies the ones kept in order as wins are counted; more
  /// sorts the whole board.
  ///
  /// - Parameter count: How many players at most.
  /// - Returns: Their entries.
  public func top(_ count: Int = Leaderboard.shownInFrames) -> [Entry] {
    if count <= Self.shownInFrames { return Array(leaders.prefix(max(count, 0))) }
    let sorted = wins.sorted { Self.ranksBefore(($0.key, $0.value), ($1.key, $1.value)) }
    return sorted.prefix(count).map { Entry(name: $0.key, wins: $0.value) }
  }

  /// Whether `a` comes before `b` on the board: more wins, or as many and a name that sorts
  /// first.
  private static func ranksBefore(_ a: (name: String, wins: Int), _ b: (name: String, wins: Int))
    -> Bool
  {
    a.wins != b.wins ? a.wins > b.wins : a.name < b.name
  }

  /// Puts a player whose count went up (`entry` holds the new count) in its place among the
  /// kept first players, if it belongs there. Counts only go up, so no other player changes
  /// places: one who was not kept can come in only by its own win, pushing the last one out.
  private mutating func rank(_ entry: Entry) {
    let key = (name: entry.name, wins: entry.wins)
    if let index = leaders.firstIndex(where: { $0.name == entry.name }) {
      leaders.remove(at: index)
    } else if leaders.count == Self.shownInFrames {
      guard let last = leaders.last, Self.ranksBefore(key, (last.name, last.wins)) else { return }
      leaders.removeLast()
    }
    let place =
      leaders.firstIndex { !Self.ranksBefore(($0.name, $0.wins), key) } ?? leaders.endIndex
    leaders.insert(entry, at: place)
  }
}

extension Leaderboard {
  private enum CodingKeys: String, CodingKey {
    case wins
  }

  /// Decodes a board: its wins (the first players are worked out from them).
  ///
  /// - Parameter decoder: The decoder.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    self.init(wins: try container.decode([String: Int].self, forKey: .wins))
  }

  /// Encodes the board's wins, as boards always were.
  ///
  /// - Parameter encoder: The encoder.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(wins, forKey: .wins)
  }

  /// Whether two boards hold the same wins (the first players follow from them).
  public static func == (lhs: Leaderboard, rhs: Leaderboard) -> Bool {
    lhs.wins == rhs.wins
  }
}
