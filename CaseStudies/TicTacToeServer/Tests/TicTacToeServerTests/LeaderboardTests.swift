import Foundation
import Testing
import TicTacToeCore
import TicTacToeServerCore
import Unidirectional
import UnidirectionalTestSupport
import UnidirectionalTesting

/// The leaderboard: wins counted by the game that decides them on a board every game shares,
/// shown by the `leaders` frame, and recovered by a durable server with every win once.
@Suite struct LeaderboardTests {
  typealias Move = GameRoom.Move

  @Test func theTopIsMostWinsFirstThenByNameAndCut() {
    var board = Leaderboard()
    for name in ["Cy", "Ann", "Bob", "Cy", "Bob", "Di"] { board.recordWin(by: name) }
    #expect(
      board.top() == [
        Leaderboard.Entry(name: "Bob", wins: 2), Leaderboard.Entry(name: "Cy", wins: 2),
        Leaderboard.Entry(name: "Ann", wins: 1), Leaderboard.Entry(name: "Di", wins: 1),
      ])
    #expect(board.top(2).map(\.name) == ["Bob", "Cy"])
    #expect(board.top(0).isEmpty)
    for number in 0..<20 { board.recordWin(by: "p\(number)") }
    #expect(board.top().count == Leaderboard.shownInFrames)
  }

  /// The first ten kept as wins are counted are those of a full sort of the board, after every
  /// win, with many players and many ties (a seeded random sequence of wins).
  @Test func theTopTenKeptAsWinsAreCountedIsTheTopOfAFullSort() throws {
    var random = SplitMix64(seed: 37)
    var board = Leaderboard()
    func sorted(_ board: Leaderboard) -> [Leaderboard.Entry] {
      board.wins.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        .map { Leaderboard.Entry(name: $0.key, wins: $0.value) }
    }
    for win in 0..<20_000 {
      // A few players win often; many win now and then: the top ten changes all along.
      let name =
        random.next() % 3 == 0 ? "p\(random.next() % 12)" : "q\(random.next() % 2_000)"
      board.recordWin(by: name)
      if win % 97 == 0 || win >= 19_900 {
        let expected = sorted(board)
        #expect(board.top() == Array(expected.prefix(Leaderboard.shownInFrames)), "win \(win)")
        #expect(board.top(3) == Array(expected.prefix(3)))
      }
    }
    #expect(board.wins.count > 1_000)
    // A board made from its wins (as a snapshot decodes) keeps the same ten.
    let decoded = try JSONDecoder().decode(
      Leaderboard.self, from: try JSONEncoder().encode(board))
    #expect(decoded == board && decoded.top() == board.top())
    #expect(Leaderboard(wins: board.wins).top() == board.top())
    // More than ten is a full sort.
    #expect(board.top(50) == Array(sorted(board).prefix(50)))
  }

  /// Names equal as `String`s are one player, shown with the first spelling counted.
  @Test func canonicallyEquivalentNamesAreOnePlayerWithTheFirstSpelling() {
    var board = Leaderboard()
    let composed = "Ren\u{E9}e"
    let decomposed = "Rene\u{301}e"
    board.recordWin(by: composed)
    board.recordWin(by: decomposed)
    #expect(board.top().count == 1)
    #expect(board.top().first?.wins == 2)
    #expect(
      board.top().first.map { Array($0.name.unicodeScalars) } == Array(composed.unicodeScalars))
    #expect(
      board.wins.keys.first.map { Array($0.unicodeScalars) } == Array(composed.unicodeScalars))
  }

  // MARK: Two games, one board

  /// A game between `x` and `o` whose X is one move (cell 2) from a line, made in the test
  /// store's dependencies, so that its board is in the storage the test gives.
  static func nearlyWon(_ id: String, _ x: String, _ o: String) -> GameRoom.State {
    var state = GameRoom.State(id: id, xName: x, oName: o)
    state.game = GameRoomTests.board(["XX.", "OO.", "..."], next: .x)
    state.game.xName = x
    state.game.oName = o
    return state
  }

  @Test func twoGamesInTwoStoresShareTheBoardAndEachReceivesTheOthersWin() async {
    let storage = SharedStorage()
    let first = TestStore(initialState: Self.nearlyWon("g1", "Ann", "Bob")) {
      GameRoom.receivingLeaderboard()
    } withDependencies: {
      $0.sharedStorage = storage
    }
    let second = TestStore(initialState: GameRoom.State(id: "g2", xName: "Cy", oName: "Di")) {
      GameRoom.receivingLeaderboard()
    } withDependencies: {
      $0.sharedStorage = storage
    }
    // What the server pushes to the players: a change of the board is no change they see.
    second.observe("state frame") { _ = ($0.game, $0.moves, $0.outcome) }
    await first.send(.move(Move(player: .x, cell: 2, seq: 1))) {
      $0.game.board = Board(["XXX", "OO.", "..."])
      $0.moves = [Move(player: .x, cell: 2, seq: 1)]
      $0.outcome = .won(.x)
      $0.leaderboard.withLock { $0.recordWin(by: "Ann") }
    }
    let afterFirst = Leaderboard(wins: ["Ann": 1])
    await second.receive(.leaderboardChanged(SharedChange(value: afterFirst, version: 1))) {
      $0.leaderboard.withLock { $0.recordWin(by: "Ann") }
    }
    // Di leaves: Cy wins, and the first game hears of it.
    await second.send(.forfeit(.o, .left), fires: ["state frame"]) {
      $0.outcome = .forfeit(loser: .o, reason: .left)
      $0.leaderboard.withLock { $0.recordWin(by: "Cy") }
    }
    let afterSecond = Leaderboard(wins: ["Ann": 1, "Cy": 1])
    await first.receive(.leaderboardChanged(SharedChange(value: afterSecond, version: 2))) {
      $0.leaderboard.withLock { $0.recordWin(by: "Cy") }
    }
    #expect(first.state.leaderboard.value == second.state.leaderboard.value)
    #expect(first.state.leaderboard.latestValue == afterSecond)
  }

  @Test func winsDecidedInManyGamesAtOnceAreAllCounted() async {
    let board = withDependencies {
      $0.sharedStorage = SharedStorage()
    } operation: {
      Shared(Leaderboard.key, default: Leaderboard())
    }
    let games = 200
    await withTaskGroup(of: Void.self) { group in
      for number in 0..<games {
        group.addTask {
          let store = Store(
            initialState: GameRoom.State(
              id: "g\(number)", xName: number % 2 == 0 ? "Ann" : "Bob", oName: "Cy",
              leaderboard: board)
          ) {
            GameRoom()
          }
          store.send(.forfeit(.o, .disconnected))
        }
      }
    }
    #expect(board.latestValue == Leaderboard(wins: ["Ann": games / 2, "Bob": games / 2]))
  }

  // MARK: The frame

  @Test func theFrameIsOneLineOfJSONWithNamesEscaped() {
    let frame = ServerFrame.leaders([
      Leaderboard.Entry(name: "Ann", wins: 12), Leaderboard.Entry(name: #"A "b" \ c"#, wins: 1),
    ])
    #expect(
      frame.line
        == #"{"type":"leaders","leaders":[{"name":"Ann","wins":12},{"name":"A \"b\" \\ c","wins":1}]}"#
        + "\n")
    #expect(ServerFrame.leaders([]).line == #"{"type":"leaders","leaders":[]}"# + "\n")
  }

  /// Plays a game between new clients named `x` and `o` to its end: `"line"` (X wins),
  /// `"tie"`, `"leave"` (O leaves: X wins), `"disconnect"` (O's connection drops: X wins), or
  /// `"in progress"` (X one move, cell 2, from a line). Returns the two clients.
  @discardableResult
  static func play(
    _ server: any FrameServing, _ x: String, _ o: String, ending: String, game: String
  ) -> (RecordingClient, RecordingClient) {
    let (xClient, oClient) = (RecordingClient(server), RecordingClient(server))
    xClient.send(#"{"type":"hello","name":"\#(x)"}"#)
    xClient.send(#"{"type":"join"}"#)
    oClient.send(#"{"type":"hello","name":"\#(o)"}"#)
    oClient.send(#"{"type":"join"}"#)
    let cells: [Int] =
      switch ending {
      case "line": [0, 3, 1, 4, 2]
      case "tie": [0, 1, 2, 4, 3, 5, 7, 6, 8]
      case "in progress": [0, 3, 1, 4]
      default: [4, 0]
      }
    for (index, cell) in cells.enumerated() {
      let client = index % 2 == 0 ? xClient : oClient
      client.send(#"{"type":"move","game":"\#(game)","cell":\#(cell),"seq":\#(index)}"#)
    }
    switch ending {
    case "leave": oClient.send(#"{"type":"leave"}"#)
    case "disconnect": server.disconnect(oClient.id, reason: .disconnected)
    default: break
    }
    return (xClient, oClient)
  }

  /// Asks for the leaders and waits for the answer (on a durable server, it waits for the
  /// journal).
  static func leaders(_ server: any FrameServing) -> [Leaderboard.Entry]? {
    let client = RecordingClient(server)
    client.send(#"{"type":"leaders"}"#)
    for frame in DurableServerTests.frames(client, count: 2) {
      if case .leaders(let entries) = frame { return entries }
    }
    Issue.record("no leaders frame")
    return nil
  }

  @Test(arguments: ServerKind.allCases) func theLeadersFrameShowsEveryWinOnce(_ kind: ServerKind) {
    let server = kind.make()
    // Before any game, in any phase: nobody has won.
    #expect(Self.leaders(server) == [])
    Self.play(server, "Ann", "Bob", ending: "line", game: "g1")
    Self.play(server, "Bob", "Ann", ending: "line", game: "g2")
    Self.play(server, "Cy", "Ann", ending: "tie", game: "g3")
    Self.play(server, "Ann", "Cy", ending: "leave", game: "g4")
    Self.play(server, "Di", "Bob", ending: "disconnect", game: "g5")
    #expect(
      Self.leaders(server) == [
        Leaderboard.Entry(name: "Ann", wins: 2), Leaderboard.Entry(name: "Bob", wins: 1),
        Leaderboard.Entry(name: "Di", wins: 1),
      ])
  }

  @Test(arguments: ServerKind.allCases) func badLeadersFramesAreRefusedLikeAnyOther(
    _ kind: ServerKind
  ) {
    let server = kind.make()
    let client = RecordingClient(server)
    _ = client.take()
    let refused: [(String, String)] = [
      (#"{"type":"leaders""#, "bad-json"),
      (#"{"type":"Leaders"}"#, "unknown-type"),
      (#"{"type":"leaders","name":7}"#, "bad-field"),
      (#"{"type":"leaders","seq":-1}"#, "bad-field"),
    ]
    for (frame, code) in refused {
      client.send(frame)
      guard case .error(let got, _, nil)? = client.take().first else {
        Issue.record("\(frame) was not refused")
        continue
      }
      #expect(got == code, "\(frame)")
    }
    // Fields it does not read are ignored, as in every frame.
    client.send(#"{"type":"leaders","game":"g1"}"#)
    #expect(client.take() == [.leaders([])])
  }

  // MARK: Durable servers

  /// Opens (or recovers) the journal in `directory` and a server on it.
  static func open(_ directory: String) throws -> (GameJournal, GameServer) {
    let journal = try GameJournal(directory: directory, committer: ActionLogCommitter())
    let server = GameServer(journal: journal)
    try DurableServerTests.awaitDurable(journal)
    return (journal, server)
  }

  @Test func aRestartedServerHasEveryWinOnceAcrossASnapshot() throws {
    try DurableServerTests.withDirectory { directory in
      let expected = [
        Leaderboard.Entry(name: "Ann", wins: 2), Leaderboard.Entry(name: "Bob", wins: 1),
        Leaderboard.Entry(name: "Di", wins: 1),
      ]
      var token: String?
      do {
        let (journal, server) = try Self.open(directory)
        Self.play(server, "Ann", "Bob", ending: "line", game: "g1")
        Self.play(server, "Bob", "Ann", ending: "line", game: "g2")
        // A snapshot after the next entry (g3's start): the games so far ended, so only the
        // board holds their wins; the wins after it are in the log's tail.
        journal.log.requestSnapshot()
        Self.play(server, "Cy", "Ann", ending: "tie", game: "g3")
        Self.play(server, "Ann", "Cy", ending: "leave", game: "g4")
        Self.play(server, "Di", "Bob", ending: "disconnect", game: "g5")
        // A game in progress, Eve (X) one move from a line, across the restart.
        let (eve, _) = Self.play(server, "Eve", "Fay", ending: "in progress", game: "g6")
        Self.findFrames(eve) { frames in
          frames.contains { if case .seat = $0 { true } else { false } }
        }
        for case .seat(_, _, let seat) in eve.frames.withLock({ $0 }) { token = seat }
        #expect(Self.leaders(server) == expected)
        #expect(
          try Self.snapshot(directory)?.leaderboard == Leaderboard(wins: ["Ann": 1, "Bob": 1]))
      }
      do {
        let (journal, server) = try Self.open(directory)
        #expect(journal.recovery != nil)
        #expect(server.statistics.games == 1)
        #expect(Self.leaders(server) == expected)
        // Eve comes back and wins: counted once, on the recovered board.
        let eve = RecordingClient(server)
        eve.send(#"{"type":"rejoin","game":"g6","token":"\#(try #require(token))"}"#)
        eve.send(#"{"type":"move","game":"g6","cell":2,"seq":4}"#)
        #expect(Self.leaders(server) == expected + [Leaderboard.Entry(name: "Eve", wins: 1)])
      }
      let (_, server) = try Self.open(directory)
      #expect(server.statistics.games == 0)
      #expect(Self.leaders(server) == expected + [Leaderboard.Entry(name: "Eve", wins: 1)])
    }
  }

  /// The journal's state in its snapshot, once there is one.
  static func snapshot(_ directory: String) throws -> Journal.State? {
    struct Snapshot: Decodable {
      var sequence: Int
      var state: Journal.State
    }
    let path = directory + "/journal.snapshot.json"
    // wall-clock: a failure bound; a passing run goes on as soon as what it waits for happens.
    let deadline = ContinuousClock.now + .seconds(10)
    // The committer writes a snapshot before it acknowledges the entries it covers: the first
    // read finds it once they are durable.
    // wall-clock: a failure bound; a passing run goes on as soon as what it waits for happens.
    while ContinuousClock.now < deadline {
      if let data = FileManager.default.contents(atPath: path),
        let snapshot = try? JSONDecoder().decode(Snapshot.self, from: data)
      {
        #expect(snapshot.state.games.keys.sorted() == ["g3"])
        return snapshot.state
      }
      sched_yield()
    }
    Issue.record("no snapshot")
    return nil
  }

  /// Waits, without sleeping, until `client`'s frames satisfy `isDone`.
  static func findFrames(_ client: RecordingClient, _ isDone: ([ServerFrame]) -> Bool) {
    // wall-clock: a failure bound; a passing run goes on as soon as what it waits for happens.
    let deadline = ContinuousClock.now + .seconds(10)
    // wall-clock: a failure bound; a passing run goes on as soon as what it waits for happens.
    while !isDone(client.frames.withLock { $0 }), ContinuousClock.now < deadline {
      sched_yield()  // The journal's committer thread delivers them.
    }
    #expect(isDone(client.frames.withLock { $0 }), "\(client.frames.withLock { $0 })")
  }

  @Test func aWinOnDiskWhoseEndIsNotIsCountedOnceByTheRecoveringServer() throws {
    try DurableServerTests.withDirectory { directory in
      // What a crash between a winning move's entry and the game's end leaves on disk.
      do {
        let journal = try GameJournal(directory: directory, committer: ActionLogCommitter())
        let record = Journal.GameRecord(
          xName: "Ann", oName: "Bob", xToken: "x", oToken: "o", lastActivity: Date())
        journal.store.send(.started(game: "g1", number: 1, record: record))
        for (index, cell) in [0, 3, 1, 4, 2].enumerated() {
          let player = index % 2 == 0 ? "X" : "O"
          journal.store.send(
            .room(game: "g1", action: .move(player: player, cell: cell, seq: index), at: Date()))
        }
        try DurableServerTests.awaitDurable(journal)
        #expect(journal.store.state.games.count == 1)
        #expect(journal.store.state.leaderboard == Leaderboard())
      }
      for _ in 0..<2 {
        let (journal, server) = try Self.open(directory)
        #expect(server.statistics.games == 0)
        #expect(journal.store.state.games.isEmpty)
        #expect(Self.leaders(server) == [Leaderboard.Entry(name: "Ann", wins: 1)])
      }
    }
  }

  @Test func theJournalCountsAWinAtTheGamesEndOnceAndNothingForATieOrAnAbandonedGame() async {
    let store = TestStore(initialState: Journal.State()) { Journal() }
    let record = Journal.GameRecord(
      xName: "Ann", oName: "Bob", xToken: "x", oToken: "o", lastActivity: nil)
    await store.send(.started(game: "g1", number: 1, record: record)) {
      $0.gamesStarted = 1
      $0.games["g1"] = record
    }
    await store.send(.started(game: "g2", number: 2, record: record)) {
      $0.gamesStarted = 2
      $0.games["g2"] = record
    }
    await store.send(.room(game: "g1", action: .forfeit(player: "X", reason: "idle"))) {
      $0.games["g1"]?.actions = [.forfeit(player: "X", reason: "idle")]
    }
    await store.send(.ended(game: "g1")) {
      $0.games["g1"] = nil
      $0.leaderboard.recordWin(by: "Bob")
    }
    // An end journaled again (a recovery that ends a game whose end it did not find) counts
    // nothing more.
    await store.send(.ended(game: "g1"))
    // A game closed with no outcome (abandoned) counts nothing.
    await store.send(.ended(game: "g2")) {
      $0.games["g2"] = nil
    }
  }

  @Test func aSnapshotFromBeforeTheLeaderboardStartsAnEmptyOne() throws {
    let old = Data(#"{"gamesStarted":3,"games":{}}"#.utf8)
    let state = try JSONDecoder().decode(Journal.State.self, from: old)
    #expect(state.gamesStarted == 3 && state.games.isEmpty && state.leaderboard == Leaderboard())
    var board = Journal.State()
    board.leaderboard.recordWin(by: "Ann")
    let again = try JSONDecoder().decode(
      Journal.State.self, from: try JSONEncoder().encode(board))
    #expect(again == board)
  }
}
