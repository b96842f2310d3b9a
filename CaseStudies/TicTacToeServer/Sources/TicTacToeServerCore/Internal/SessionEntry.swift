import TicTacToeCore
import Unidirectional

/// What the server keeps for one connection: its session store, its link, and the observers
/// that push to it.
final class SessionEntry: Sendable {
  struct Fields {
    /// The observer of the session's phase.
    var sessionToken: ObservationToken?
    /// The observer of the game being played.
    var gameToken: ObservationToken?
    /// The game being played.
    var room: Store<GameRoom.State, GameRoom.Action>?
    /// The side played in `room`.
    var player: Player?
  }

  let id: Int
  let store: Store<Session.State, Session.Action>
  let link: ClientLink
  let fields = Locked(Fields())

  init(id: Int, store: Store<Session.State, Session.Action>, link: ClientLink) {
    self.id = id
    self.store = store
    self.link = link
  }

  func withLock<R>(_ body: (inout Fields) -> R) -> R {
    fields.withLock(body)
  }

  func withLock<R>(_ keyPath: KeyPath<Fields, R>) -> R {
    fields.withLock { $0[keyPath: keyPath] }
  }
}

/// What the server keeps for one game: its store, and the server's own observer of it.
final class GameEntry: Sendable {
  let store: Store<GameRoom.State, GameRoom.Action>
  let keeper = Locked<ObservationToken?>(nil)

  init(store: Store<GameRoom.State, GameRoom.Action>) {
    self.store = store
  }
}
