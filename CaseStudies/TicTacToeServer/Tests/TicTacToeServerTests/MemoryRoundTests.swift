import Foundation
import Testing
import TicTacToeServerCore
import Unidirectional

/// Rounds of connections that open, play a whole game and close, against a server in this
/// process: what the server holds (its counts of live objects and buffer bytes) is back, after
/// every round, at its level after the first. Counts, not timings or resident memory.
@Suite struct MemoryRoundTests {
  /// What a game server and its line server hold.
  struct Holding: Equatable, CustomStringConvertible {
    var game: GameServer.Statistics
    var line: LineServer.Statistics

    /// The counts of what is held, without the counts of what happened (games started, moves).
    var held: [Int] {
      [
        game.sessions, game.sessionEntries, game.sessionStores, game.games, game.gameEntries,
        game.queued, line.connections, line.connectionObjects, line.bufferBytes,
      ]
    }

    var description: String {
      "sessions \(game.sessions) (entries \(game.sessionEntries), stores \(game.sessionStores)), "
        + "games \(game.games) (entries \(game.gameEntries)), queued \(game.queued), "
        + "connections \(line.connections) (objects \(line.connectionObjects)), "
        + "buffer bytes \(line.bufferBytes)"
    }
  }

  static func holding(_ server: LoopbackServer) -> Holding {
    Holding(game: server.game.statistics, line: server.line.statistics)
  }

  /// Opens `pairs` games of two connections, plays each to X's win (0, 3, 1, 4, 2), and closes
  /// every connection; returns the moves acknowledged.
  static func round(_ server: LoopbackServer, pairs: Int) throws -> Int {
    var games: [(TestClient, TestClient, String)] = []
    for index in 0..<pairs {
      games.append(try server.pair("x\(index)", "o\(index)"))
    }
    var moves = 0
    for (x, o, game) in games {
      for (turn, cell) in [0, 3, 1, 4, 2].enumerated() {
        let (mover, other) = turn % 2 == 0 ? (x, o) : (o, x)
        mover.send(#"{"type":"move","game":"\#(game)","cell":\#(cell),"seq":\#(turn + 1)}"#)
        let seen = try mover.skip(to: "state")
        _ = try other.skip(to: "state")
        if seen["moves"] as? Int == turn + 1 { moves += 1 }
      }
      // Both are told the game is over, and are back in the lobby.
      try x.skip(toPhase: "lobby")
      try o.skip(toPhase: "lobby")
    }
    // The clients close here: their descriptors close as the array goes.
    games = []
    return moves
  }

  /// Waits until the server has let every connection of a round go: no session, no connection,
  /// and the counts at `level` (or, for the first round, steady at all-zero tables). The bound
  /// only turns a leak into a failure; a passing run goes on as soon as the counts are there.
  ///
  /// The stores' effects (the sessions' idle timers) run on `executor`, drained here: a closed
  /// session's cancelled timer task ends, and lets its store go, when the drain runs it, not
  /// whenever a busy global executor gets to it.
  static func settled(_ server: LoopbackServer, executor: TestExecutor, at level: Holding?)
    -> Holding
  {
    // wall-clock: a failure bound; a passing run goes on as soon as what it waits for happens.
    let deadline = ContinuousClock.now + .seconds(10)
    var now = holding(server)
    // wall-clock: a failure bound; a passing run goes on as soon as what it waits for happens.
    while ContinuousClock.now < deadline {
      executor.drain()
      now = holding(server)
      let tablesEmpty =
        now.game.sessions == 0 && now.line.connections == 0 && now.game.games == 0
      // The idle timers' tasks end in the drain once cancelled: the stores go with them.
      let objectsGone =
        now.game.sessionEntries == 0 && now.game.sessionStores == 0
        && now.line.connectionObjects == 0
      if tablesEmpty, let level, now.held == level.held { return now }
      if tablesEmpty, level == nil, objectsGone { return now }
      sched_yield()
    }
    return now
  }

  @Test func whatTheServerHoldsAfterEachRoundIsBackAtItsLevelAfterTheFirst() throws {
    let executor = TestExecutor()
    // Jobs left after the test (the server's shutdown) run on the global executor.
    defer { executor.release() }
    let server = try LoopbackServer(
      configuration: GameServer.Configuration(effectExecutor: executor))
    let rounds = 4
    let pairs = 20
    var first: Holding?
    for number in 1...rounds {
      let moves = try Self.round(server, pairs: pairs)
      #expect(moves == pairs * 5)
      let now = Self.settled(server, executor: executor, at: first)
      if let first {
        #expect(now.held == first.held, "round \(number): \(now); after round 1: \(first)")
      } else {
        first = now
        // After a round, nothing of it is left: no session, store, game, connection or buffer.
        #expect(now.held.allSatisfy { $0 == 0 }, "after round 1: \(now)")
      }
    }
    #expect(server.game.statistics.gamesStarted == rounds * pairs)
  }
}
