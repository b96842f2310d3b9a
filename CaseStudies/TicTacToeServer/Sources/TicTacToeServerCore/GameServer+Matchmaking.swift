import Synchronization
import TicTacToeCore
import Unidirectional

// Pairing done elsewhere than in the server's lobby: a cluster's shards share one lobby (a
// table in their database), so a player who joins here may meet one who waits on another shard.
// The server then only queues the session (`queued`, as ever), tells the matchmaker, and starts
// the game the matchmaker asks for; a side that is not a session here gets a seat token and takes
// its seat with `rejoin`.

extension GameServer {
  /// Pairs the players who `join` (``Configuration/matchmaker``).
  public struct Matchmaker: Sendable {
    /// A session joined the queue (it was sent `queued`): find it an opponent, then call
    /// ``GameServer/startGame(x:o:)`` (or leave it waiting). Called on the frame's thread: do
    /// the slow work elsewhere.
    public var joined: @Sendable (Lobby.Entrant) -> Void
    /// A queued session left the queue (`leave`, a disconnect, a shutdown) before a game seated
    /// it or ``GameServer/takeQueued(_:)`` took it.
    public var left: @Sendable (_ session: Int) -> Void

    /// Creates a matchmaker.
    ///
    /// - Parameters:
    ///   - joined: Called when a session joins the queue.
    ///   - left: Called when a queued session leaves it.
    public init(
      joined: @escaping @Sendable (Lobby.Entrant) -> Void,
      left: @escaping @Sendable (_ session: Int) -> Void
    ) {
      self.joined = joined
      self.left = left
    }
  }

  /// One side of a game a matchmaker pairs.
  public enum MatchedPlayer: Equatable, Sendable {
    /// A session of this server, queued.
    case session(Int)
    /// A player elsewhere (on another shard): only its name; it takes its seat with `rejoin`
    /// and the token ``StartedGame/tokens`` gives it.
    case remote(name: String)
  }

  /// A game a matchmaker started.
  public struct StartedGame: Sendable {
    /// The game's id.
    public let id: String
    /// X's seat token, then O's (durable servers only).
    public let tokens: (x: String, o: String)?
    /// The journal entry of its start (durable servers only): a remote player's token is good
    /// once it is durable.
    public let started: StoreTask?
  }

  /// Whether a session is queued (joined, not yet seated, not gone).
  ///
  /// - Parameter session: The session.
  /// - Returns: Whether it is queued now.
  public func isQueued(_ session: Int) -> Bool {
    sessions.withLock { $0[session] }?.withLock { $0.isQueued && $0.game == nil } ?? false
  }

  /// Takes a queued session out of the queue for a game started elsewhere (its opponent's
  /// shard): its name, or `nil` if it is not queued any more (it left, or closed). The session
  /// stays open, in the lobby as far as this server knows; the caller tells the client where
  /// its game is.
  ///
  /// - Parameter session: The session.
  /// - Returns: Its name, or `nil`.
  public func takeQueued(_ session: Int) -> String? {
    guard let entry = sessions.withLock({ $0[session] }) else { return nil }
    return entry.withLock { fields -> String? in
      guard fields.isQueued, fields.game == nil else { return nil }
      fields.isQueued = false
      return fields.name
    }
  }

  /// Starts a game a matchmaker paired, and seats its players who are sessions here (each must
  /// be queued). The game is numbered after the lobby's games and named by
  /// ``Configuration/gameID``, as the lobby's are.
  ///
  /// - Parameters:
  ///   - x: Who plays X (moves first).
  ///   - o: Who plays O.
  /// - Returns: The game, or `nil` if a session side is no longer queued (it left or closed:
  ///   nothing is started, and a session side still queued stays queued).
  public func startGame(x: MatchedPlayer, o: MatchedPlayer) -> StartedGame? {
    // Each session side is claimed (its queued flag cleared) under its own lock; a side that
    // cannot be claimed puts back the claims made.
    var claimed: [(SessionEntry, String)] = []
    var names: [String] = []
    for side in [x, o] {
      switch side {
      case .remote(let name):
        names.append(name)
      case .session(let id):
        let entry = sessions.withLock { $0[id] }
        let name = entry?.withLock { fields -> String? in
          guard fields.isQueued, fields.game == nil else { return nil }
          fields.isQueued = false
          return fields.name
        }
        guard let entry, let name else {
          for (entry, _) in claimed { entry.withLock { $0.isQueued = true } }
          return nil
        }
        claimed.append((entry, name))
        names.append(name)
      }
    }
    let number = lobby.gamesStarted + matchedCount.add(1, ordering: .relaxed).newValue
    let id = configuration.gameID?(number) ?? "g\(number)"
    var tokens: (x: String, o: String)?
    var started: StoreTask?
    if let journal {
      let seats = (Self.token(), Self.token())
      tokens = seats
      started = journal.store.send(
        .started(
          game: id, number: number,
          record: Journal.GameRecord(
            xName: names[0], oName: names[1], xToken: seats.0, oToken: seats.1,
            lastActivity: date.now)))
    }
    let game = makeGame(
      id, GameRoom.State(id: id, xName: names[0], oName: names[1]), tokens: tokens)
    game.lastJournalTask.withLock { $0 = started }
    configuration.log?("game \(id) started: \(names[0]) (X) v \(names[1]) (O), paired elsewhere")
    var seated: [(SessionEntry, Player)] = []
    var claims = claimed.makeIterator()
    for (side, player) in [(x, Player.x), (o, .o)] {
      guard case .session = side, let (entry, _) = claims.next() else { continue }
      entry.store.send(
        .matched(game: id, player: player, opponent: player == .x ? names[1] : names[0]))
      seated.append((entry, player))
    }
    if !seated.isEmpty { seat(seated, in: game, after: started) }
    return StartedGame(id: id, tokens: tokens, started: started)
  }

  /// Ends a game ``startGame(x:o:)`` started whose remote player can no longer be told of it
  /// (the matchmaker failed after the start): nobody wins. It is journaled as ended, as a game
  /// closed as abandoned is (it has no outcome: no win is counted, and a replay closes it too),
  /// and each player seated here goes back to the lobby, as after a game's end (a `session`
  /// frame, phase `lobby`). A `rejoin` to it is then refused (`unknown-game`).
  ///
  /// - Parameter id: The game.
  /// - Returns: Whether the game was on here (it was not if it ended already).
  @discardableResult
  public func abandonGame(_ id: String) -> Bool {
    guard let game = games.withLock({ $0.removeValue(forKey: id) }) else { return false }
    if let journal {
      let ended = journal.store.send(.ended(game: id))
      game.lastJournalTask.withLock { $0 = ended }
    }
    game.keeper.withLock { $0 }?.cancel()
    let seats = game.seats.withLock { seats in
      defer { seats = GameEntry.Seats() }
      return seats
    }
    for seat in [seats.x, seats.o].compactMap({ $0 }) {
      let wasSeated = seat.entry.withLock { fields -> Bool in
        guard fields.game === game else { return false }
        fields.game = nil
        fields.player = nil
        return true
      }
      if wasSeated { seat.entry.store.send(.gameEnded) }
    }
    configuration.log?("game \(id) closed as abandoned: its other player could not be told")
    return true
  }
}
