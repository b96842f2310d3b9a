import Foundation
import Synchronization
import TicTacToeCore
import Unidirectional

// The games: their stores, how players are seated, and how each change of a game reaches its
// two players' sessions.

extension GameServer {
  /// Makes a game's store; on a durable server, each change it makes is journaled in its order.
  func makeGame(
    _ id: String, _ state: GameRoom.State, tokens: (x: String, o: String)?
  ) -> GameEntry {
    let lastJournalTask = Locked<StoreTask?>(nil)
    var interceptors: [StoreInterceptor<GameRoom.State, GameRoom.Action>] = []
    if let journal {
      // The wall clock by value: the game's store, which holds this, must not hold the server.
      let date = self.date
      interceptors.append(
        StoreInterceptor(didReduce: { action, old, new in
          // Refused moves change only the refusal count: nothing to keep. A game's win on the
          // leaderboard is journaled with its end (see `Journal`).
          guard old.moves != new.moves || old.outcome != new.outcome,
            let action = Journal.RoomAction(action)
          else { return }
          let task = journal.store.send(.room(game: id, action: action, at: date.now))
          lastJournalTask.withLock { $0 = task }
        }))
    }
    // Made without the server's dependencies bound (a task-local push and pop per game): a
    // room reads none. Sessions, whose timer runs on the clock, are made with them.
    let room = Store(
      initialState: state, reducer: GameRoom(), interceptors: interceptors,
      effectExecutor: configuration.effectExecutor)
    let entry = GameEntry(
      id: id, store: room, names: (state.game.xName, state.game.oName), tokens: tokens,
      lastJournalTask: lastJournalTask, counted: Counted(live.gameEntries))
    games.withLock { $0[id] = entry }
    // One observer per game, not one per player: both players see the same view, so it is
    // read and encoded once, and pushed to the seats; it also closes the game once it is over.
    // Not `weak` (a weakly referenced object takes the slow path of every retain and release).
    // The server `unowned(unsafe)`: only the server sends actions to a game, so the observer
    // runs inside a call on the server. The entry strongly: the cycle (entry, store, observer)
    // ends when the keeper is cancelled, by `finish` or by the server's deinit.
    let keeper = room.observe { [unowned(unsafe) self, entry] in
      self.push(entry, id: id)
    }
    entry.keeper.withLock { $0 = keeper }
    return entry
  }

  /// What becomes of a journaled game after a restart: rebuilt from its state (its players take
  /// their seats with `rejoin`), or not, if it is over (its end was not journaled before the
  /// crash) or has had no activity for ``Configuration/abandonAfter`` (closed as abandoned):
  /// both are journaled as ended. One journaled before dates is dated `now`. A rebuilt state's
  /// leaderboard is the replay's own: give it the server's before making its store.
  ///
  /// Static: the server's init calls it before its board exists, which starts from the
  /// journal's once these ends are counted there.
  static func reopen(
    _ id: String, _ record: Journal.GameRecord, now: Date, journal: GameJournal?,
    configuration: Configuration
  ) -> Reopening {
    let state = record.room(id: id)
    guard state.outcome == nil else {
      // Over, but its end was not journaled before the crash: journal it now (which counts its
      // win on the journal's board, once).
      journal?.store.send(.ended(game: id))
      return .over
    }
    if let last = record.lastActivity {
      let idle = now.timeIntervalSince(last)
      let limit = configuration.abandonAfter.components
      if idle >= Double(limit.seconds) + Double(limit.attoseconds) / 1e18 {
        // Journaled, so that a replay of the journal closes it too and the next snapshot
        // leaves it out.
        journal?.store.send(.ended(game: id))
        configuration.log?(
          "game \(id) closed as abandoned after \(state.moves.count) moves: no move or rejoin "
            + "for \(Int(idle)) s (the limit is \(limit.seconds) s)")
        return .abandoned
      }
    } else {
      // Journaled before dates: its clock starts now, on disk, so that the next recovery
      // counts from here rather than from its own start.
      journal?.store.send(.active(game: id, at: now))
    }
    return .rebuild(state)
  }

  /// What becomes of a journaled game at a restart.
  enum Reopening {
    /// It is rebuilt from this state (whose leaderboard is the replay's own).
    case rebuild(GameRoom.State)
    /// It was over: its end is journaled now.
    case over
    /// It is closed as abandoned, journaled as ended.
    case abandoned
  }

  /// Opens the game of a pairing and seats its players.
  func start(_ pairing: Lobby.Pairing) {
    let (x, o) = sessions.withLock { ($0[pairing.x.session], $0[pairing.o.session]) }
    guard let x, let o else {
      // One of them left in the meantime: the other goes back to the queue.
      for (entrant, entry) in [(pairing.x, x), (pairing.o, o)] where entry != nil {
        lobby.send(.join(entrant))
      }
      return
    }
    // The lobby numbers games; the configuration may name them otherwise (a shard's partition).
    let number = Int(pairing.game.dropFirst()) ?? 0
    let id = configuration.gameID?(number) ?? pairing.game
    var tokens: (x: String, o: String)?
    var started: StoreTask?
    if let journal {
      let seats = (Self.token(), Self.token())
      tokens = seats
      started = journal.store.send(
        .started(
          game: id, number: number,
          record: Journal.GameRecord(
            xName: pairing.x.name, oName: pairing.o.name, xToken: seats.0, oToken: seats.1,
            lastActivity: date.now)))
    }
    let game = makeGame(
      id,
      GameRoom.State(
        id: id, xName: pairing.x.name, oName: pairing.o.name, leaderboard: leaderboard),
      tokens: tokens)
    game.lastJournalTask.withLock { $0 = started }
    configuration.log?(
      "game \(id) started: \(pairing.x.name) (X, session \(pairing.x.session)) v "
        + "\(pairing.o.name) (O, session \(pairing.o.session))")
    x.store.send(.matched(game: id, player: .x, opponent: pairing.o.name))
    o.store.send(.matched(game: id, player: .o, opponent: pairing.x.name))
    seat([(x, .x), (o, .o)], in: game, after: started)
  }

  /// Seats sessions in a game (both players of a new game, or one that rejoins): their sides,
  /// their seat frames, and the game as it is now (the game's observer pushes what comes next).
  func seat(
    _ players: [(SessionEntry, Player)], in game: GameEntry, after started: StoreTask?
  ) {
    for (entry, player) in players {
      entry.withLock { fields in
        fields.game = game
        fields.player = player
        fields.isQueued = false
      }
      if let tokens = game.tokens {
        let token = player == .x ? tokens.x : tokens.o
        entry.deliver(.seat(game: game.id, player: player, token: token), after: started)
      }
    }
    // The view is read under the seats' lock: a view the observer read before is then older
    // than this one, and `send` skips it for these seats. Read and encoded once for both
    // players of a new game.
    let (now, sent) = game.seats.withLock { seats in
      for (entry, player) in players { seats[player] = GameEntry.Seat(id: entry.id, entry: entry) }
      let now = view(of: game, id: game.id)
      let only = players.count == 1 ? players[0].1 : nil
      return (now, send(now, of: game, to: &seats, only: only))
    }
    sent.each { player, entry in afterView(now, entry, as: player) }
  }

  /// A random seat token.
  static func token() -> String {
    var generator = SystemRandomNumberGenerator()
    return (0..<2).map { _ in
      let value = String(generator.next() as UInt64, radix: 16)
      return String(repeating: "0", count: 16 - value.count) + value
    }.joined()
  }

  /// What the players see of a game; the reads here are what the game's observer tracks.
  private func view(of game: GameEntry, id: String) -> GameView {
    let room = game.store
    let moves = room.moves
    // The board and the turn in one read of the game: each tracked value that changes costs
    // the observer a probe to refresh after the action, and both change with every move.
    let played = room.game
    return GameView(
      game: id, board: played.board, turn: played.currentPlayer, moveCount: moves.count,
      lastMove: moves.last, outcome: room.outcome)
  }

  /// The game's observer: sends its players what they see of it, and closes it once it is over.
  func push(_ game: GameEntry, id: String) {
    // The id is the one the game was made with: a constant, not a read worth tracking.
    let view = view(of: game, id: id)
    if let outcome = view.outcome {
      finish(view.game, outcome: outcome, moves: view.moveCount)
    }
    let sent = game.seats.withLock { seats -> Recipients in
      guard !seats.isEmpty else { return Recipients() }
      let sent = send(view, of: game, to: &seats, only: nil)
      if view.outcome != nil { seats = GameEntry.Seats() }
      return sent
    }
    // Session actions run outside the lock: their observers may send frames of their own.
    sent.each { player, entry in afterView(view, entry, as: player) }
  }

  /// Sends `view` to the seats that were not sent it yet (all, or `only` one), under the seats'
  /// lock; returns the seats it was sent to.
  ///
  /// On a durable server, the frame waits for the journal entry of the change it shows.
  func send(
    _ view: GameView, of game: GameEntry, to seats: inout GameEntry.Seats,
    only: Player?
  ) -> Recipients {
    let shown = (moves: view.moveCount, isOver: view.outcome != nil)
    let frame = ServerFrame.state(view)
    var bytes: [UInt8]?
    var sent = Recipients()
    let task = journal == nil ? nil : game.lastJournalTask.withLock { $0 }
    for player in Self.sides where only == nil || only == player {
      guard var seat = seats[player] else { continue }
      let entry = seat.entry
      // Views only move forward (moves are added, the outcome is set once): skip one that is
      // not newer than the last this seat was sent.
      if let last = seat.shown,
        last.moves > shown.moves || (last.moves == shown.moves && (last.isOver || !shown.isOver))
      {
        continue
      }
      if bytes == nil { bytes = frame.bytes }
      entry.deliver(frame, bytes: bytes!, after: task)
      seat.shown = shown
      seats[player] = seat
      sent[player] = entry
    }
    return sent
  }

  /// X and O, in the order they are sent a view.
  private static let sides: [Player] = [.x, .o]

  /// The sessions a view was sent to: two fields, where an array cost an allocation per move.
  struct Recipients {
    var x: SessionEntry?
    var o: SessionEntry?

    subscript(player: Player) -> SessionEntry? {
      get { player == .x ? x : o }
      set {
        if player == .x { x = newValue } else { o = newValue }
      }
    }

    /// Calls `body` with each, X first.
    func each(_ body: (Player, SessionEntry) -> Void) {
      if let x { body(.x, x) }
      if let o { body(.o, o) }
    }
  }

  /// What a player's session does after it is sent a view: back to the lobby once the game is
  /// over. (Its idle timer reads the turn from the game when it fires: nothing to do per move.)
  private func afterView(_ view: GameView, _ entry: SessionEntry, as player: Player) {
    guard view.outcome != nil else { return }
    entry.withLock { fields in
      fields.game = nil
      fields.player = nil
    }
    entry.store.send(.gameEnded)
  }

  func finish(_ game: String, outcome: GameRoom.Outcome, moves: Int) {
    guard let entry = games.withLock({ $0.removeValue(forKey: game) }) else { return }
    moveCount.add(moves, ordering: .relaxed)
    if let journal {
      // The last view waits for the end's entry, not only the move's: a player told of a win
      // then sees it in a `leaders` frame, which shows the wins of the ends journaled.
      let ended = journal.store.send(.ended(game: game))
      entry.lastJournalTask.withLock { $0 = ended }
    }
    // Cancelling the keeper from inside its own run is allowed: it stops at once.
    entry.keeper.withLock { $0 }?.cancel()
    configuration.log?("game \(game) over after \(moves) moves: \(outcome.logDescription)")
  }
}
