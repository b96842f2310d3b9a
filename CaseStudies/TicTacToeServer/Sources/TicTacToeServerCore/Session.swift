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
/// The timer runs only while the server waits on the client: before it says hello, in the
/// lobby, and during its own turn in a game. It does not run while the client waits on the
/// server or on its opponent (queued, or the opponent's turn), so a slow opponent never costs a
/// player the game. Every frame the client sends restarts a running timer. When it fires, the
/// session closes with ``CloseReason/idle`` (and its game, if any, is forfeited). The timer
/// sleeps on `@Dependency(\.continuousClock)`, so tests drive it with `TestClock`.
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
    /// Whether the server is waiting on the client, so that the idle timer runs.
    public var awaitsClient = true

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
    /// The game's turn changed: whether it is now the client's.
    case turnChanged(isMine: Bool)
    /// The client's game ended (or the client left it); it is back in the lobby.
    case gameEnded
    /// The idle timer fired.
    case idleTimedOut
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
      return timer(state)
    case .frameReceived:
      return state.awaitsClient ? timer(state) : .none
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
    case .turnChanged(let isMine):
      guard state.game != nil else { return .none }
      return setAwaited(isMine, &state)
    case .gameEnded:
      guard let game = state.game else { return .none }
      state.lastGame = game
      state.phase = .lobby
      return setAwaited(true, &state)
    case .idleTimedOut:
      state.phase = .closed(.idle)
      state.awaitsClient = false
      return .none
    case .close(let reason):
      state.phase = .closed(reason)
      state.awaitsClient = false
      return .cancel(id: TimerID.idle)
    }
  }

  private func setAwaited(_ awaited: Bool, _ state: inout State) -> Effect<Action> {
    guard state.awaitsClient != awaited else { return .none }
    state.awaitsClient = awaited
    return timer(state)
  }

  /// Restarts the idle timer if the server waits on the client, or stops it.
  private func timer(_ state: State) -> Effect<Action> {
    guard state.awaitsClient else { return .cancel(id: TimerID.idle) }
    return .run { [clock, timeout = state.idleTimeout] send in
      try await clock.sleep(for: timeout)
      await send(.idleTimedOut)
    }
    .cancellable(id: TimerID.idle, cancelInFlight: true)
  }
}
