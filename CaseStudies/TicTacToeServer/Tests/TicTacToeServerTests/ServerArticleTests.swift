import Foundation
import Testing
import TicTacToeCore
import TicTacToeServerCore
import Unidirectional
import UnidirectionalTestSupport
import UnidirectionalTesting

/// The code of the DocC article "Server apps", compiled and run (see `ServerArticleSnippetTests`).
@Suite struct ServerArticleTests {
  typealias Move = GameRoom.Move

  @Test func aStorePerGameAndPushingWhatEachClientReads() {
    let frames = Locked<[ServerFrame]>([])
    let link = ClientLink(
      deliver: { frame in frames.withLock { $0.append(frame) } }, close: {})
    let room = Store(initialState: GameRoom.State(id: "g1", xName: "Ann", oName: "Bob")) {
      GameRoom()
    }
    let token = room.observe {
      let view = GameView(
        game: room.id, board: room[\.game.board], turn: room[\.game.currentPlayer],
        moveCount: room.moves.count, lastMove: room.moves.last, outcome: room.outcome)
      link.deliver(.state(view))
    }
    room.send(.move(GameRoom.Move(player: .o, cell: 4, seq: 1)))  // Refused: no frame.
    room.send(.move(GameRoom.Move(player: .x, cell: 4, seq: 1)))  // One frame.
    withExtendedLifetime(token) {
      // The first run, then the accepted move: the refused one sent nothing.
      #expect(frames.withLock(\.count) == 2)
      #expect(room.refusedMoves == 1)
    }
  }

  @Test func theTestStoreAssertsWhoIsSentAFrame() async {
    let store = TestStore(initialState: GameRoom.State(id: "g1", xName: "Ann", oName: "Bob")) {
      GameRoom()
    }
    store.observe("X view") { store in
      _ = (store[\.game.board], store[\.game.currentPlayer], store.moves, store.outcome)
    }
    store.observe("log") { _ = $0.refusedMoves }
    await store.send(.move(Move(player: .o, cell: 4, seq: 1)), fires: ["log"]) {
      $0.refusedMoves = 1
    }
  }

  @Test func theIdleTimeoutOnATestClock() async {
    let clock = TestClock()
    let executor = TestExecutor()
    let server = withDependencies {
      $0.continuousClock = clock
    } operation: {
      GameServer(
        configuration: GameServer.Configuration(
          idleTimeout: .seconds(10), effectExecutor: executor))
    }
    let closed = Locked(false)
    let id = server.connect(ClientLink(deliver: { _ in }, close: { closed.withLock { $0 = true } }))
    executor.drain()
    await clock.advance(by: .milliseconds(12_500))
    #expect(closed.withLock { $0 })
    server.disconnect(id, reason: .disconnected)
  }
}

extension ServerArticleTests {
  @Test func aDurableServer() throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("tictactoe-article-\(getpid())").path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let journal = try GameJournal(directory: directory, committer: ActionLogCommitter())
    let server = GameServer(configuration: GameServer.Configuration(), journal: journal)
    #expect(server.statistics.games == 0)
    #expect(FileManager.default.fileExists(atPath: directory + "/journal.jsonl"))
  }
}

/// Keeps the article "Server apps" and its compiled code in sync: every ```swift block of
/// `ServerApps.md` must appear in `ServerArticleTests.swift`, line for line.
@Suite struct ServerArticleSnippetTests {
  static let testsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()

  static let article = testsDirectory.appendingPathComponent(
    "../../../../Sources/Unidirectional/Unidirectional.docc/ServerApps.md"
  ).standardizedFileURL

  static let tests = testsDirectory.appendingPathComponent("ServerArticleTests.swift")

  @Test func everySnippetOfTheArticleIsCompiled() throws {
    let article = try String(contentsOf: Self.article, encoding: .utf8)
    let tests = try String(contentsOf: Self.tests, encoding: .utf8)
    let snippets = ArticleSnippets.swiftBlocks(in: article)
    #expect(snippets.count >= 4, "Found only \(snippets.count) Swift blocks in the article.")
    for (snippet, culprit) in ArticleSnippets.missing(from: tests, in: article) {
      Issue.record(
        """
        A snippet of ServerApps.md is not in ServerArticleTests.swift: \(snippet) (the first \
        line that differs: \(culprit))
        """)
    }
  }
}
