import Foundation
import Testing
import TicTacToeCore
import TicTacToeServerCore
import Unidirectional
import UnidirectionalTestSupport

/// A client of a `GameServer` in memory: the frames it was sent, and whether it was closed.
final class RecordingClient: Sendable {
  let frames = Locked<[ServerFrame]>([])
  let closed = Locked(false)
  let id: Int
  let server: GameServer

  init(_ server: GameServer) {
    let frames = self.frames
    let closed = self.closed
    self.server = server
    self.id = server.connect(
      ClientLink(
        deliver: { frame in frames.withLock { $0.append(frame) } },
        close: { closed.withLock { $0 = true } }))
  }

  /// Sends a frame as the client would write it.
  func send(_ json: String) {
    server.receive(Array(json.utf8), from: id)
  }

  /// The frames received since the last call.
  func take() -> [ServerFrame] {
    frames.withLock { frames in
      defer { frames = [] }
      return frames
    }
  }
}

/// The server's routing, without sockets: who is sent which frame.
@Suite struct GameServerTests {
  static func view(
    _ board: [String], turn: Player, moves: Int, last: GameRoom.Move?,
    outcome: GameRoom.Outcome? = nil
  ) -> ServerFrame {
    .state(
      GameView(
        game: "g1", board: Board(board), turn: turn, moveCount: moves, lastMove: last,
        outcome: outcome))
  }

  /// Ann (X) and Bob (O) in game g1, their frames so far taken.
  static func startGame(_ server: GameServer) -> (RecordingClient, RecordingClient) {
    let ann = RecordingClient(server)
    let bob = RecordingClient(server)
    ann.send(#"{"type":"hello","name":"Ann"}"#)
    bob.send(#"{"type":"hello","name":" Bob "}"#)
    ann.send(#"{"type":"join"}"#)
    bob.send(#"{"type":"join"}"#)
    #expect(
      ann.take() == [
        .session(name: nil, phase: .connected), .session(name: "Ann", phase: .lobby),
        .session(name: "Ann", phase: .queued),
        .session(name: "Ann", phase: .playing(game: "g1", player: .x, opponent: "Bob")),
        view(["...", "...", "..."], turn: .x, moves: 0, last: nil),
      ])
    #expect(
      bob.take() == [
        .session(name: nil, phase: .connected), .session(name: "Bob", phase: .lobby),
        .session(name: "Bob", phase: .queued),
        .session(name: "Bob", phase: .playing(game: "g1", player: .o, opponent: "Ann")),
        view(["...", "...", "..."], turn: .x, moves: 0, last: nil),
      ])
    return (ann, bob)
  }

  @Test func aGameFromHelloToWin() {
    let server = GameServer()
    let (ann, bob) = Self.startGame(server)
    let moves = [(ann, 0), (bob, 3), (ann, 1), (bob, 4)]
    for (seq, (client, cell)) in moves.enumerated() {
      client.send(#"{"type":"move","game":"g1","cell":\#(cell),"seq":\#(seq)}"#)
      _ = (ann.take(), bob.take())
    }
    ann.send(#"{"type":"move","game":"g1","cell":2,"seq":9}"#)
    let end = Self.view(
      ["XXX", "OO.", "..."], turn: .x, moves: 5, last: GameRoom.Move(player: .x, cell: 2, seq: 9),
      outcome: .won(.x))
    #expect(ann.take() == [end, .session(name: "Ann", phase: .lobby)])
    #expect(bob.take() == [end, .session(name: "Bob", phase: .lobby)])
    #expect(server.statistics.games == 0 && server.statistics.moves == 5)
    // A late move for the finished game, and a new game.
    bob.send(#"{"type":"move","game":"g1","cell":5,"seq":10}"#)
    #expect(
      bob.take() == [.error(code: "game-over", message: "game g1 is over", seq: 10)])
    #expect(ann.take() == [])
  }

  @Test func badFramesAreAnsweredToTheirSenderOnly() {
    let server = GameServer()
    let (ann, bob) = Self.startGame(server)
    let cases: [(RecordingClient, String, String)] = [
      (ann, "{not json", "bad-json"),
      (ann, "[1,2]", "bad-json"),
      (ann, #"{"type":"dance"}"#, "unknown-type"),
      (ann, #"{"name":"Ann"}"#, "missing-field"),
      (ann, #"{"type":"move","game":"g1","cell":"four","seq":1}"#, "bad-field"),
      (ann, #"{"type":"move","game":"g1","seq":1}"#, "missing-field"),
      (ann, #"{"type":"hello","name":"Ann"}"#, "wrong-phase"),
      (ann, #"{"type":"join"}"#, "wrong-phase"),
      (bob, #"{"type":"move","game":"g1","cell":4,"seq":1}"#, "not-your-turn"),
      (ann, #"{"type":"move","game":"g1","cell":9,"seq":1}"#, "bad-cell"),
      (ann, #"{"type":"move","game":"g77","cell":4,"seq":1}"#, "unknown-game"),
    ]
    for (client, frame, code) in cases {
      client.send(frame)
      let other = client === ann ? bob : ann
      let frames = client.take()
      #expect(frames.count == 1, "\(frame)")
      if case .error(let got, _, _)? = frames.first {
        #expect(got == code, "\(frame)")
      } else {
        Issue.record("\(frame) got \(frames)")
      }
      #expect(other.take() == [], "\(frame)")
    }
    // The game is intact: Ann's first move goes through.
    ann.send(#"{"type":"move","game":"g1","cell":4,"seq":1}"#)
    let after = Self.view(
      ["...", ".X.", "..."], turn: .o, moves: 1, last: GameRoom.Move(player: .x, cell: 4, seq: 1))
    #expect(ann.take() == [after])
    #expect(bob.take() == [after])
    bob.send(#"{"type":"move","game":"g1","cell":4,"seq":1}"#)
    #expect(bob.take().count == 1)
    #expect(ann.take() == [])
    // A third client cannot play in g1.
    let cy = RecordingClient(server)
    cy.send(#"{"type":"join"}"#)
    cy.send(#"{"type":"hello","name":"Cy"}"#)
    cy.send(#"{"type":"move","game":"g1","cell":0,"seq":1}"#)
    cy.send(#"{"type":"leave"}"#)
    cy.send(#"{"type":"ping"}"#)
    let codes = cy.take().map { frame -> String in
      switch frame {
      case .session(_, let phase): "session \(phase)"
      case .error(let code, _, _): code
      default: frame.line
      }
    }
    #expect(
      codes == [
        "session connected", "no-name", "session lobby", "not-a-player", "wrong-phase",
        "{\"type\":\"pong\"}\n",
      ])
    #expect(ann.take() == [] && bob.take() == [])
  }

  @Test func aDisconnectForfeitsAndTheOpponentIsToldOnce() {
    let server = GameServer()
    let (ann, bob) = Self.startGame(server)
    ann.send(#"{"type":"move","game":"g1","cell":4,"seq":1}"#)
    _ = (ann.take(), bob.take())
    server.disconnect(ann.id, reason: .disconnected)
    #expect(ann.take() == [])  // Gone: nothing more is sent to it.
    #expect(!ann.closed.withLock { $0 })  // The transport closed it already.
    #expect(
      bob.take() == [
        Self.view(
          ["...", ".X.", "..."], turn: .o, moves: 1,
          last: GameRoom.Move(player: .x, cell: 4, seq: 1),
          outcome: .forfeit(loser: .x, reason: .disconnected)),
        .session(name: "Bob", phase: .lobby),
      ])
    server.disconnect(ann.id, reason: .disconnected)  // Twice: nothing.
    #expect(bob.take() == [])
    #expect(server.statistics.sessions == 1 && server.statistics.games == 0)
  }

  @Test func leavingForfeitsAndQuitSaysBye() {
    let server = GameServer()
    let (ann, bob) = Self.startGame(server)
    bob.send(#"{"type":"leave"}"#)
    let end = Self.view(
      ["...", "...", "..."], turn: .x, moves: 0, last: nil,
      outcome: .forfeit(loser: .o, reason: .left))
    #expect(ann.take() == [end, .session(name: "Ann", phase: .lobby)])
    #expect(bob.take() == [end, .session(name: "Bob", phase: .lobby)])
    bob.send(#"{"type":"quit"}"#)
    #expect(bob.take() == [.bye(.quit)])
    #expect(bob.closed.withLock { $0 })
    #expect(ann.take() == [])
  }

  /// `join` then `leave` while another thread holds the player's session store (here the game's,
  /// telling it the game is over): its `queued` action waits for that thread, and `leave` must
  /// still take the player out of the queue. It read the session's phase, found it not queued
  /// yet, refused the `leave`, and left the player in the lobby's queue: the next player to join
  /// was paired with it (the fuzz test's closing game stalled that way).
  @Test(.timeLimit(.minutes(1))) func leaveRightAfterJoinLeavesTheQueueWhileTheSessionIsBusy()
    throws
  {
    let server = GameServer()
    let annFrames = Locked<[ServerFrame]>([])
    let blocksAtLobby = Locked(false)
    let blocked = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let annID = server.connect(
      ClientLink(
        deliver: { frame in
          annFrames.withLock { $0.append(frame) }
          guard case .session(_, .lobby) = frame, blocksAtLobby.withLock({ $0 }) else { return }
          blocksAtLobby.withLock { $0 = false }
          blocked.signal()
          release.wait()
        }, close: {}))
    let ann = { (json: String) in server.receive(Array(json.utf8), from: annID) }
    let bob = RecordingClient(server)
    ann(#"{"type":"hello","name":"Ann"}"#)
    bob.send(#"{"type":"hello","name":"Bob"}"#)
    ann(#"{"type":"join"}"#)
    bob.send(#"{"type":"join"}"#)
    for (seq, (player, cell)) in [("ann", 0), ("bob", 3), ("ann", 1), ("bob", 4), ("ann", 8)]
      .enumerated()
    {
      let move = #"{"type":"move","game":"g1","cell":\#(cell),"seq":\#(seq)}"#
      if player == "ann" { ann(move) } else { bob.send(move) }
    }
    // Bob's winning move, on a thread of its own: the game tells Ann's session the game is over,
    // and that thread is held while Ann's session delivers its `lobby` frame.
    blocksAtLobby.withLock { $0 = true }
    let winner = Thread { bob.send(#"{"type":"move","game":"g1","cell":5,"seq":5}"#) }
    winner.start()
    #expect(blocked.wait(timeout: .now() + 10) == .success)
    ann(#"{"type":"join"}"#)
    ann(#"{"type":"leave"}"#)
    release.signal()
    // Let the game's thread finish, then see whom the next player meets.
    while server.statistics.games > 0 { usleep(1_000) }
    usleep(50_000)
    let cid = RecordingClient(server)
    cid.send(#"{"type":"hello","name":"Cid"}"#)
    cid.send(#"{"type":"join"}"#)
    #expect(cid.take().last == .session(name: "Cid", phase: .queued))
    #expect(annFrames.withLock { $0 }.allSatisfy { if case .error = $0 { false } else { true } })
    #expect(annFrames.withLock { $0 }.last == .session(name: "Ann", phase: .lobby))
  }

  /// `hello` then `join` while another thread holds the session's store (here the one that
  /// connects it, delivering its first frame): the `join` must find the name. It read the name
  /// from the session's store, where `hello` still waited, and was refused ("say hello first").
  @Test(.timeLimit(.minutes(1))) func joinRightAfterHelloWhileTheSessionIsBusy() throws {
    let server = GameServer()
    let frames = Locked<[ServerFrame]>([])
    let blocked = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let id = Locked<Int?>(nil)
    let connecting = Thread {
      id.withLock {
        $0 = server.connect(
          ClientLink(
            deliver: { frame in
              frames.withLock { $0.append(frame) }
              guard frame == .session(name: nil, phase: .connected) else { return }
              blocked.signal()
              release.wait()
            }, close: {}))
      }
    }
    connecting.start()
    #expect(blocked.wait(timeout: .now() + 10) == .success)
    // The first session's id is 1; `connect` has not returned it yet.
    server.receive(Array(#"{"type":"hello","name":"Ann"}"#.utf8), from: 1)
    server.receive(Array(#"{"type":"join"}"#.utf8), from: 1)
    release.signal()
    while id.withLock({ $0 }) == nil { usleep(1_000) }
    #expect(frames.withLock { $0 }.allSatisfy { if case .error = $0 { false } else { true } })
    #expect(frames.withLock { $0 }.last == .session(name: "Ann", phase: .queued))
  }

  @Test func aQueuedClientThatDisconnectsIsNotPaired() {
    let server = GameServer()
    let ann = RecordingClient(server)
    let bob = RecordingClient(server)
    ann.send(#"{"type":"hello","name":"Ann"}"#)
    bob.send(#"{"type":"hello","name":"Bob"}"#)
    ann.send(#"{"type":"join"}"#)
    server.disconnect(ann.id, reason: .disconnected)
    _ = bob.take()
    bob.send(#"{"type":"join"}"#)
    #expect(bob.take() == [.session(name: "Bob", phase: .queued)])
    #expect(server.statistics.games == 0)
  }

  /// A server with a 10-second idle timeout, on a test clock.
  static func serverOnATestClock() -> (GameServer, TestClock) {
    let clock = TestClock()
    let server = withDependencies {
      $0.continuousClock = clock
    } operation: {
      GameServer(configuration: GameServer.Configuration(idleTimeout: .seconds(10)))
    }
    return (server, clock)
  }

  /// The idle timeout runs on the server's clock: a test clock here.
  @Test func anIdlePlayerForfeitsOnTheServersClock() async {
    let (server, clock) = Self.serverOnATestClock()
    let (ann, bob) = Self.startGame(server)
    // Both sessions tick every 2.5 s; only Ann's ticks count (X, to move). Bob's never do.
    await clock.waitForSleepers(count: 2)
    await clock.advance(by: .seconds(10))
    #expect(ann.take() == [] && bob.take() == [])
    await clock.advance(by: .milliseconds(2500))
    #expect(ann.take() == [.bye(.idle)])
    #expect(ann.closed.withLock { $0 })
    #expect(
      bob.take() == [
        Self.view(
          ["...", "...", "..."], turn: .x, moves: 0, last: nil,
          outcome: .forfeit(loser: .x, reason: .idle)),
        .session(name: "Bob", phase: .lobby),
      ])
    // Disconnecting Bob stops his timer too.
    server.disconnect(bob.id, reason: .disconnected)
    await clock.run()
    #expect(clock.sleeperCount == 0)
  }

  /// A frame resets the idle count: the tick after it starts the count again.
  @Test func aFrameResetsTheIdleCount() async {
    let (server, clock) = Self.serverOnATestClock()
    let ann = RecordingClient(server)
    _ = ann.take()
    await clock.waitForSleepers(count: 1)
    await clock.advance(by: .seconds(10))  // Four ticks counted.
    ann.send(#"{"type":"ping"}"#)
    #expect(ann.take() == [.pong])
    await clock.advance(by: .seconds(10))  // Four again, from the tick after the ping.
    #expect(ann.take() == [] && !ann.closed.withLock { $0 })
    await clock.advance(by: .milliseconds(2500))
    #expect(ann.take() == [.bye(.idle)])
    #expect(ann.closed.withLock { $0 })
  }

  /// The idle timer follows the game's turn, read from the game's store when it ticks: after
  /// Ann's move the server waits on Bob, and no longer on Ann.
  @Test func theIdleTimerFollowsTheTurn() async {
    let (server, clock) = Self.serverOnATestClock()
    let (ann, bob) = Self.startGame(server)
    await clock.waitForSleepers(count: 2)
    // Three of Ann's ticks count, then she moves.
    await clock.advance(by: .milliseconds(7500))
    ann.send(#"{"type":"move","game":"g1","cell":4,"seq":1}"#)
    let afterMove = Self.view(
      ["...", ".X.", "..."], turn: .o, moves: 1, last: GameRoom.Move(player: .x, cell: 4, seq: 1))
    #expect(ann.take() == [afterMove] && bob.take() == [afterMove])
    // Bob's first counted tick is the one after the move; the fifth closes him. Ann, who is
    // waiting on Bob, is never counted, though her own count stood at three.
    await clock.advance(by: .seconds(10))
    #expect(ann.take() == [] && bob.take() == [])
    await clock.advance(by: .milliseconds(2500))
    #expect(bob.take() == [.bye(.idle)])
    #expect(
      ann.take() == [
        Self.view(
          ["...", ".X.", "..."], turn: .o, moves: 1,
          last: GameRoom.Move(player: .x, cell: 4, seq: 1),
          outcome: .forfeit(loser: .o, reason: .idle)),
        .session(name: "Ann", phase: .lobby),
      ])
    #expect(!ann.closed.withLock { $0 })
    server.disconnect(ann.id, reason: .disconnected)
    await clock.run()
    #expect(clock.sleeperCount == 0)
  }
}
