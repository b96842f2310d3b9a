import TicTacToeCore
import Unidirectional

// The frames a client sends, routed as `GameServer+Frames.swift` routes them: the same checks
// in the same order, with the same refusals, read from plain state instead of stores.

extension BaselineServer {
  func handle(_ frame: ClientFrame, _ session: BaselineSession) throws(FrameError) {
    if case .move(let game, let cell, let seq) = frame {
      // The hot path, as the server's: the seat the session holds names the game and the side.
      let (seated, player) = session.fields.withLock { ($0.game, $0.player) }
      if let seated, let player, seated.id == game {
        try play(GameRoom.Move(player: player, cell: cell, seq: seq), in: seated)
        return
      }
    }
    let state = session.state.withLock { $0 }
    switch frame {
    case .hello(let name):
      let isFirst = session.fields.withLock { fields in
        guard fields.name == nil else { return false }
        fields.name = name
        return true
      }
      guard isFirst else { throw FrameError(.wrongPhase, "you said hello already") }
      send(.hello(name: name), to: session)
    case .join:
      guard let name = session.fields.withLock(\.name) else {
        throw FrameError(.noName, "say hello first")
      }
      let joins = session.fields.withLock { fields in
        guard !fields.isQueued, fields.game == nil else { return false }
        fields.isQueued = true
        return true
      }
      guard joins else {
        throw FrameError(.wrongPhase, "join from the lobby (you are \(state.phase.word))")
      }
      send(.queued, to: session)
      sendLobby(.join(Lobby.Entrant(session: session.id, name: name)))
    case .leave:
      let (wasQueued, game, player) = session.fields.withLock { fields in
        defer { fields.isQueued = false }
        return (fields.isQueued, fields.game, fields.player)
      }
      if wasQueued {
        sendLobby(.leave(session: session.id))
        send(.leftQueue, to: session)
      } else if let game, let player {
        send(.forfeit(player, .left), to: game)
      } else {
        throw FrameError(.wrongPhase, "nothing to leave (you are \(state.phase.word))")
      }
    case .move(let game, let cell, let seq):
      guard let room = games.withLock({ $0[game] }) else {
        if state.lastGame == game || state.game == game {
          throw FrameError(.refused(.gameOver), "game \(game) is over")
        }
        throw FrameError(.unknownGame, "there is no game \(game)")
      }
      guard state.game == game, let player = state.player else {
        if state.lastGame == game {
          throw FrameError(.refused(.gameOver), "game \(game) is over")
        }
        throw FrameError(.notAPlayer, "you do not play in game \(game)")
      }
      try play(GameRoom.Move(player: player, cell: cell, seq: seq), in: room)
    case .ping:
      session.deliver(.pong)
    case .leaders:
      session.deliver(.leaders(leaderboard.latestValue.top()))
    case .quit:
      disconnect(session.id, reason: .quit)
    case .rejoin(let game, _):
      guard state.phase == .connected || state.phase == .lobby else {
        throw FrameError(.wrongPhase, "rejoin from the lobby (you are \(state.phase.word))")
      }
      guard games.withLock({ $0[game] }) != nil else {
        throw FrameError(.unknownGame, "there is no game \(game) in progress")
      }
      // No journal, so no seat tokens: as on a server without a data directory.
      throw FrameError(.badToken, "that token opens no seat in game \(game)")
    }
  }

  /// Plays a move of a player in a game, or throws why it is refused: checked, reduced, and
  /// pushed to the players in one hold of the game's lock.
  private func play(_ move: GameRoom.Move, in game: BaselineGame) throws(FrameError) {
    var refusal: MoveRefusal?
    var acknowledgement: GameView?
    send(.move(move), to: game) { state in
      refusal = state.refusal(of: move)
      if refusal != nil {
        acknowledgement = GameRoom.acknowledgement(
          of: move, id: state.id, names: (state.game.xName, state.game.oName), moves: state.moves)
      }
    }
    if let acknowledgement, let session = game.room.withLock({ $0.seats[move.player] }) {
      // A retried move: the frame that acknowledged it, to the sender.
      session.deliver(.state(acknowledgement))
      return
    }
    if let refusal {
      throw FrameError(.refused(refusal), refusal.message(for: move.player))
    }
  }
}
