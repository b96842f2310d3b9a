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
    /// Whether the server is waiting on the client, so that idle ticks count.
    public var awaitsClient = true
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
    /// A quarter of the idle timeout passed.
    case idleTick
    /// The client sent a frame (any frame, valid or not).
    case frameReceived
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
    /// The game's turn changed: whether it is now the client's.
    case turnChanged(isMine: Bool)
    /// The client's game ended (or the client left it); it is back in the lobby.
    case gameEnded
    /// The session ends, for `reason`: its timer is cancelled.
    case close(CloseReason)
  }

  enum TimerID: Hashable, Sendable { case idle }

  @Dependency(\.continuousClock) var clock

  /// Creates the reducer.
  public init() {}

  /// Moves the session between phases and keeps its idle timer.
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    if case .closed = state.phase { return .none }
    switch action {
    case .connected:
      return .run { [clock, tick = state.idleTimeout / Self.ticksPerTimeout] send in
        while true {
          try await clock.sleep(for: tick)
          await send(.idleTick)
        }
      }
      .cancellable(id: TimerID.idle, cancelInFlight: true)
    case .idleTick:
      guard state.awaitsClient else { return .none }
      state.idleTicks += 1
      guard state.idleTicks > Self.ticksPerTimeout else { return .none }
      state.phase = .closed(.idle)
      state.awaitsClient = false
      return .cancel(id: TimerID.idle)
    case .frameReceived:
      if state.idleTicks != 0 { state.idleTicks = 0 }
      return .none
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
      return setAwaited(player == .x, &state)
    case .rejoined(let game, let player, let opponent, let name):
      guard state.phase == .connected || state.phase == .lobby else { return .none }
      state.name = name
      state.phase = .playing(game: game, player: player, opponent: opponent)
      return .none
    case .turnChanged(let isMine):
      guard state.game != nil else { return .none }
      return setAwaited(isMine, &state)
    case .gameEnded:
      guard let game = state.game else { return .none }
      state.lastGame = game
      state.phase = .lobby
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
