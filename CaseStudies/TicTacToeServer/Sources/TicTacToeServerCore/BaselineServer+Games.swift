import TicTacToeCore
import Unidirectional

// The baseline's games: opened from the lobby's pairings, reduced under their lock, and each
// change pushed to both players, as `GameServer+Games.swift` does with a store and an observer.

extension BaselineServer {
  /// Opens the game of a pairing and seats its players.
  func start(_ pairing: Lobby.Pairing) {
    let (x, o) = sessions.withLock { ($0[pairing.x.session], $0[pairing.o.session]) }
    guard let x, let o else {
      // One of them left in the meantime: the other goes back to the queue.
      for (entrant, session) in [(pairing.x, x), (pairing.o, o)] where session != nil {
        sendLobby(.join(entrant))
      }
      return
    }
    let game = BaselineGame(
      id: pairing.game,
      state: GameRoom.State(
        id: pairing.game, xName: pairing.x.name, oName: pairing.o.name,
        leaderboard: leaderboard))
    games.withLock { $0[pairing.game] = game }
    configuration.log?(
      "game \(pairing.game) started: \(pairing.x.name) (X, session \(pairing.x.session)) v "
        + "\(pairing.o.name) (O, session \(pairing.o.session))")
    send(.matched(game: pairing.game, player: .x, opponent: pairing.o.name), to: x)
    send(.matched(game: pairing.game, player: .o, opponent: pairing.x.name), to: o)
    for (session, player) in [(x, Player.x), (o, .o)] {
      session.fields.withLock { fields in
        fields.game = game
        fields.player = player
        fields.isQueued = false
      }
    }
    // Both players are sent the game as it starts, encoded once.
    game.room.withLock { room in
      room.seats.x = x
      room.seats.o = o
      let frame = ServerFrame.state(Self.view(of: room.state))
      let bytes = frame.bytes
      x.deliver(frame, bytes: bytes)
      o.deliver(frame, bytes: bytes)
    }
  }

  /// Reduces a game action under the game's lock (after `check` reads the state before it);
  /// if what the players see changed, encodes the `state` frame once and queues it for the
  /// seats, still under the lock; a game that ended is closed and its players sent back to the
  /// lobby.
  func send(
    _ action: GameRoom.Action, to game: BaselineGame,
    check: (GameRoom.State) -> Void = { _ in }
  ) {
    let ended = game.room.withLock { room -> (GameView, BaselineGame.Seats)? in
      check(room.state)
      let before = (moves: room.state.moves.count, isOver: room.state.outcome != nil)
      _ = GameRoom().reduce(into: &room.state, action: action)
      // What a `state` frame shows is a function of the moves and the outcome: a refused move
      // (only its counter changes) sends nothing, as no observer of the server reads it.
      let isOver = room.state.outcome != nil
      guard room.state.moves.count != before.moves || isOver != before.isOver else { return nil }
      let view = Self.view(of: room.state)
      let frame = ServerFrame.state(view)
      var bytes: [UInt8]?
      for player in [Player.x, .o] {
        guard let seat = room.seats[player] else { continue }
        if bytes == nil { bytes = frame.bytes }
        seat.deliver(frame, bytes: bytes!)
      }
      guard isOver else { return nil }
      defer { room.seats = BaselineGame.Seats() }
      return (view, room.seats)
    }
    guard let (view, seats) = ended, let outcome = view.outcome else { return }
    finish(game.id, outcome: outcome, moves: view.moveCount)
    // Session actions run outside the game's lock, as the server's do after its observer.
    for session in [seats.x, seats.o] {
      guard let session else { continue }
      session.fields.withLock { fields in
        fields.game = nil
        fields.player = nil
      }
      send(.gameEnded, to: session)
    }
  }

  /// What the players see of a game.
  static func view(of state: GameRoom.State) -> GameView {
    GameView(
      game: state.id, board: state.game.board, turn: state.game.currentPlayer,
      moveCount: state.moves.count, lastMove: state.moves.last, outcome: state.outcome)
  }

  private func finish(_ game: String, outcome: GameRoom.Outcome, moves: Int) {
    guard games.withLock({ $0.removeValue(forKey: game) }) != nil else { return }
    moveCount.add(moves, ordering: .relaxed)
    configuration.log?("game \(game) over after \(moves) moves: \(outcome.logDescription)")
  }
}
