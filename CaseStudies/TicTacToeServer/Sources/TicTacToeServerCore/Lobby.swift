import Unidirectional

/// The server's lobby: players queue to play, and the lobby pairs them, first come first served.
///
/// The lobby only decides who plays whom and names the game: the server observes
/// ``State/lastPairing`` and opens a ``GameRoom`` store for each new pairing. Each join makes
/// at most one pairing, and an observer runs after every action that changed what it read, so
/// the server sees every pairing once.
public struct Lobby: Reducer {
  /// A queued player.
  public struct Entrant: Equatable, Sendable {
    /// The player's session.
    public var session: Int
    /// The player's name.
    public var name: String

    /// Creates an entrant.
    ///
    /// - Parameters:
    ///   - session: The player's session id.
    ///   - name: The player's name.
    public init(session: Int, name: String) {
      self.session = session
      self.name = name
    }
  }

  /// Two players paired into a new game.
  public struct Pairing: Equatable, Sendable {
    /// The new game's id.
    public var game: String
    /// Who plays X (the one who queued first).
    public var x: Entrant
    /// Who plays O.
    public var o: Entrant

    /// Creates a pairing.
    ///
    /// - Parameters:
    ///   - game: The new game's id.
    ///   - x: Who plays X.
    ///   - o: Who plays O.
    public init(game: String, x: Entrant, o: Entrant) {
      self.game = game
      self.x = x
      self.o = o
    }
  }

  /// The lobby's state.
  public struct State: Equatable, Sendable {
    /// Players waiting for an opponent, in the order they joined.
    public var waiting: [Entrant] = []
    /// The number of games started so far; game ids are `g1`, `g2`, …
    public var gamesStarted = 0
    /// The last pairing made.
    public var lastPairing: Pairing?

    /// Creates an empty lobby.
    ///
    /// - Parameter gamesStarted: Games already started (after a restart, game ids go on from
    ///   there).
    public init(gamesStarted: Int = 0) {
      self.gamesStarted = gamesStarted
    }
  }

  /// What players do in the lobby.
  public enum Action: Equatable, Sendable {
    /// A player queues. Ignored if the session is already queued.
    case join(Entrant)
    /// A player leaves the queue (or disconnects). Ignored if not queued.
    case leave(session: Int)
  }

  /// Creates the reducer.
  public init() {}

  /// Queues a player, pairing them with the first one waiting.
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .join(let entrant):
      guard !state.waiting.contains(where: { $0.session == entrant.session }) else {
        return .none
      }
      guard !state.waiting.isEmpty else {
        state.waiting.append(entrant)
        return .none
      }
      let first = state.waiting.removeFirst()
      state.gamesStarted += 1
      state.lastPairing = Pairing(game: "g\(state.gamesStarted)", x: first, o: entrant)
      return .none
    case .leave(let session):
      state.waiting.removeAll { $0.session == session }
      return .none
    }
  }
}
