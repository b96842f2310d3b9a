import Foundation
import Testing
import TicTacToeCore
import TicTacToeServerCore
import Unidirectional
import UnidirectionalTestSupport

/// A durable server in process: frames wait for the journal, games survive a restart of the
/// server object, and seats are taken again only with their token.
@Suite struct DurableServerTests {
  /// A fresh data directory, removed at the end of `body`.
  static func withDirectory(_ body: (String) throws -> Void) rethrows {
    let directory = newDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    try body(directory)
  }

  /// The path of a fresh data directory (not created); the caller removes it.
  static func newDirectory() -> String {
    FileManager.default.temporaryDirectory
      .appendingPathComponent("tictactoe-durable-\(getpid())-\(UInt64.random(in: 0...UInt64.max))")
      .path
  }

  /// Waits, without sleeping, until `client` has at least `count` frames.
  static func frames(_ client: RecordingClient, count: Int) -> [ServerFrame] {
    // wall-clock: a failure bound; a passing run goes on as soon as what it waits for happens.
    let deadline = ContinuousClock.now + .seconds(10)
    // wall-clock: a failure bound; a passing run goes on as soon as what it waits for happens.
    while client.frames.withLock({ $0.count }) < count, ContinuousClock.now < deadline {
      sched_yield()  // The journal's committer thread delivers them.
    }
    return client.take()
  }

  @Test func aRestartedServerRebuildsItsGamesAndPlayersRejoinWithTheirTokens() throws {
    try Self.withDirectory { directory in
      var tokens: [Player: String] = [:]
      do {
        let committer = ActionLogCommitter()
        let journal = try GameJournal(directory: directory, committer: committer)
        let server = GameServer(journal: journal)
        let ann = RecordingClient(server)
        let bob = RecordingClient(server)
        ann.send(#"{"type":"hello","name":"Ann"}"#)
        ann.send(#"{"type":"join"}"#)
        bob.send(#"{"type":"hello","name":"Bob"}"#)
        bob.send(#"{"type":"join"}"#)
        // connected, lobby, queued, playing, seat, state: the seat and state once on disk.
        for (client, player) in [(ann, Player.x), (bob, .o)] {
          let frames = Self.frames(client, count: 6)
          guard case .seat(let game, let seat, let token)? = frames.dropLast().last else {
            Issue.record("no seat frame in \(frames)")
            return
          }
          #expect(game == "g1" && seat == player)
          tokens[player] = token
        }
        ann.send(#"{"type":"move","game":"g1","cell":4,"seq":1}"#)
        #expect(Self.frames(ann, count: 1).count == 1)  // The acknowledgement.
        _ = Self.frames(bob, count: 1)
        try Self.awaitDurable(journal)
      }
      // A new server on the same directory: the game is back, nobody sits in it.
      let journal = try GameJournal(directory: directory, committer: ActionLogCommitter())
      #expect(journal.recovery != nil)
      let server = GameServer(journal: journal)
      #expect(server.statistics.games == 1)
      let intruder = RecordingClient(server)
      intruder.send(#"{"type":"rejoin","game":"g1","token":"nope"}"#)
      let refused = Self.frames(intruder, count: 2).last
      guard case .error(let code, _, _)? = refused else {
        Issue.record("expected an error, got \(String(describing: refused))")
        return
      }
      #expect(code == "bad-token")
      let bob = RecordingClient(server)
      bob.send(#"{"type":"rejoin","game":"g1","token":"\#(tokens[.o]!)"}"#)
      let board = GameView(
        game: "g1", board: Board(["...", ".X.", "..."]), turn: .o, moveCount: 1,
        lastMove: GameRoom.Move(player: .x, cell: 4, seq: 1), outcome: nil)
      #expect(
        Self.frames(bob, count: 4) == [
          .session(name: nil, phase: .connected),
          .session(name: "Bob", phase: .playing(game: "g1", player: .o, opponent: "Ann")),
          .seat(game: "g1", player: .o, token: tokens[.o]!), .state(board),
        ])
      // The seat is taken now.
      let twin = RecordingClient(server)
      twin.send(#"{"type":"rejoin","game":"g1","token":"\#(tokens[.o]!)"}"#)
      if case .error(let code, _, _)? = Self.frames(twin, count: 2).last {
        #expect(code == "bad-token")
      } else {
        Issue.record("a taken seat was given twice")
      }
      // Bob plays on; Ann has not rejoined, and the move is acknowledged to Bob alone.
      bob.send(#"{"type":"move","game":"g1","cell":0,"seq":1}"#)
      guard case .state(let view)? = Self.frames(bob, count: 1).first else {
        Issue.record("no acknowledgement")
        return
      }
      #expect(view.moveCount == 2 && view.lastMove?.seq == 1)
    }
  }

  /// Waits until everything journaled so far is on disk.
  static func awaitDurable(_ journal: GameJournal) throws {
    let done = Locked(false)
    journal.log.whenDurable(StoreTask.none) { _ in done.withLock { $0 = true } }
    // wall-clock: a failure bound; a passing run goes on as soon as what it waits for happens.
    let deadline = ContinuousClock.now + .seconds(10)
    // wall-clock: a failure bound; a passing run goes on as soon as what it waits for happens.
    while !done.withLock({ $0 }), ContinuousClock.now < deadline { sched_yield() }
  }
}
