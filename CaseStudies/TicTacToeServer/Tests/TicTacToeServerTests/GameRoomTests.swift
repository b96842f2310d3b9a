import Testing
import TicTacToeCore
import TicTacToeServerCore
import Unidirectional
import UnidirectionalTesting

/// The game store: moves, refusals, outcomes and forfeits, with the two players' views and the
/// server's log as named observers, so every step asserts who is sent a frame.
@Suite struct GameRoomTests {
  typealias Move = GameRoom.Move

  /// A test store of a fresh game whose observers read what the server reads for each player
  /// (the `state` frame) and for its log (the refused-move count). The state is made in the
  /// test store's dependencies, so that its leaderboard is the test's own.
  static func makeStore(
    _ state: @autoclosure () -> GameRoom.State = GameRoom.State(
      id: "g1", xName: "Ann", oName: "Bob")
  )
    -> TestStore<GameRoom.State, GameRoom.Action>
  {
    let store = TestStore(initialState: state()) { GameRoom() }
    for name in ["X view", "O view"] {
      store.observe(name) { store in
        _ = (store[\.game.board], store[\.game.currentPlayer], store.moves, store.outcome)
      }
    }
    store.observe("log") { _ = $0.refusedMoves }
    return store
  }

  static func board(_ rows: [String], next: Player) -> Game.State {
    var game = Game.State(xName: "Ann", oName: "Bob")
    game.board = Board(rows)
    game.currentPlayer = next
    return game
  }

  @Test func movesAlternateAndBothPlayersSeeThem() async {
    let store = Self.makeStore()
    await store.send(.move(Move(player: .x, cell: 4, seq: 1)), fires: ["X view", "O view"]) {
      $0.game = Self.board(["...", ".X.", "..."], next: .o)
      $0.moves = [Move(player: .x, cell: 4, seq: 1)]
    }
    await store.send(.move(Move(player: .o, cell: 0, seq: 1)), fires: ["X view", "O view"]) {
      $0.game = Self.board(["O..", ".X.", "..."], next: .x)
      $0.moves.append(Move(player: .o, cell: 0, seq: 1))
    }
  }

  @Test func refusedMovesReachOnlyTheLog() async {
    let store = Self.makeStore()
    #expect(store.state.refusal(of: Move(player: .o, cell: 4, seq: 1)) == .notYourTurn)
    await store.send(.move(Move(player: .o, cell: 4, seq: 1)), fires: ["log"]) {
      $0.refusedMoves = 1
    }
    #expect(store.state.refusal(of: Move(player: .x, cell: 9, seq: 1)) == .badCell)
    await store.send(.move(Move(player: .x, cell: 9, seq: 1)), fires: ["log"]) {
      $0.refusedMoves = 2
    }
    #expect(store.state.refusal(of: Move(player: .x, cell: -1, seq: 1)) == .badCell)
    await store.send(.move(Move(player: .x, cell: 0, seq: 2)), fires: ["X view", "O view"]) {
      $0.game = Self.board(["X..", "...", "..."], next: .o)
      $0.moves = [Move(player: .x, cell: 0, seq: 2)]
    }
    #expect(store.state.refusal(of: Move(player: .o, cell: 0, seq: 2)) == .cellTaken)
    await store.send(.move(Move(player: .o, cell: 0, seq: 2)), fires: ["log"]) {
      $0.refusedMoves = 3
    }
  }

  /// A game as `rows` with `next` to move, started in the test store's dependencies.
  static func state(_ rows: [String], next: Player) -> GameRoom.State {
    var state = GameRoom.State(id: "g1", xName: "Ann", oName: "Bob")
    state.game = board(rows, next: next)
    return state
  }

  @Test func aLineWinsEndsTheGameAndCountsTheWinnersWin() async {
    let store = Self.makeStore(Self.state(["XX.", "OO.", "..."], next: .x))
    await store.send(.move(Move(player: .x, cell: 2, seq: 3)), fires: ["X view", "O view"]) {
      $0.game = Self.board(["XXX", "OO.", "..."], next: .x)
      $0.moves = [Move(player: .x, cell: 2, seq: 3)]
      $0.outcome = .won(.x)
      $0.leaderboard.withLock { $0.recordWin(by: "Ann") }
    }
    #expect(store.state.leaderboard.value == Leaderboard(wins: ["Ann": 1]))
    #expect(store.state.refusal(of: Move(player: .o, cell: 5, seq: 3)) == .gameOver)
    await store.send(.move(Move(player: .o, cell: 5, seq: 3)), fires: ["log"]) {
      $0.refusedMoves = 1
    }
    // A forfeit after the end changes nothing.
    await store.send(.forfeit(.o, .disconnected))
  }

  @Test func aFullBoardWithoutALineIsATieAndCountsNoWin() async {
    let store = Self.makeStore(Self.state(["XOX", "XOO", "OX."], next: .x))
    await store.send(.move(Move(player: .x, cell: 8, seq: 5)), fires: ["X view", "O view"]) {
      $0.game = Self.board(["XOX", "XOO", "OXX"], next: .x)
      $0.moves = [Move(player: .x, cell: 8, seq: 5)]
      $0.outcome = .tie
    }
    #expect(store.state.outcome?.winner == nil)
    #expect(store.state.leaderboard.value == Leaderboard())
  }

  @Test(arguments: [GameRoom.ForfeitReason.left, .disconnected, .idle])
  func aForfeitEndsTheGameForTheOpponentWhoseWinCounts(reason: GameRoom.ForfeitReason) async {
    let store = Self.makeStore()
    await store.send(.forfeit(.x, reason), fires: ["X view", "O view"]) {
      $0.outcome = .forfeit(loser: .x, reason: reason)
      $0.leaderboard.withLock { $0.recordWin(by: "Bob") }
    }
    #expect(store.state.outcome?.winner == .o)
    await store.send(.forfeit(.o, .left))
    #expect(store.state.refusal(of: Move(player: .x, cell: 0, seq: 1)) == .gameOver)
  }
}
