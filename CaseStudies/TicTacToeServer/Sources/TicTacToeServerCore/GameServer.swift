import Foundation
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
///
/// ## Abandoned games
///
/// Each journaled game carries the wall time (`@Dependency(\.date)`, read when the server is
/// made) of its last activity: its start, each accepted move or forfeit, each `rejoin`. When a
/// server recovers a game whose last activity is ``Configuration/abandonAfter`` or more before
/// now, its players have not come back (no move, no rejoin) in that time: the game is closed
/// instead of rebuilt, journaled as ended (so a replay of the journal closes it too), and the
/// next snapshot leaves it out. Nobody is told: nobody is seated in a recovered game. The check
/// runs at recovery only: a game nobody rejoins while this server runs is closed at the next
/// start that finds it old enough.
///
/// ## The leaderboard
///
/// Every game store of the server holds one ``Leaderboard`` (``GameRoom/State/leaderboard``),
/// in a ``SharedStorage`` of the server's own (two servers in one process keep two boards);
/// the game that decides a win counts it, and on a server without a journal the `leaders`
/// frame shows that board as it is then (``Shared/latestValue``). The game stores do not receive the changes other games make
/// (``GameRoom/receivingLeaderboard()``): nothing in a game reads the board, and each win
/// would be an action for every game in progress, a cost that grows with the games at once.
///
/// On a durable server the board survives a restart without counting a win twice: the
/// journal counts each game's win as its end is journaled, keeps the board in its snapshots,
/// and the recovered server starts its board from the journal's, once the games that ended
/// before the crash (but whose end is not on disk) are ended (see ``Journal``). Replaying a
/// game to rebuild it counts on a board of its own. A durable server's `leaders` frame shows
/// the journal's board, not the live one (a game counts its win on that one before the win's
/// entries reach the journal), and is sent once the entry of the last game end on it is on
/// disk: it never shows a win that a crash could take back. A player's last `state` frame of a
/// game waits for the game's end to be on disk, so a winner who then asks sees the win.
public final class GameServer: Sendable {
  /// Settings of a server.
  public struct Configuration: Sendable {
    /// How long the server waits on a client (see ``Session``). 60 seconds by default.
    public var idleTimeout: Duration
    /// Where log lines go (one event per line, no newline); `nil` (the default) for none, and
    /// then no line is even formatted.
    public var log: (@Sendable (String) -> Void)?
    /// The executor the effects of every store of the server prefer (sessions, lobby, games);
    /// `nil` (the default) for the global concurrent executor. Tests give a `TestExecutor`, so
    /// that a `TestClock` runs the idle timers it wakes before it moves on.
    public var effectExecutor: (any TaskExecutor)?
    /// How long a recovered game may go without activity (a move or a rejoin) before it is
    /// closed as abandoned when a server recovers it (see "Abandoned games" above). One hour
    /// by default.
    public var abandonAfter: Duration
    /// Names a new game given its number (the lobby's count of games started, 1 for the first):
    /// `nil` (the default) keeps the lobby's `g1`, `g2`, … A cluster's shard gives ids that fall
    /// in the partition whose journal records the game, and that no other partition makes.
    public var gameID: (@Sendable (_ number: Int) -> String)?
    /// Pairs the players who `join` somewhere else than in this server's own lobby (a cluster's
    /// lobby, shared by its shards); `nil` (the default) pairs them here.
    public var matchmaker: Matchmaker?

    /// Creates a configuration.
    ///
    /// - Parameters:
    ///   - idleTimeout: How long the server waits on a client.
    ///   - log: Receives log lines.
    ///   - effectExecutor: The executor the stores' effects prefer.
    ///   - abandonAfter: How long a recovered game may go without activity.
    ///   - gameID: Names a new game given its number; `nil` for `g1`, `g2`, …
    ///   - matchmaker: Pairs the players who join elsewhere; `nil` to pair them here.
    public init(
      idleTimeout: Duration = .seconds(60), log: (@Sendable (String) -> Void)? = nil,
      effectExecutor: (any TaskExecutor)? = nil, abandonAfter: Duration = .seconds(3600),
      gameID: (@Sendable (_ number: Int) -> String)? = nil, matchmaker: Matchmaker? = nil
    ) {
      self.matchmaker = matchmaker
      self.idleTimeout = idleTimeout
      self.log = log
      self.effectExecutor = effectExecutor
      self.abandonAfter = abandonAfter
      self.gameID = gameID
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
    /// Recovered games closed as abandoned at start (see "Abandoned games" above).
    public var gamesAbandoned = 0
    /// Session entries alive (a session's store, link and fields), whether or not still in the
    /// server's table: more than ``sessions`` only while a closed session is being let go.
    public var sessionEntries = 0
    /// Session stores alive: each store's reducer, held by the store and by its idle timer's
    /// task, which ends shortly after the session closes.
    public var sessionStores = 0
    /// Game entries alive (a game's store, its observer, its seats), in the table or not.
    public var gameEntries = 0
    /// Clients waiting in the lobby's queue.
    public var queued = 0
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
  /// The wall clock that dates journaled activity: `\.date` as the server was made.
  let date: DateGenerator
  let abandonedCount = Atomic<Int>(0)
  /// Games started by ``startGame(x:o:)`` (a matchmaker's pairings), numbered after the lobby's.
  let matchedCount = Atomic<Int>(0)
  /// What the server holds: the objects alive of each kind (see ``Statistics``).
  let live = (sessionEntries: LiveCount(), sessionStores: LiveCount(), gameEntries: LiveCount())
  /// The journal, on a durable server.
  let journal: GameJournal?
  /// Wins per player name, shared by every game store (see "The leaderboard" above).
  let leaderboard: Shared<Leaderboard>

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
    self.date = dependencies.date
    let journaled = journal?.store.state ?? Journal.State()
    self.lobby = Store(
      initialState: Lobby.State(gamesStarted: journaled.gamesStarted),
      effectExecutor: configuration.effectExecutor
    ) {
      Lobby()
    }
    let now = date.now
    // First the games that ended, or are closed as abandoned: their ends are journaled, and
    // counted on the journal's board, before the server's board starts from it.
    var reopened: [(String, Journal.GameRecord, GameRoom.State)] = []
    var abandoned = 0
    for (id, record) in journaled.games.sorted(by: { $0.key < $1.key }) {
      switch Self.reopen(id, record, now: now, journal: journal, configuration: configuration) {
      case .rebuild(let state): reopened.append((id, record, state))
      case .over: break
      case .abandoned: abandoned += 1
      }
    }
    self.leaderboard = Leaderboard.inStorageOfItsOwn(journal?.store.leaderboard ?? Leaderboard())
    abandonedCount.add(abandoned, ordering: .relaxed)
    for (id, record, var state) in reopened {
      state.leaderboard = leaderboard
      _ = makeGame(id, state, tokens: (record.xToken, record.oToken))
      configuration.log?("game \(id) recovered after \(state.moves.count) moves")
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
      gamesStarted: lobby.gamesStarted + matchedCount.load(ordering: .relaxed),
      moves: moveCount.load(ordering: .relaxed),
      gamesAbandoned: abandonedCount.load(ordering: .relaxed),
      sessionEntries: live.sessionEntries.value, sessionStores: live.sessionStores.value,
      gameEntries: live.gameEntries.value, queued: lobby.waiting.count)
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
    // The reader also carries the count of live session stores: the store holds it through
    // its reducer, and so does its idle timer's task, so the count falls once both are gone.
    let storeCounted = Counted(live.sessionStores)
    let idleReader = IdleReader {
      _ = storeCounted
      return IdleReading(sawFrame: frames.take(), turn: Self.turn(of: fields))
    }
    let store = withDependencies {
      $0 = dependencies
    } operation: {
      Store(
        initialState: Session.State(id: id, idleTimeout: configuration.idleTimeout),
        effectExecutor: configuration.effectExecutor
      ) {
        Session(idleReader: idleReader)
      }
    }
    let entry = SessionEntry(
      id: id, store: store, fields: fields, frames: frames, link: link,
      journalLog: journal?.log, counted: Counted(live.sessionEntries))
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
  /// is sent `bye` and the link is closed. Closing a closed session does nothing. A session
  /// whose link was closed because the journal's storage was unavailable closes as
  /// ``CloseReason/unavailable``, whatever `reason` says; like ``CloseReason/shutdown``, that
  /// forfeits nothing: the player rejoins.
  ///
  /// - Parameters:
  ///   - id: The session.
  ///   - reason: Why it closes.
  public func disconnect(_ id: Int, reason: CloseReason) {
    guard let entry = sessions.withLock({ $0.removeValue(forKey: id) }) else { return }
    // The entry told its client already (`unavailable` error and `bye`) and closed its link.
    let isUnavailable = entry.closedAsUnavailable.load(ordering: .acquiring)
    let reason = isUnavailable ? CloseReason.unavailable : reason
    let fields = entry.withLock { fields in
      defer { fields = SessionEntry.Fields() }
      return fields
    }
    entry.store.send(.close(reason))
    fields.sessionToken?.cancel()
    if fields.isQueued {
      if let matchmaker = configuration.matchmaker {
        matchmaker.left(id)
      } else {
        lobby.send(.leave(session: id))
      }
    }
    // The room and side are kept apart from the session's phase, which an idle timeout has
    // already closed by the time this runs.
    if let game = fields.game, let player = fields.player {
      game.seats.withLock { $0[player] = nil }
      if reason != .shutdown && reason != .unavailable {
        game.store.send(.forfeit(player, reason == .idle ? .idle : .disconnected))
      }
    }
    if reason != .disconnected && !isUnavailable {
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
}
