import Foundation
import Testing
import TicTacToeCore
import TicTacToeServerCore
import Unidirectional

/// What the cluster's shards (`CaseStudies/TicTacToeCluster`) add to the server: the
/// `redirect` frame, and game ids named by the configuration.
@Suite struct ClusterFrameTests {
  @Test func aRedirectFrameNamesTheGameAndTheOwnersAddressOnOneLine() throws {
    let frame = ServerFrame.redirect(game: "g7-p3-12", address: "127.0.0.1:7879")
    #expect(
      frame.line == #"{"type":"redirect","game":"g7-p3-12","address":"127.0.0.1:7879"}"# + "\n")
    // Escaped like every other string field: a client's JSON parser reads back what was sent.
    let odd = ServerFrame.redirect(game: "a\"b\\c", address: "[::1]:7000")
    let object = try JSONSerialization.jsonObject(with: Data(odd.bytes)) as? [String: String]
    #expect(object == ["type": "redirect", "game": "a\"b\\c", "address": "[::1]:7000"])
  }

  @Test func aConfiguredGameIDNamesTheGameInEveryFrameAndInTheJournal() throws {
    try DurableServerTests.withDirectory { directory in
      let journal = try GameJournal(directory: directory, committer: ActionLogCommitter())
      let server = GameServer(
        configuration: GameServer.Configuration(gameID: { "game-\($0)-here" }),
        journal: journal)
      let ann = RecordingClient(server)
      let bob = RecordingClient(server)
      ann.send(#"{"type":"hello","name":"Ann"}"#)
      ann.send(#"{"type":"join"}"#)
      bob.send(#"{"type":"hello","name":"Bob"}"#)
      bob.send(#"{"type":"join"}"#)
      // connected, lobby, queued, playing, seat, state.
      let frames = DurableServerTests.frames(ann, count: 6)
      #expect(
        frames.dropFirst(3).first
          == .session(
            name: "Ann", phase: .playing(game: "game-1-here", player: .x, opponent: "Bob")))
      guard case .seat(let game, _, _)? = frames.dropLast().last else {
        Issue.record("no seat frame in \(frames)")
        return
      }
      #expect(game == "game-1-here")
      _ = DurableServerTests.frames(bob, count: 6)
      ann.send(#"{"type":"move","game":"game-1-here","cell":4,"seq":1}"#)
      guard case .state(let view)? = DurableServerTests.frames(ann, count: 1).first else {
        Issue.record("no acknowledgement")
        return
      }
      #expect(view.game == "game-1-here" && view.moveCount == 1)
      try DurableServerTests.awaitDurable(journal)
      // The journal holds the game under that id, with the lobby's number.
      #expect(journal.store.state.gamesStarted == 1)
      #expect(journal.store.state.games["game-1-here"]?.actions.count == 1)
    }
  }
}
