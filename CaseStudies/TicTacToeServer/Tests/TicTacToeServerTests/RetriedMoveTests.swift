import Foundation
import Testing
import TicTacToeCore
import TicTacToeServerCore
import Unidirectional

/// A move sent again (a client that lost its connection cannot know whether its move was
/// played) is answered with the `state` frame that acknowledged it, and the game is unchanged.
@Suite struct RetriedMoveTests {
  @Test func theAcknowledgementIsRebuiltFromTheMovesUpToTheRetriedOne() {
    let moves = [
      GameRoom.Move(player: .x, cell: 4, seq: 1), GameRoom.Move(player: .o, cell: 0, seq: 7),
      GameRoom.Move(player: .x, cell: 8, seq: 2),
    ]
    let first = GameRoom.acknowledgement(
      of: moves[0], id: "g1", names: ("Ann", "Bob"), moves: moves)
    #expect(
      first
        == GameView(
          game: "g1", board: Board(["...", ".X.", "..."]), turn: .o, moveCount: 1,
          lastMove: moves[0], outcome: nil))
    let second = GameRoom.acknowledgement(
      of: moves[1], id: "g1", names: ("Ann", "Bob"), moves: moves)
    #expect(second?.moveCount == 2 && second?.lastMove == moves[1] && second?.turn == .x)
    // The same cell and seq by the other player, or another seq: not a retry.
    #expect(
      GameRoom.acknowledgement(
        of: GameRoom.Move(player: .o, cell: 4, seq: 1), id: "g1", names: ("Ann", "Bob"),
        moves: moves) == nil)
    #expect(
      GameRoom.acknowledgement(
        of: GameRoom.Move(player: .x, cell: 4, seq: 2), id: "g1", names: ("Ann", "Bob"),
        moves: moves) == nil)
  }

  @Test func aRetriedWinningMoveCountsNoWinAnywhere() {
    // X wins on the top row.
    let moves = [
      GameRoom.Move(player: .x, cell: 0, seq: 1), GameRoom.Move(player: .o, cell: 3, seq: 1),
      GameRoom.Move(player: .x, cell: 1, seq: 2), GameRoom.Move(player: .o, cell: 4, seq: 2),
      GameRoom.Move(player: .x, cell: 2, seq: 3),
    ]
    let storage = SharedStorage()
    let (board, acknowledgement) = withDependencies {
      $0.sharedStorage = storage
    } operation: {
      (
        Shared(Leaderboard.key, default: Leaderboard()),
        GameRoom.acknowledgement(of: moves[4], id: "g1", names: ("Ann", "Bob"), moves: moves)
      )
    }
    #expect(
      acknowledgement
        == GameView(
          game: "g1", board: Board(["XXX", "OO.", "..."]), turn: .x, moveCount: 5,
          lastMove: moves[4], outcome: .won(.x)))
    // The board the ambient storage holds, the one a replay through a room would count on.
    #expect(board.latestValue == Leaderboard())
  }

  @Test(arguments: ServerKind.allCases)
  func aMoveSentAgainGetsItsOriginalAnswerAndIsNotPlayedTwice(_ kind: ServerKind) {
    let server = kind.make()
    let ann = RecordingClient(server)
    let bob = RecordingClient(server)
    ann.send(#"{"type":"hello","name":"Ann"}"#)
    ann.send(#"{"type":"join"}"#)
    bob.send(#"{"type":"hello","name":"Bob"}"#)
    bob.send(#"{"type":"join"}"#)
    _ = (ann.take(), bob.take())
    ann.send(#"{"type":"move","game":"g1","cell":4,"seq":1}"#)
    let acknowledgement = ann.take()
    #expect(acknowledgement.count == 1)
    _ = bob.take()
    // Sent again while it is the opponent's turn, then again after the opponent moved.
    ann.send(#"{"type":"move","game":"g1","cell":4,"seq":1}"#)
    #expect(ann.take() == acknowledgement)
    bob.send(#"{"type":"move","game":"g1","cell":0,"seq":1}"#)
    _ = (ann.take(), bob.take())
    ann.send(#"{"type":"move","game":"g1","cell":4,"seq":1}"#)
    #expect(ann.take() == acknowledgement)
    #expect(bob.take().isEmpty)
    // The same cell under another seq is a new move, refused as ever.
    ann.send(#"{"type":"move","game":"g1","cell":4,"seq":2}"#)
    guard case .error(let code, _, let seq)? = ann.take().first else {
      Issue.record("no refusal")
      return
    }
    #expect(code == "cell-taken" && seq == 2)
    // The game holds two moves: the next is Ann's, the third.
    ann.send(#"{"type":"move","game":"g1","cell":8,"seq":3}"#)
    guard case .state(let view)? = ann.take().first else {
      Issue.record("no acknowledgement")
      return
    }
    #expect(view.moveCount == 3 && view.lastMove?.seq == 3)
  }

  @Test func afterARestartTheRejoinedPlayersRetryIsAnsweredAndJournaledOnce() throws {
    try DurableServerTests.withDirectory { directory in
      var token = ""
      var acknowledgement: [ServerFrame] = []
      do {
        let journal = try GameJournal(directory: directory, committer: ActionLogCommitter())
        let server = GameServer(journal: journal)
        let ann = RecordingClient(server)
        let bob = RecordingClient(server)
        ann.send(#"{"type":"hello","name":"Ann"}"#)
        ann.send(#"{"type":"join"}"#)
        bob.send(#"{"type":"hello","name":"Bob"}"#)
        bob.send(#"{"type":"join"}"#)
        guard case .seat(_, _, let seat)? = DurableServerTests.frames(ann, count: 6).dropLast().last
        else {
          Issue.record("no seat frame")
          return
        }
        token = seat
        _ = DurableServerTests.frames(bob, count: 6)
        ann.send(#"{"type":"move","game":"g1","cell":4,"seq":1}"#)
        acknowledgement = DurableServerTests.frames(ann, count: 1)
        try DurableServerTests.awaitDurable(journal)
        server.shutdown()
      }
      // The connection dropped before Ann read her answer: she rejoins a restarted server and
      // sends the move again.
      let journal = try GameJournal(directory: directory, committer: ActionLogCommitter())
      let server = GameServer(journal: journal)
      let ann = RecordingClient(server)
      ann.send(#"{"type":"rejoin","game":"g1","token":"\#(token)"}"#)
      _ = DurableServerTests.frames(ann, count: 4)
      ann.send(#"{"type":"move","game":"g1","cell":4,"seq":1}"#)
      #expect(DurableServerTests.frames(ann, count: 1) == acknowledgement)
      try DurableServerTests.awaitDurable(journal)
      #expect(journal.store.state.games["g1"]?.actions.count == 1)
      #expect(server.statistics.games == 1)
    }
  }
}
