import TicTacToeCore
import Unidirectional

/// One client connection: its name, where it is (lobby, queue, game), and its idle timer.
///
/// Each connection has its own store of this feature. The server observes ``State/phase`` and
/// pushes a `session` frame to the client whenever it changes; nothing else in this state is
/// sent to the client.
///
/// ## The idle timeout
///
/// The server waits on a client before it says hello, in the lobby, and during its own turn in
/// a game; it does not while the client waits on the server or on its opponent (queued, or the
/// opponent's turn), so a slow opponent never costs a player the game. A client the server has
/// waited on for the whole idle timeout, without a frame, is closed with ``CloseReason/idle``
/// (and its game, if any, is forfeited).
///
/// One timer per session ticks every quarter of the timeout, from connection to close, on
/// `@Dependency(\.continuousClock)` (tests drive it with `TestClock`). A tick counts while the
/// server waits on the client; a frame, or the server starting to wait, resets the count; the
/// fifth tick closes the session. So a client is closed after between 1 and 1.25 timeouts of
/// silence. Restarting a timer on every frame would create and cancel a task per move, which
/// costs more than the move.
///
/// The timer reads what happened since the last tick when it fires (through the
/// ``IdleReader`` the session was made with), and the tick carries it (an ``IdleReading``):
/// whether the client sent a frame, and in a game, the game's turn, which belongs to the game's
/// store. A frame, or a move count that changed since the last tick (the turn changed in
/// between), resets the count before the tick counts, which gives the count the session would
/// have had if told at once. So frames and moves cost the session store nothing, where a reset
/// per frame and a turn per move cost a store read per frame and two actions per move.
public struct Session: Reducer {
  /// Where the client is.
  public enum Phase: Equatable, Sendable {
    /// Connected; it has not said hello yet.
    case connected
    /// Named, in the lobby, not queued.
    case lobby
    /// Waiting for an opponent.
    case queued
    /// Playing `game` as `player` against `opponent`.
    case playing(game: String, player: Player, opponent: String)
    /// The session ended.
    case closed(CloseReason)
  }

  /// The session's state.
  public struct State: Equatable, Sendable {
    /// The session's id, unique on the server.
    public let id: Int
    /// How long the server waits on the client (see ``Session``).
    public let idleTimeout: Duration
    /// The client's name, once it said hello.
    public var name: String?
    /// Where the client is.
    public var phase = Phase.connected
    /// The last game the client played, so that a late move for it gets `game-over`.
    public var lastGame: String?
    /// Whether the server is waiting on the client, so that idle ticks count. In a game, as of
    /// the last tick (the tick reads the game's turn).
    public var awaitsClient = true
    /// In a game: the game's move count the last tick read; `nil` before the first.
    public var turnMoves: Int?
    /// Ticks (quarters of the idle timeout) counted while the server waited, since the last
    /// frame.
    public var idleTicks = 0

    /// Creates a session that has just connected.
    ///
    /// - Parameters:
    ///   - id: The session's id.
    ///   - idleTimeout: How long the server waits on the client.
    public init(id: Int, idleTimeout: Duration) {
      self.id = id
      self.idleTimeout = idleTimeout
    }

    /// The game being played, if any.
    public var game: String? {
      if case .playing(let game, _, _) = phase { game } else { nil }
    }

    /// The side played, if in a game.
    public var player: Player? {
      if case .playing(_, let player, _) = phase { player } else { nil }
    }
  }

  /// What happens to a session.
  public enum Action: Equatable, Sendable {
    /// The connection opened: the idle timer starts.
    case connected
    /// A quarter of the idle timeout passed, with what the timer read as it fired.
    case idleTick(IdleReading)
    /// The client said hello under `name`.
    case hello(name: String)
    /// The client queued for a game.
    case queued
    /// The client left the queue.
    case leftQueue
    /// The lobby paired the client into a game.
    case matched(game: String, player: Player, opponent: String)
    /// The client took its seat again in a game that survived a restart, under its name there.
    case rejoined(game: String, player: Player, opponent: String, name: String)
    /// The client's game ended (or the client left it); it is back in the lobby.
    case gameEnded
    /// The session ends, for `reason`: its timer is cancelled.
    case close(CloseReason)
  }

  enum TimerID: Hashable, Sendable { case idle }

  @Dependency(\.continuousClock) var clock
  /// What the timer reads each time it fires.
  let idleReader: IdleReader

  /// Creates the reducer.
  ///
  /// - Parameter idleReader: Reads, each time the idle timer fires, whether the client sent a
  ///   frame since the last tick and the turn of the game it plays. By default, never a frame
  ///   and no game: the session counts its ticks in a game only once the reader says it is its
  ///   turn.
  public init(idleReader: IdleReader = IdleReader { IdleReading(sawFrame: false, turn: nil) }) {
    self.idleReader = idleReader
  }

  /// Moves the session between phases and keeps its idle timer.
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    if case .closed = state.phase { return .none }
    switch action {
    case .connected:
      return .run { [clock, idleReader, tick = state.idleTimeout / Self.ticksPerTimeout] send in
        while true {
          try await clock.sleep(for: tick)
          await send(.idleTick(idleReader.read()))
        }
      }
      .cancellable(id: TimerID.idle, cancelInFlight: true)
    case .idleTick(let reading):
      // A frame since the last tick: the count starts again, from this tick.
      if reading.sawFrame, state.idleTicks != 0 { state.idleTicks = 0 }
      let turn = reading.turn
      if case .playing = state.phase {
        // No turn read (the game is gone, or the server has not seated the player yet): the
        // server is not waiting on this client.
        let isMine = turn?.isMine ?? false
        if let turn, turn.moves != state.turnMoves {
          // The turn changed since the last tick: the wait, if any, started within this tick.
          state.turnMoves = turn.moves
          if state.idleTicks != 0 { state.idleTicks = 0 }
        }
        if state.awaitsClient != isMine { state.awaitsClient = isMine }
      }
      guard state.awaitsClient else { return .none }
      state.idleTicks += 1
      guard state.idleTicks > Self.ticksPerTimeout else { return .none }
      state.phase = .closed(.idle)
      state.awaitsClient = false
      return .cancel(id: TimerID.idle)
    case .hello(let name):
      guard state.phase == .connected else { return .none }
      state.name = name
      state.phase = .lobby
      return .none
    case .queued:
      guard state.phase == .lobby else { return .none }
      state.phase = .queued
      return setAwaited(false, &state)
    case .leftQueue:
      guard state.phase == .queued else { return .none }
      state.phase = .lobby
      return setAwaited(true, &state)
    case .matched(let game, let player, let opponent):
      guard state.phase == .queued else { return .none }
      state.phase = .playing(game: game, player: player, opponent: opponent)
      state.turnMoves = nil
      return setAwaited(player == .x, &state)
    case .rejoined(let game, let player, let opponent, let name):
      guard state.phase == .connected || state.phase == .lobby else { return .none }
      state.name = name
      state.phase = .playing(game: game, player: player, opponent: opponent)
      state.turnMoves = nil
      return .none
    case .gameEnded:
      guard let game = state.game else { return .none }
      state.lastGame = game
      state.phase = .lobby
      state.turnMoves = nil
      return setAwaited(true, &state)
    case .close(let reason):
      state.phase = .closed(reason)
      state.awaitsClient = false
      state.idleTicks = 0
      return .cancel(id: TimerID.idle)
    }
  }

  /// The idle timeout is counted in this many ticks; the session closes on the one after.
  static let ticksPerTimeout = 4

  private func setAwaited(_ awaited: Bool, _ state: inout State) -> Effect<Action> {
    if state.awaitsClient != awaited { state.awaitsClient = awaited }
    if state.idleTicks != 0 { state.idleTicks = 0 }
    return .none
  }
}

/// Whose turn it is in a game, as a session's idle timer reads it when it fires.
public struct GameTurn: Equatable, Sendable {
  /// Whether the server waits on the session's player: the game is on and it is its turn.
  public var isMine: Bool
  /// The game's accepted moves: a count that changed since the last tick means the turn
  /// changed in between.
  public var moves: Int

  /// Creates a reading.
  ///
  /// - Parameters:
  ///   - isMine: Whether the game is on and it is the session's player's turn.
  ///   - moves: The game's accepted moves.
  public init(isMine: Bool, moves: Int) {
    self.isMine = isMine
    self.moves = moves
  }
}

/// What a session's idle timer read as it fired.
public struct IdleReading: Equatable, Sendable {
  /// Whether the client sent a frame (any frame, valid or not) since the last tick.
  public var sawFrame: Bool
  /// The turn of the game the session plays, or `nil` if it plays none.
  public var turn: GameTurn?

  /// Creates a reading.
  ///
  /// - Parameters:
  ///   - sawFrame: Whether the client sent a frame since the last tick.
  ///   - turn: The turn of the session's game, or `nil` if it plays none.
  public init(sawFrame: Bool, turn: GameTurn?) {
    self.sawFrame = sawFrame
    self.turn = turn
  }
}

/// Reads what a session's idle timer needs each time it fires (see ``Session``).
///
/// It is called on the timer's task, once per tick, outside any store's reducer or observer, so
/// it may read the game's store.
public struct IdleReader: Sendable {
  /// Returns whether the client sent a frame since the last call, and its game's turn.
  public var read: @Sendable () -> IdleReading

  /// Creates a reader.
  ///
  /// - Parameter read: Returns whether the client sent a frame since the last call, and the
  ///   turn of the game it plays.
  public init(_ read: @escaping @Sendable () -> IdleReading) {
    self.read = read
  }
}
