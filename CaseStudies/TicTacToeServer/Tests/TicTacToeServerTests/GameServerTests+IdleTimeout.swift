import Testing
import TicTacToeCore
import TicTacToeServerCore
import Unidirectional

// The idle timeout, on a test clock: who forfeits, what resets the count, whose turn it follows.

extension GameServerTests {
  /// A server with a 10-second idle timeout, on a test clock, its stores' effects on a test
  /// executor (which the clock drains as it advances).
  static func serverOnATestClock(_ kind: ServerKind) -> (any FrameServing, TestClock, TestExecutor)
  {
    let clock = TestClock()
    let executor = TestExecutor()
    let server = withDependencies {
      $0.continuousClock = clock
    } operation: {
      kind.make(GameServer.Configuration(idleTimeout: .seconds(10), effectExecutor: executor))
    }
    return (server, clock, executor)
  }

  /// The idle timeout runs on the server's clock: a test clock here.
  @Test(arguments: ServerKind.allCases) func anIdlePlayerForfeitsOnTheServersClock(
    _ kind: ServerKind
  ) async {
    let (server, clock, executor) = Self.serverOnATestClock(kind)
    let (ann, bob) = Self.startGame(server)
    // Both sessions tick every 2.5 s; only Ann's ticks count (X, to move). Bob's never do.
    executor.drain()
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
  @Test(arguments: ServerKind.allCases) func aFrameResetsTheIdleCount(_ kind: ServerKind) async {
    let (server, clock, executor) = Self.serverOnATestClock(kind)
    let ann = RecordingClient(server)
    _ = ann.take()
    executor.drain()
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
  @Test(arguments: ServerKind.allCases) func theIdleTimerFollowsTheTurn(_ kind: ServerKind) async {
    let (server, clock, executor) = Self.serverOnATestClock(kind)
    let (ann, bob) = Self.startGame(server)
    executor.drain()
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
