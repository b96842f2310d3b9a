import Synchronization
import TicTacToeCore
import Unidirectional

/// What the server keeps for one connection: its session store, its link, and the observers
/// that push to it.
final class SessionEntry: Sendable {
  struct Fields {
    /// The observer of the session's phase.
    var sessionToken: ObservationToken?
    /// The game being played.
    var game: GameEntry?
    /// The side played in `game`.
    var player: Player?
    /// Whether the session is in the lobby's queue: set by `join`, cleared by `leave`, a
    /// disconnect or being seated. Kept here, not read from the session's phase: an action sent
    /// to the session's store waits while another thread holds it (the lobby or a game sending
    /// it theirs), and the client's next frame would read the phase before it.
    var isQueued = false
    /// The name the client said `hello` with (or took back with `rejoin`): kept here for the same
    /// reason, so that a `join` right after `hello` finds it.
    var name: String?
  }

  /// Frames held back until what they report is durable (durable servers only).
  ///
  /// A frame that reports a journaled change waits for its journal entry; every frame waits for
  /// the frames before it, so a client sees its frames in the order they were made.
  struct Outbox {
    struct Held {
      var id: Int
      /// The frame; `nil` closes the link.
      var frame: ServerFrame?
      var isReady: Bool
    }
    var held: [Held] = []
    var nextID = 0
  }

  let id: Int
  let store: Store<Session.State, Session.Action>
  let link: ClientLink
  /// Shared with the session's idle timer, which reads the game and side from it.
  let fields: Locked<Fields>
  /// Raised by each frame from the client, taken by the session's idle timer.
  let frames: FrameSignal
  /// The journal's log on a durable server.
  let journalLog: DurableActionLog<Journal.Action>?
  let outbox = Locked(Outbox())
  /// Counts this entry among the server's live session entries while it lives.
  let counted: Counted
  /// Set before the entry closes its link because the journal's storage is unavailable: the
  /// session then closes as ``CloseReason/unavailable`` whatever the connection's end says, so
  /// that its game is not forfeited and the player can rejoin.
  let closedAsUnavailable = Atomic(false)

  init(
    id: Int, store: Store<Session.State, Session.Action>, fields: Locked<Fields>,
    frames: FrameSignal, link: ClientLink, journalLog: DurableActionLog<Journal.Action>?,
    counted: Counted
  ) {
    self.counted = counted
    self.id = id
    self.store = store
    self.fields = fields
    self.frames = frames
    self.link = link
    self.journalLog = journalLog
  }

  func withLock<R>(_ body: (inout Fields) -> R) -> R {
    fields.withLock(body)
  }

  func withLock<R>(_ keyPath: KeyPath<Fields, R>) -> R {
    fields.withLock { $0[keyPath: keyPath] }
  }

  /// Closes the link once every frame before it was sent.
  func close() {
    let closesNow = outbox.withLock { outbox -> Bool in
      guard !outbox.held.isEmpty else { return true }
      outbox.held.append(Outbox.Held(id: outbox.nextID, frame: nil, isReady: true))
      outbox.nextID += 1
      return false
    }
    if closesNow { link.close() }
  }

  /// Sends a frame to the client; on a durable server, once `task`'s journal entry is durable
  /// and every frame before it was sent.
  ///
  /// If the journal fails, a frame waiting for it is never sent: the client is told the server
  /// stops serving it and the connection closes (acknowledging a move that may not be on disk
  /// would be a lie).
  func deliver(_ frame: ServerFrame, after task: StoreTask? = nil) {
    guard let journalLog else {
      link.deliver(frame)
      return
    }
    deliverDurably(frame, after: task, journalLog)
  }

  /// Sends a frame already encoded as `bytes` (see ``deliver(_:after:)``): a game's `state`
  /// frame is encoded once for both players.
  func deliver(_ frame: ServerFrame, bytes: [UInt8], after task: StoreTask?) {
    guard let journalLog else {
      if let deliverBytes = link.deliverBytes { deliverBytes(bytes) } else { link.deliver(frame) }
      return
    }
    deliverDurably(frame, after: task, journalLog)
  }

  private func deliverDurably(
    _ frame: ServerFrame, after task: StoreTask?, _ journalLog: DurableActionLog<Journal.Action>
  ) {
    let held = outbox.withLock { outbox -> Int? in
      if outbox.held.isEmpty, task == nil {
        // Delivered under the lock, so that no frame made later overtakes it.
        link.deliver(frame)
        return nil
      }
      let id = outbox.nextID
      outbox.nextID += 1
      outbox.held.append(Outbox.Held(id: id, frame: frame, isReady: task == nil))
      return id
    }
    guard let held, let task else { return }
    journalLog.whenDurable(task) { [self] failure in
      if let failure {
        outbox.withLock { $0.held = [] }
        if case .unavailable(let why) = failure.reason {
          // Before the client can read `bye` and hang up: that end of the connection closes the
          // session as unavailable, not as a disconnect that forfeits its game.
          closedAsUnavailable.store(true, ordering: .releasing)
          // The journal goes on once its storage is back: the client comes back then.
          link.deliver(
            .error(
              code: "unavailable",
              message: "the server's journal cannot be written (\(why)): nothing since your "
                + "last reply is acknowledged; rejoin with your seat token in a moment",
              seq: nil))
          link.deliver(.bye(.unavailable))
        } else {
          link.deliver(.bye(.shutdown))
        }
        link.close()
        return
      }
      outbox.withLock { outbox in
        if let index = outbox.held.firstIndex(where: { $0.id == held }) {
          outbox.held[index].isReady = true
        }
        while let first = outbox.held.first, first.isReady {
          if let frame = first.frame { link.deliver(frame) } else { link.close() }
          outbox.held.removeFirst()
        }
      }
    }
  }
}

/// Whether a client sent a frame since its idle timer last looked: a flag the loop raises per
/// frame (a relaxed store, where a read of the session's store costs a gate and a key path), and
/// the timer takes once per tick.
final class FrameSignal: Sendable {
  private let raised = Atomic(false)

  /// Notes a frame.
  func signal() {
    raised.store(true, ordering: .relaxed)
  }

  /// Whether a frame came since the last call.
  func take() -> Bool {
    raised.exchange(false, ordering: .relaxed)
  }
}

/// What the server keeps for one game: its store, the server's one observer of it, who sits in
/// its seats, and, on a durable server, its seat tokens and its last journal entry.
final class GameEntry: Sendable {
  /// A session in a seat, and the last view of the game it was sent.
  ///
  /// The entry is held strongly (a weak reference costs more on every copy): the seat is
  /// emptied when the session closes and when the game ends, which ends the cycle.
  struct Seat {
    let id: Int
    var entry: SessionEntry
    /// The move count and whether the game was over, in the last `state` frame sent: the view
    /// is a function of these two, so a seat is never sent the same view twice, nor an older one.
    var shown: (moves: Int, isOver: Bool)?
  }

  /// X's seat and O's: two fields, not a dictionary, which hashed the player on every access.
  struct Seats {
    var x: Seat?
    var o: Seat?

    subscript(player: Player) -> Seat? {
      get { player == .x ? x : o }
      set {
        if player == .x { x = newValue } else { o = newValue }
      }
    }

    var isEmpty: Bool { x == nil && o == nil }
  }

  /// The game's id (the store's, kept here so that routing a move reads no store).
  let id: String
  let store: Store<Game.State, Game.Action>
  /// The observer that pushes the game to its seats and closes it once it is over.
  let keeper = Locked<ObservationToken?>(nil)
  /// The seat tokens, X's then O's (durable servers only).
  let tokens: (x: String, o: String)?
  /// The players' names.
  let names: (x: String, o: String)
  /// The sessions in the seats now. Frames of the game are sent under this lock, so that a
  /// seat taken while the observer runs gets every view once, in order.
  let seats = Locked(Seats())
  /// The task of the journal entry of the game's last change: frames reporting it wait for it.
  let lastJournalTask: Locked<StoreTask?>
  /// Counts this entry (and with it its store) among the server's live game entries.
  let counted: Counted

  typealias Game = GameRoom

  init(
    id: String, store: Store<GameRoom.State, GameRoom.Action>, names: (x: String, o: String),
    tokens: (x: String, o: String)?, lastJournalTask: Locked<StoreTask?>, counted: Counted
  ) {
    self.counted = counted
    self.id = id
    self.store = store
    self.names = names
    self.tokens = tokens
    self.lastJournalTask = lastJournalTask
  }
}
