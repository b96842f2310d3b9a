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
  let server: any FrameServing

  init(_ server: any FrameServing) {
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
  static func startGame(_ server: any FrameServing) -> (RecordingClient, RecordingClient) {
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

  @Test(arguments: ServerKind.allCases) func aGameFromHelloToWin(_ kind: ServerKind) {
    let server = kind.make()
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

  @Test(arguments: ServerKind.allCases) func badFramesAreAnsweredToTheirSenderOnly(
    _ kind: ServerKind
  ) {
    let server = kind.make()
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
      // Numbers past what an integer holds: refused, never an overflow (the README's table of
      // numbers).
      (ann, #"{"type":"move","game":"g1","cell":4,"seq":9999999999999999999}"#, "bad-field"),
      (ann, #"{"type":"move","game":"g1","cell":9999999999999999999,"seq":1}"#, "bad-field"),
      (ann, #"{"type":"move","game":"g1","cell":4,"seq":9223372036854775808}"#, "bad-field"),
      (ann, #"{"type":"move","game":"g1","cell":-1,"seq":1}"#, "bad-field"),
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

  /// The line of issue 34, from a client that has not said hello: an error frame, and the
  /// connection (and the server) go on. It once stopped the process with an overflow.
  @Test(arguments: ServerKind.allCases) func aNumberTooBigForAnIntegerIsAnErrorNotACrash(
    _ kind: ServerKind
  ) {
    let server = kind.make()
    let client = RecordingClient(server)
    _ = client.take()
    client.send(#"{"type":"move","game":"g1","cell":4,"seq":9999999999999999999}"#)
    let frames = client.take()
    #expect(frames.count == 1)
    guard case .error? = frames.first else {
      Issue.record("got \(frames)")
      return
    }
    client.send(#"{"type":"ping"}"#)
    #expect(client.take() == [.pong])
    #expect(!client.closed.withLock { $0 })
  }

  @Test(arguments: ServerKind.allCases) func aDisconnectForfeitsAndTheOpponentIsToldOnce(
    _ kind: ServerKind
  ) {
    let server = kind.make()
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

  @Test(arguments: ServerKind.allCases) func leavingForfeitsAndQuitSaysBye(_ kind: ServerKind) {
    let server = kind.make()
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

  @Test(arguments: ServerKind.allCases) func aQueuedClientThatDisconnectsIsNotPaired(
    _ kind: ServerKind
  ) {
    let server = kind.make()
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
}
