import Synchronization
import TicTacToeCore
import Unidirectional

// The frames a client sends: what each does to its session, the lobby and its game.

extension GameServer {
  func handle(_ frame: ClientFrame, _ entry: SessionEntry) throws(FrameError) {
    if case .move(let game, let cell, let seq) = frame {
      // The hot path: the seat the session holds (set when it is seated, cleared when its game
      // ends), which names the game and the side without a read of the session's store or a
      // look-up in the games.
      let (seated, player) = entry.withLock { ($0.game, $0.player) }
      if let seated, let player, seated.id == game {
        try play(GameRoom.Move(player: player, cell: cell, seq: seq), in: seated, by: entry)
        return
      }
    }
    // The fields it needs, read one by one and only when needed: `store.state` is a generic key
    // path read, which costs more than the move.
    let session = SessionFields(id: entry.id, phase: entry.store.phase, store: entry.store)
    switch frame {
    case .hello(let name):
      let isFirst = entry.withLock { fields in
        guard fields.name == nil else { return false }
        fields.name = name
        return true
      }
      guard isFirst else { throw FrameError(.wrongPhase, "you said hello already") }
      entry.store.send(.hello(name: name))
    case .join:
      guard let name = entry.withLock(\.name) else {
        throw FrameError(.noName, "say hello first")
      }
      // Queued here, under the entry's lock (see `SessionEntry.Fields.isQueued`).
      let joins = entry.withLock { fields in
        guard !fields.isQueued, fields.game == nil else { return false }
        fields.isQueued = true
        return true
      }
      guard joins else {
        throw FrameError(.wrongPhase, "join from the lobby (you are \(session.phase.word))")
      }
      entry.store.send(.queued)
      if let matchmaker = configuration.matchmaker {
        matchmaker.joined(Lobby.Entrant(session: session.id, name: name))
      } else {
        lobby.send(.join(Lobby.Entrant(session: session.id, name: name)))
      }
    case .leave:
      let (wasQueued, game, player) = entry.withLock { fields in
        defer { fields.isQueued = false }
        return (fields.isQueued, fields.game, fields.player)
      }
      if wasQueued {
        if let matchmaker = configuration.matchmaker {
          matchmaker.left(session.id)
        } else {
          lobby.send(.leave(session: session.id))
        }
        entry.store.send(.leftQueue)
      } else if let game, let player {
        game.store.send(.forfeit(player, .left))
      } else {
        throw FrameError(.wrongPhase, "nothing to leave (you are \(session.phase.word))")
      }
    case .move(let game, let cell, let seq):
      guard let room = games.withLock({ $0[game] }) else {
        if session.lastGame == game || session.game == game {
          throw FrameError(.refused(.gameOver), "game \(game) is over")
        }
        throw FrameError(.unknownGame, "there is no game \(game)")
      }
      guard session.game == game, let player = session.player else {
        if session.lastGame == game {
          throw FrameError(.refused(.gameOver), "game \(game) is over")
        }
        throw FrameError(.notAPlayer, "you do not play in game \(game)")
      }
      try play(GameRoom.Move(player: player, cell: cell, seq: seq), in: room, by: entry)
    case .ping:
      entry.deliver(.pong)
    case .leaders:
      guard let journal else {
        // The board now, not a store's copy: nothing of it can be lost.
        entry.deliver(.leaders(leaderboard.latestValue.top()))
        return
      }
      // The journal's board, not the live one (a game counts its win there before the win's
      // entries are even queued for the journal): the wins of the games whose end is
      // journaled, sent once the entry of the last of them is on disk. A `none` task waits for
      // every entry appended so far, that one among them.
      let journaled = journal.journaledBoard
      entry.deliver(
        .leaders(journaled.leaderboard.top()),
        after: journal.log.durableCount >= journaled.through ? nil : StoreTask.none)
    case .quit:
      disconnect(session.id, reason: .quit)
    case .rejoin(let game, let token):
      guard session.phase == .connected || session.phase == .lobby else {
        throw FrameError(.wrongPhase, "rejoin from the lobby (you are \(session.phase.word))")
      }
      guard let gameEntry = games.withLock({ $0[game] }) else {
        throw FrameError(.unknownGame, "there is no game \(game) in progress")
      }
      guard let tokens = gameEntry.tokens, token == tokens.x || token == tokens.o else {
        throw FrameError(.badToken, "that token opens no seat in game \(game)")
      }
      let player: Player = token == tokens.x ? .x : .o
      guard gameEntry.seats.withLock({ $0[player] == nil }) else {
        throw FrameError(.badToken, "that seat is taken")
      }
      let name = player == .x ? gameEntry.names.x : gameEntry.names.o
      let opponent = player == .x ? gameEntry.names.o : gameEntry.names.x
      entry.withLock { $0.name = name }
      // A player came back: the game's clock for abandonment starts again (see `reopen`).
      journal?.store.send(.active(game: game, at: date.now))
      entry.store.send(.rejoined(game: game, player: player, opponent: opponent, name: name))
      seat([(entry, player)], in: gameEntry, after: nil)
    }
  }

  /// The turn of the game a session is seated in, for its idle timer; `nil` if it is in none.
  static func turn(of fields: Locked<SessionEntry.Fields>) -> GameTurn? {
    guard
      let (game, player) = fields.withLock({ fields in fields.game.map { ($0, fields.player) } }),
      let player
    else { return nil }
    let room = game.store
    let moves = room.moves.count
    guard room.outcome == nil else { return GameTurn(isMine: false, moves: moves) }
    return GameTurn(isMine: room[\.game.currentPlayer] == player, moves: moves)
  }

  /// Plays a move of a player of the room, or throws why it is refused; a retried move (one the
  /// game accepted already) is answered with the `state` frame that acknowledged it.
  private func play(
    _ move: GameRoom.Move, in game: GameEntry, by entry: SessionEntry
  ) throws(FrameError) {
    let room = game.store
    // Two reads, not three: the board and the turn come in one copy of the game.
    let played = room.game
    if let refusal = GameRoom.refusal(
      of: move, outcome: room.outcome, turn: played.currentPlayer, cells: played.board.cells)
    {
      // Only a refused move can be a retry (its cell is taken): the moves are read only then.
      if let acknowledgement = GameRoom.acknowledgement(
        of: move, id: game.id, names: game.names, moves: room.moves)
      {
        // To the sender only, once the move's journal entry (or a later one) is durable.
        entry.deliver(
          .state(acknowledgement),
          after: journal == nil ? nil : game.lastJournalTask.withLock { $0 })
        return
      }
      // The room counts it (its logs read the count); no client reads that, so no frame.
      room.send(.move(move))
      throw FrameError(.refused(refusal), refusal.message(for: move.player))
    }
    room.send(.move(move))
  }

  /// What `handle` reads of a session.
  struct SessionFields {
    let id: Int
    let phase: Session.Phase
    let store: Store<Session.State, Session.Action>

    var name: String? { store.name }
    var lastGame: String? { store.lastGame }

    var game: String? {
      if case .playing(let game, _, _) = phase { game } else { nil }
    }

    var player: Player? {
      if case .playing(_, let player, _) = phase { player } else { nil }
    }
  }
}
