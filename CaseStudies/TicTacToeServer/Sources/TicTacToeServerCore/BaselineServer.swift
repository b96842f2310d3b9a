import Synchronization
import TicTacToeCore
import Unidirectional

/// The load test's **baseline**: the game server without `Store`. It reduces with the same
/// reducers (``Lobby``, ``GameRoom``, ``Session``), calling their `reduce(into:action:)` on plain
/// state under a lock, and routes frames as ``GameServer`` does; it serves the same protocol,
/// on the same event loop, with the same frame parser and encoder.
///
/// It is a yardstick, not a second server: the load tool (`tictactoe-load --yardstick`) runs it
/// and ``GameServer`` in turn with the same clients and compares the server CPU each spends per
/// move. What the baseline leaves out is what a store adds: observation (a change is found by
/// comparing the few values a frame shows, where the server's observers track their reads),
/// effects (the session's idle timer is a task of the baseline's own, see below), interceptors
/// and the journal (no durability: no `--data-dir`, and `rejoin` finds no seat).
///
/// ## Serialization
///
/// As in ``GameServer``, each game is reduced one action at a time: a lock per game guards its
/// state and its seats, and a move is checked, reduced and its `state` frame encoded and queued
/// for both players under that lock (where a store holds its lock for the reduce and runs its
/// observer after). A lock per session guards the session's state; its `session` frame is queued
/// under it, so a client's frames keep their order. The lobby has its own lock. No lock is
/// taken while another of these is held, except a connection's output buffer's.
///
/// ## Effects
///
/// ``Lobby`` and ``GameRoom`` return no effects. ``Session`` returns one: on
/// ``Session/Action/connected``, its idle timer, a task that ticks every quarter of the timeout
/// on the clock; on closing, its cancellation. The baseline cannot run an `Effect` without a
/// store, so it runs an equivalent timer, started on `connected` and cancelled when the session
/// closes: a task that sleeps a quarter of the timeout on the same clock
/// (`@Dependency(\.continuousClock)` as the server was made) and on the same executor preference,
/// then reduces `idleTick` with the same ``IdleReading``. So the baseline pays for one sleeping
/// task per connection, as the server does, and times clients out the same way.
///
/// ## Differences from the server
///
/// No journal, so no durability and no seat tokens. The leaderboard is a ``Shared`` in a
/// storage of the baseline's own, counted by the same reducer as the server's. Frames that
/// reach a session while another thread is in the middle of telling it something wait for that
/// thread (a store would queue them and return): the event loop sends every frame from one
/// thread, so this only orders a frame behind an idle timer's tick.
public final class BaselineServer: Sendable {
  let configuration: GameServer.Configuration
  /// The dependencies in force at creation: the idle timers use their clock.
  let dependencies: DependencyValues
  let lobby = Locked(Lobby.State())
  let sessions = Locked<[Int: BaselineSession]>([:])
  let games = Locked<[String: BaselineGame]>([:])
  let nextSession = Atomic<Int>(1)
  let moveCount = Atomic<Int>(0)
  /// Wins per player name, shared by every game (see ``GameServer``'s "The leaderboard").
  let leaderboard = Leaderboard.inStorageOfItsOwn()

  /// Creates a baseline server; its settings are a ``GameServer``'s (the idle timeout, the log,
  /// the executor its idle timers prefer).
  ///
  /// - Parameter configuration: Its settings.
  public init(configuration: GameServer.Configuration = GameServer.Configuration()) {
    self.configuration = configuration
    let dependencies = DependencyValues.current
    self.dependencies = dependencies
    // As a store given a test executor does: a test clock drains it as it wakes the timers.
    if let executor = configuration.effectExecutor as? TestExecutor,
      let clock = dependencies.continuousClock as? TestClock
    {
      clock.attach(executor)
    }
  }

  deinit {
    // The timers hold their sessions, not the server: stop them with it.
    for session in sessions.withLock({ $0.values }) {
      session.timer.withLock { $0 }?.cancel()
    }
  }

  /// The server's counts now.
  public var statistics: GameServer.Statistics {
    GameServer.Statistics(
      sessions: sessions.withLock(\.count), games: games.withLock(\.count),
      gamesStarted: lobby.withLock(\.gamesStarted), moves: moveCount.load(ordering: .relaxed))
  }

  /// Opens a session for a new client (see ``GameServer/connect(_:)``).
  ///
  /// - Parameter link: How to reach the client.
  /// - Returns: The session's id.
  public func connect(_ link: ClientLink) -> Int {
    let id = nextSession.add(1, ordering: .relaxed).oldValue
    let fields = Locked(BaselineSession.Fields())
    let frames = FrameSignal()
    let idleReader = IdleReader {
      IdleReading(sawFrame: frames.take(), turn: Self.turn(of: fields))
    }
    let session = BaselineSession(
      id: id, state: Session.State(id: id, idleTimeout: configuration.idleTimeout),
      reducer: withDependencies {
        $0 = dependencies
      } operation: {
        Session(idleReader: idleReader)
      },
      fields: fields, frames: frames, link: link)
    sessions.withLock { $0[id] = session }
    // The server's observer of the session runs once as it registers, which sends this frame.
    session.deliver(.session(name: nil, phase: .connected))
    send(.connected, to: session)
    return id
  }

  /// Handles one frame from a client (see ``GameServer/receive(_:from:)``).
  ///
  /// - Parameters:
  ///   - line: The frame, without its newline.
  ///   - id: The session it came from. Frames of a closed session are ignored.
  public func receive(_ line: some Collection<UInt8>, from id: Int) {
    guard let session = sessions.withLock({ $0[id] }) else { return }
    session.frames.signal()
    do throws(FrameError) {
      let frame = try ClientFrame.decode(line)
      try handle(frame, session)
    } catch {
      let seq: Int? =
        if case .move(_, _, let seq)? = try? ClientFrame.decode(line) { seq } else { nil }
      session.deliver(.error(code: error.code.name, message: error.message, seq: seq))
    }
  }

  /// Closes a session (see ``GameServer/disconnect(_:reason:)``).
  ///
  /// - Parameters:
  ///   - id: The session.
  ///   - reason: Why it closes.
  public func disconnect(_ id: Int, reason: CloseReason) {
    guard let session = sessions.withLock({ $0.removeValue(forKey: id) }) else { return }
    let fields = session.fields.withLock { fields in
      defer { fields = BaselineSession.Fields() }
      return fields
    }
    send(.close(reason), to: session)
    if fields.isQueued { sendLobby(.leave(session: id)) }
    if let game = fields.game, let player = fields.player {
      game.room.withLock { $0.seats[player] = nil }
      if reason != .shutdown {
        send(.forfeit(player, reason == .idle ? .idle : .disconnected), to: game)
      }
    }
    if reason != .disconnected {
      session.deliver(.bye(reason))
      session.link.close()
    }
    configuration.log?("session \(id) closed (\(reason.rawValue))")
  }

  /// Closes every session with ``CloseReason/shutdown``.
  public func shutdown() {
    let ids = sessions.withLock { Array($0.keys) }
    for id in ids.sorted() { disconnect(id, reason: .shutdown) }
  }

  /// Reduces a session action on the session's state, under its lock; queues the `session`
  /// frame if its phase or name changed, and keeps its idle timer.
  func send(_ action: Session.Action, to session: BaselineSession) {
    let closed = session.state.withLock { state -> CloseReason? in
      let before = (phase: state.phase, name: state.name)
      // The effect is the timer's start or its cancellation, which the baseline does itself
      // (see "Effects" above): a value dropped here.
      _ = session.reducer.reduce(into: &state, action: action)
      if case .connected = action { startTimer(session) }
      guard state.phase != before.phase || state.name != before.name else { return nil }
      if case .closed(let reason) = state.phase { return reason }
      session.deliver(.session(name: state.name, phase: state.phase))
      return nil
    }
    guard let closed else { return }
    session.timer.withLock { $0 }?.cancel()
    // As the server's observer does: a session its timer closed is disconnected.
    disconnect(session.id, reason: closed)
  }

  /// Starts a session's idle timer: every quarter of the timeout, an `idleTick` with what the
  /// reader reads (the effect ``Session`` returns for ``Session/Action/connected``).
  private func startTimer(_ session: BaselineSession) {
    let tick = configuration.idleTimeout / Session.ticksPerTimeout
    let clock = dependencies.continuousClock
    let task = Task(executorPreference: configuration.effectExecutor) { [weak self, session] in
      while true {
        do { try await clock.sleep(for: tick) } catch { return }
        let reading = session.reducer.idleReader.read()
        guard let self, !Task.isCancelled else { return }
        self.send(.idleTick(reading), to: session)
      }
    }
    session.timer.withLock { $0 = task }
  }

  /// Reduces a lobby action; opens the game of a new pairing.
  func sendLobby(_ action: Lobby.Action) {
    let pairing = lobby.withLock { state -> Lobby.Pairing? in
      let before = state.lastPairing
      _ = Lobby().reduce(into: &state, action: action)
      return state.lastPairing != before ? state.lastPairing : nil
    }
    if let pairing { start(pairing) }
  }

  /// The turn of the game a session is seated in, for its idle timer; `nil` if it is in none.
  static func turn(of fields: Locked<BaselineSession.Fields>) -> GameTurn? {
    guard
      let (game, player) = fields.withLock({ fields in fields.game.map { ($0, fields.player) } }),
      let player
    else { return nil }
    return game.room.withLock { room in
      let moves = room.state.moves.count
      guard room.state.outcome == nil else { return GameTurn(isMine: false, moves: moves) }
      return GameTurn(isMine: room.state.game.currentPlayer == player, moves: moves)
    }
  }
}
