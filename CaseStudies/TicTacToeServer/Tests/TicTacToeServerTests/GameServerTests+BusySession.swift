import Foundation
import Testing
import TicTacToeServerCore
import Unidirectional

// Frames that arrive while another thread holds the session's store: `leave` right after
// `join`, and `join` right after `hello`.

extension GameServerTests {
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
    // wall-clock: a failure bound; a passing run is signalled long before.
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
    // wall-clock: a failure bound; a passing run is signalled long before.
    #expect(blocked.wait(timeout: .now() + 10) == .success)
    // The first session's id is 1; `connect` has not returned it yet.
    server.receive(Array(#"{"type":"hello","name":"Ann"}"#.utf8), from: 1)
    server.receive(Array(#"{"type":"join"}"#.utf8), from: 1)
    release.signal()
    while id.withLock({ $0 }) == nil { usleep(1_000) }
    #expect(frames.withLock { $0 }.allSatisfy { if case .error = $0 { false } else { true } })
    #expect(frames.withLock { $0 }.last == .session(name: "Ann", phase: .queued))
  }
}
