import Synchronization
import TicTacToeCore
import Unidirectional

/// The server's state, as stores: one ``Lobby`` store, a ``GameRoom`` store per game, a
/// ``Session`` store per connection; and the routing of client frames to them.
///
/// It knows nothing of sockets: a transport calls ``connect(_:)`` for each new client,
/// ``receive(_:from:)`` for each frame (a line without its newline), and
/// ``disconnect(_:reason:)`` when the connection ends. Everything a client is sent is either a
/// reply to its own frame (`error`, `pong`, `bye`) or a push from `store.observe` of exactly what
/// that client reads: its own session's phase, and its game's board, turn, moves and outcome.
/// A change nobody reads (a refused move's counter, another session's idle timer) sends nothing.
///
/// ## Threading
///
/// Every method may be called from any thread. Stores serialize their own actions; observers
/// run on the thread that reduced the action, so the frames of a move are queued on the links
/// before `receive` returns when the game's store was idle.
///
/// ## Disconnects
///
/// A disconnect (or an idle timeout, a frame over the size cap, a slow reader, `quit`) closes
/// the session: its effects are cancelled, it leaves the queue, and a game it is playing is
/// forfeited: the opponent wins and is told so by the game's `state` frame. A server shutdown
/// closes every session but forfeits nothing: games stop where they are.
///
/// ## Durability
///
/// Given a ``GameJournal``, the server journals each game's start, each change of a game store
/// (in that store's order) and each game's end, and holds every frame that reports a journaled
/// change until its entry is on disk: a `state` frame showing a move is the move's
/// acknowledgement, so an acknowledged move survives a crash. Each player is sent a `seat` frame
/// with a token; after a restart, the games in the journal are rebuilt, and a client takes its
/// seat again with `rejoin`. A crash is not a disconnect: recovered games are not forfeited.
public final class GameServer: Sendable {
  /// Settings of a server.
  public struct Configuration: Sendable {
    /// How long the server waits on a client (see ``Session``). 60 seconds by default.
    public var idleTimeout: Duration
    /// Where log lines go (one event per line, no newline); `nil` (the default) for none, and
    /// then no line is even formatted.
    public var log: (@Sendable (String) -> Void)?

    /// Creates a configuration.
    ///
    /// - Parameters:
    ///   - idleTimeout: How long the server waits on a client.
    ///   - log: Receives log lines.
    public init(
      idleTimeout: Duration = .seconds(60), log: (@Sendable (String) -> Void)? = nil
    ) {
      self.idleTimeout = idleTimeout
      self.log = log
    }
  }

  /// Counts for logs and tests.
  public struct Statistics: Equatable, Sendable {
    /// Sessions open now.
    public var sessions = 0
    /// Games being played now.
    public var games = 0
    /// Games started since launch.
    public var gamesStarted = 0
    /// Moves accepted since launch.
    public var moves = 0
  }

  let configuration: Configuration
  /// The dependencies in force at creation: session stores, whose timer reads the clock, use
  /// them (tests put a `TestClock` there).
  let dependencies: DependencyValues
  let lobby: Store<Lobby.State, Lobby.Action>
  let sessions = Locked<[Int: SessionEntry]>([:])
  let games = Locked<[String: GameEntry]>([:])
  let nextSession = Atomic<Int>(1)
  let moveCount = Atomic<Int>(0)
  let lobbyToken = Locked<ObservationToken?>(nil)
  /// The journal, on a durable server.
  let journal: GameJournal?

  /// Creates a server; with a journal, a durable one whose games in progress are those of the
  /// journal.
  ///
  /// - Parameters:
  ///   - configuration: Its settings.
  ///   - journal: Where games are journaled (see "Durability" above), or `nil`.
  public init(configuration: Configuration = Configuration(), journal: GameJournal? = nil) {
    self.configuration = configuration
    self.journal = journal
    let dependencies = DependencyValues.current
    self.dependencies = dependencies
    let journaled = journal?.store.state ?? Journal.State()
    self.lobby = Store(initialState: Lobby.State(gamesStarted: journaled.gamesStarted)) {
      Lobby()
    }
    for (id, record) in journaled.games.sorted(by: { $0.key < $1.key }) {
      reopen(id, record)
    }
    // `unowned(unsafe)`, not `weak`: a weakly referenced object takes the slow path of every
    // retain and release. Safe: only the server sends the lobby actions, so the observer runs
    // inside a call on the server (or in `observe`, here), never after it is gone.
    let token = lobby.observe { [unowned(unsafe) self] in
      guard let pairing = self.lobby.lastPairing else { return }
      self.start(pairing)
    }
    lobbyToken.withLock { $0 = token }
  }

  deinit {
    // Observers hold their session and game entries strongly (see `connect` and `makeGame`);
    // cancelling them ends those cycles for sessions and games still open.
    for entry in sessions.withLock({ $0.values }) {
      entry.withLock(\.sessionToken)?.cancel()
    }
    for entry in games.withLock({ $0.values }) {
      entry.keeper.withLock { $0 }?.cancel()
    }
  }

  /// The server's counts now.
  public var statistics: Statistics {
    Statistics(
      sessions: sessions.withLock(\.count), games: games.withLock(\.count),
      gamesStarted: lobby.gamesStarted, moves: moveCount.load(ordering: .relaxed))
  }

  /// Opens a session for a new client; its first frame, `session` in phase `connected`, is
  /// delivered before this returns.
  ///
  /// - Parameter link: How to reach the client.
  /// - Returns: The session's id, for ``receive(_:from:)`` and ``disconnect(_:reason:)``.
  public func connect(_ link: ClientLink) -> Int {
    let id = nextSession.add(1, ordering: .relaxed).oldValue
    let fields = Locked(SessionEntry.Fields())
    let frames = FrameSignal()
    // The idle timer reads, when it fires (every quarter of the timeout), whether a frame came
    // and the turn from the game's store: frames and moves send the session nothing.
    let idleReader = IdleReader {
      IdleReading(sawFrame: frames.take(), turn: Self.turn(of: fields))
    }
    let store = withDependencies {
      $0 = dependencies
    } operation: {
      Store(initialState: Session.State(id: id, idleTimeout: configuration.idleTimeout)) {
        Session(idleReader: idleReader)
      }
    }
    let entry = SessionEntry(
      id: id, store: store, fields: fields, frames: frames, link: link,
      journalLog: journal?.log)
    sessions.withLock { $0[id] = entry }
    // The store `unowned(unsafe)` and the entry strongly, not `weak` (a weakly referenced
    // object takes the slow path of every retain and release, and these are retained on every
    // frame). Safe: a store runs its observers from its own methods, so it is alive; the entry's
    // cycle (entry, store, observer) ends when the token is cancelled, by `disconnect` or by the
    // server's deinit. The server stays `weak`: the idle timer can close a session from its own
    // task, after the server is gone.
    let token = store.observe { [weak self, unowned(unsafe) store, entry] in
      guard let self else { return }
      let phase = store.phase
      switch phase {
      case .closed(let reason):
        self.disconnect(id, reason: reason)
      default:
        entry.deliver(.session(name: store.name, phase: phase))
      }
    }
    entry.withLock { $0.sessionToken = token }
    store.send(.connected)
    return id
  }

  /// Handles one frame from a client.
  ///
  /// - Parameters:
  ///   - line: The frame, without its newline.
  ///   - id: The session it came from. Frames of a closed session are ignored.
  public func receive(_ line: some Collection<UInt8>, from id: Int) {
    guard let entry = sessions.withLock({ $0[id] }) else { return }
    // A frame resets the idle count: the next tick reads this and resets it (see `Session`).
    entry.frames.signal()
    let frame: ClientFrame
    do throws(FrameError) {
      frame = try ClientFrame.decode(line)
      try handle(frame, entry)
    } catch {
      let seq: Int? =
        if case .move(_, _, let seq)? = try? ClientFrame.decode(line) { seq } else { nil }
      entry.deliver(.error(code: error.code.name, message: error.message, seq: seq))
    }
  }

  /// Closes a session: it leaves the queue, forfeits its game, and its effects are cancelled.
  ///
  /// When `reason` is not ``CloseReason/disconnected`` (the client is still there), the client
  /// is sent `bye` and the link is closed. Closing a closed session does nothing.
  ///
  /// - Parameters:
  ///   - id: The session.
  ///   - reason: Why it closes.
  public func disconnect(_ id: Int, reason: CloseReason) {
    guard let entry = sessions.withLock({ $0.removeValue(forKey: id) }) else { return }
    let fields = entry.withLock { fields in
      defer { fields = SessionEntry.Fields() }
      return fields
    }
    entry.store.send(.close(reason))
    fields.sessionToken?.cancel()
    if fields.isQueued { lobby.send(.leave(session: id)) }
    // The room and side are kept apart from the session's phase, which an idle timeout has
    // already closed by the time this runs.
    if let game = fields.game, let player = fields.player {
      game.seats.withLock { $0[player] = nil }
      if reason != .shutdown {
        game.store.send(.forfeit(player, reason == .idle ? .idle : .disconnected))
      }
    }
    if reason != .disconnected {
      entry.deliver(.bye(reason))
      entry.close()
    }
    configuration.log?("session \(id) closed (\(reason.rawValue))")
  }

  /// Closes every session with ``CloseReason/shutdown``.
  public func shutdown() {
    let ids = sessions.withLock { Array($0.keys) }
    for id in ids.sorted() { disconnect(id, reason: .shutdown) }
  }

  // MARK: Frames

  private func handle(_ frame: ClientFrame, _ entry: SessionEntry) throws(FrameError) {
    if case .move(let game, let cell, let seq) = frame {
      // The hot path: the seat the session holds (set when it is seated, cleared when its game
      // ends), which names the game and the side without a read of the session's store or a
      // look-up in the games.
      let (seated, player) = entry.withLock { ($0.game, $0.player) }
      if let seated, let player, seated.id == game {
        try play(GameRoom.Move(player: player, cell: cell, seq: seq), in: seated.store)
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
      lobby.send(.join(Lobby.Entrant(session: session.id, name: name)))
    case .leave:
      let (wasQueued, game, player) = entry.withLock { fields in
        defer { fields.isQueued = false }
        return (fields.isQueued, fields.game, fields.player)
      }
      if wasQueued {
        lobby.send(.leave(session: session.id))
        entry.store.send(.leftQueue)
      } else if let game, let player {
        game.store.send(.forfeit(player, .left))
      } else {
        throw FrameError(.wrongPhase, "nothing to leave (you are \(session.phase.word))")
      }
    case .move(let game, let cell, let seq):
      guard let room = games.withLock({ $0[game]?.store }) else {
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
      try play(GameRoom.Move(player: player, cell: cell, seq: seq), in: room)
    case .ping:
      entry.deliver(.pong)
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
      entry.store.send(.rejoined(game: game, player: player, opponent: opponent, name: name))
      seat([(entry, player)], in: gameEntry, after: nil)
    }
  }

  /// The turn of the game a session is seated in, for its idle timer; `nil` if it is in none.
  private static func turn(of fields: Locked<SessionEntry.Fields>) -> GameTurn? {
    guard
      let (game, player) = fields.withLock({ fields in fields.game.map { ($0, fields.player) } }),
      let player
    else { return nil }
    let room = game.store
    let moves = room.moves.count
    guard room.outcome == nil else { return GameTurn(isMine: false, moves: moves) }
    return GameTurn(isMine: room[\.game.currentPlayer] == player, moves: moves)
  }

  /// Plays a move of a player of the room, or throws why it is refused.
  private func play(
    _ move: GameRoom.Move, in room: Store<GameRoom.State, GameRoom.Action>
  ) throws(FrameError) {
    // Two reads, not three: the board and the turn come in one copy of the game.
    let played = room.game
    if let refusal = GameRoom.refusal(
      of: move, outcome: room.outcome, turn: played.currentPlayer, cells: played.board.cells)
    {
      // The room counts it (its logs read the count); no client reads that, so no frame.
      room.send(.move(move))
      throw FrameError(.refused(refusal), refusal.message(for: move.player))
    }
    room.send(.move(move))
  }

  // MARK: Games

  /// Makes a game's store; on a durable server, each change it makes is journaled in its order.
  private func makeGame(
    _ id: String, _ state: GameRoom.State, tokens: (x: String, o: String)?
  ) -> GameEntry {
    let lastJournalTask = Locked<StoreTask?>(nil)
    var interceptors: [StoreInterceptor<GameRoom.State, GameRoom.Action>] = []
    if let journal {
      interceptors.append(
        StoreInterceptor(didReduce: { action, old, new in
          // Refused moves change only the refusal count: nothing to keep.
          guard old.moves != new.moves || old.outcome != new.outcome else { return }
          let task = journal.store.send(.room(game: id, action: Journal.RoomAction(action)))
          lastJournalTask.withLock { $0 = task }
        }))
    }
    // Made without the server's dependencies bound (a task-local push and pop per game): a
    // room reads none. Sessions, whose timer runs on the clock, are made with them.
    let room = Store(initialState: state, reducer: GameRoom(), interceptors: interceptors)
    let entry = GameEntry(
      id: id, store: room, names: (state.game.xName, state.game.oName), tokens: tokens,
      lastJournalTask: lastJournalTask)
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

  /// Rebuilds a journaled game after a restart; its players take their seats with `rejoin`.
  private func reopen(_ id: String, _ record: Journal.GameRecord) {
    let state = record.room(id: id)
    guard state.outcome == nil else {
      // Over, but its end was not journaled before the crash: journal it now.
      journal?.store.send(.ended(game: id))
      return
    }
    _ = makeGame(id, state, tokens: (record.xToken, record.oToken))
    configuration.log?("game \(id) recovered after \(state.moves.count) moves")
  }

  /// Opens the game of a pairing and seats its players.
  private func start(_ pairing: Lobby.Pairing) {
    let (x, o) = sessions.withLock { ($0[pairing.x.session], $0[pairing.o.session]) }
    guard let x, let o else {
      // One of them left in the meantime: the other goes back to the queue.
      for (entrant, entry) in [(pairing.x, x), (pairing.o, o)] where entry != nil {
        lobby.send(.join(entrant))
      }
      return
    }
    var tokens: (x: String, o: String)?
    var started: StoreTask?
    if let journal {
      let seats = (Self.token(), Self.token())
      tokens = seats
      started = journal.store.send(
        .started(
          game: pairing.game, number: Int(pairing.game.dropFirst()) ?? 0,
          record: Journal.GameRecord(
            xName: pairing.x.name, oName: pairing.o.name, xToken: seats.0, oToken: seats.1)))
    }
    let game = makeGame(
      pairing.game,
      GameRoom.State(id: pairing.game, xName: pairing.x.name, oName: pairing.o.name),
      tokens: tokens)
    game.lastJournalTask.withLock { $0 = started }
    configuration.log?(
      "game \(pairing.game) started: \(pairing.x.name) (X, session \(pairing.x.session)) v "
        + "\(pairing.o.name) (O, session \(pairing.o.session))")
    x.store.send(.matched(game: pairing.game, player: .x, opponent: pairing.o.name))
    o.store.send(.matched(game: pairing.game, player: .o, opponent: pairing.x.name))
    seat([(x, .x), (o, .o)], in: game, after: started)
  }

  /// Seats sessions in a game (both players of a new game, or one that rejoins): their sides,
  /// their seat frames, and the game as it is now (the game's observer pushes what comes next).
  private func seat(
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
  private static func token() -> String {
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
  private func push(_ game: GameEntry, id: String) {
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
  private func send(
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

  private func finish(_ game: String, outcome: GameRoom.Outcome, moves: Int) {
    guard let entry = games.withLock({ $0.removeValue(forKey: game) }) else { return }
    moveCount.add(moves, ordering: .relaxed)
    journal?.store.send(.ended(game: game))
    // Cancelling the keeper from inside its own run is allowed: it stops at once.
    entry.keeper.withLock { $0 }?.cancel()
    configuration.log?("game \(game) over after \(moves) moves: \(outcome.logDescription)")
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
