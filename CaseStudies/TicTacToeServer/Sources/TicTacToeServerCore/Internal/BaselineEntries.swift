import TicTacToeCore
import Unidirectional

/// What the baseline keeps for one connection: the session's plain state under its lock, the
/// reducer that changes it, the idle timer, and the link (see ``BaselineServer``).
final class BaselineSession: Sendable {
  /// What routing reads without the session's state, as ``SessionEntry/Fields`` (kept apart for
  /// the same reasons: the idle timer reads the seat, and `join` right after `hello` finds the
  /// name).
  struct Fields {
    var game: BaselineGame?
    var player: Player?
    var isQueued = false
    var name: String?
  }

  let id: Int
  let state: Locked<Session.State>
  let reducer: Session
  let fields: Locked<Fields>
  let frames: FrameSignal
  let link: ClientLink
  /// The idle timer's task, from `connected` until the session closes.
  let timer = Locked<Task<Void, Never>?>(nil)

  init(
    id: Int, state: Session.State, reducer: Session, fields: Locked<Fields>, frames: FrameSignal,
    link: ClientLink
  ) {
    self.id = id
    self.state = Locked(state)
    self.reducer = reducer
    self.fields = fields
    self.frames = frames
    self.link = link
  }

  /// Queues a frame for the client.
  func deliver(_ frame: ServerFrame) {
    link.deliver(frame)
  }

  /// Queues a frame already encoded (a `state` frame is encoded once for both players).
  func deliver(_ frame: ServerFrame, bytes: [UInt8]) {
    if let deliverBytes = link.deliverBytes { deliverBytes(bytes) } else { link.deliver(frame) }
  }
}

/// What the baseline keeps for one game: its plain state and its seats, under the game's one
/// lock.
final class BaselineGame: Sendable {
  /// The game's state and who sits in its seats.
  struct Room {
    var state: GameRoom.State
    var seats = Seats()
  }

  /// X's seat and O's.
  struct Seats {
    var x: BaselineSession?
    var o: BaselineSession?

    subscript(player: Player) -> BaselineSession? {
      get { player == .x ? x : o }
      set {
        if player == .x { x = newValue } else { o = newValue }
      }
    }
  }

  let id: String
  /// The game's lock: every action of the game is reduced, and its frames queued, under it.
  let room: Locked<Room>

  init(id: String, state: GameRoom.State) {
    self.id = id
    self.room = Locked(Room(state: state))
  }
}
