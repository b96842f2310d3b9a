import Testing
import TicTacToeCore
import Unidirectional
import UnidirectionalTesting

/// New games and games: names, moves, wins on every line by either player, ties, refused moves,
/// playing again and quitting. Every step asserts which observers fired.
@Suite struct GameTests {
  typealias Action = TicTacToe.Action

  static func move(_ cell: Int) -> Action {
    .newGame(.game(.cellTapped(row: cell / 3, column: cell % 3)))
  }

  @Test func namesThenStart() async {
    let store = makeStore(.newGame(NewGame.State()))
    await store.send(.newGame(.xNameChanged("Ann"))) { $0 = .newGame(NewGame.State(xName: "Ann")) }
    await store.send(.newGame(.oNameChanged("Bob")), fires: ["new game form"]) {
      $0 = .newGame(NewGame.State(xName: "Ann", oName: "Bob"))
    }
    await store.send(.newGame(.letsPlayButtonTapped), fires: ["screen", "board", "status"]) {
      $0 = loggedIn(game: game())
    }
  }

  @Test func namesAreTrimmedAndBlankNamesCannotStart() async {
    let store = makeStore(.newGame(NewGame.State(xName: "  Ann ", oName: " \t ")))
    await store.send(.newGame(.letsPlayButtonTapped))  // Ignored: O has no name.
    #expect(
      TicTacToeCommand("start", state: store.state)
        == .invalid(message: "name both players first ('x NAME', 'o NAME')"))
    await store.send(.newGame(.oNameChanged(" Bob ")), fires: ["new game form"]) {
      $0 = .newGame(NewGame.State(xName: "  Ann ", oName: " Bob "))
    }
    await store.send(.newGame(.letsPlayButtonTapped), fires: ["screen", "board", "status"]) {
      $0 = .newGame(NewGame.State(xName: "  Ann ", oName: " Bob ", game: game()))
    }
  }

  @Test func logoutReturnsToLogin() async {
    let store = makeStore(loggedIn())
    // The login concerns read `false` now where they read nothing before, so they run too
    // (and print nothing).
    await store.send(
      .newGame(.logoutButtonTapped),
      fires: ["screen", "new game form", "login form", "login request"]
    ) {
      $0 = TicTacToe.State()
    }
  }

  @Test func movesAlternateAndRedrawOnlyTheBoardAndStatus() async {
    let store = makeStore(loggedIn(game: game()))
    await store.send(Self.move(4), fires: ["board", "status"]) {
      $0 = loggedIn(game: game(Board(["...", ".X.", "..."]), next: .o))
    }
    await store.send(Self.move(0), fires: ["board", "status"]) {
      $0 = loggedIn(game: game(Board(["O..", ".X.", "..."]), next: .x))
    }
  }

  @Test func aMoveOntoATakenCellIsRefused() async {
    let board = Board(["X..", "...", "..."])
    let store = makeStore(loggedIn(game: game(board, next: .o)))
    await store.send(Self.move(0))  // No change, no observer.
    #expect(
      TicTacToeCommand("a1", state: store.state)
        == .invalid(message: "a1 is taken; free cells: b1, c1, a2, b2, c2, a3, b3, c3"))
  }

  /// Every line, for each player: the winner plays the line, the other player cells off it
  /// that make no line of their own.
  static let wins: [(line: [Int], winner: Player)] = [
    [0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6],
  ]
  .flatMap { line in [(line, Player.x), (line, Player.o)] }

  @Test(arguments: 0..<16) func winOnEveryLineForBothPlayers(index: Int) async {
    let (line, winner) = Self.wins[index]
    let others = (0..<9).filter { !line.contains($0) }
    // Three cells off the line that are not themselves a line (for the loser's moves).
    let lines = [
      [0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6],
    ]
    var loserCells: [Int] = []
    search: for i in 0..<others.count {
      for j in (i + 1)..<others.count {
        for k in (j + 1)..<others.count {
          let cells = [others[i], others[j], others[k]]
          if !lines.contains(cells) {
            loserCells = cells
            break search
          }
        }
      }
    }

    // X moves first: when O wins, X gets three moves before O's third.
    let sequence: [Int] =
      winner == .x
      ? [line[0], loserCells[0], line[1], loserCells[1], line[2]]
      : [loserCells[0], line[0], loserCells[1], line[1], loserCells[2], line[2]]

    let store = makeStore(loggedIn(game: game()))
    var expected = game()
    for (index, cell) in sequence.enumerated() {
      let player: Player = index.isMultiple(of: 2) ? .x : .o
      expected.board[cell / 3, cell % 3] = player
      let isLast = index == sequence.count - 1
      if !isLast { expected.currentPlayer = player.other }
      let state = expected
      await store.send(Self.move(cell), fires: ["board", "status"]) { $0 = loggedIn(game: state) }
    }
    #expect(store.currentGame?.status == .won(winner))
    #expect(store.currentGame?.currentPlayer == winner)  // The winner's turn ended the game.

    // After the end, moves are refused; the program says what to do instead.
    let free = (0..<9).first { expected.board[$0 / 3, $0 % 3] == nil }!
    await store.send(Self.move(free))
    #expect(
      TicTacToeCommand(Board.coordinate(row: free / 3, column: free % 3), state: store.state)
        == .invalid(
          message: "the game is over; type 'again' to play again or 'leave' to leave the game"))
  }

  @Test func aFullBoardWithoutALineIsATie() async {
    // X O X / X O O / O X X, played in an order where no one wins early.
    let moves = [0, 1, 2, 4, 3, 5, 7, 6, 8]
    let store = makeStore(loggedIn(game: game()))
    for cell in moves {
      await store.send(Self.move(cell), fires: ["board", "status"]) {
        guard case .newGame(var newGame) = $0, var game = newGame.game else { return }
        game.board[cell / 3, cell % 3] = game.currentPlayer
        if !game.isOver { game.currentPlayer = game.currentPlayer.other }
        newGame.game = game
        $0 = .newGame(newGame)
      }
    }
    #expect(store.currentGame?.status == .tie)
    #expect(store.currentGame?.board == Board(["XOX", "XOO", "OXX"]))
  }

  @Test func playAgainAfterTheEndKeepsTheNames() async {
    let store = makeStore(loggedIn(game: game(Board(["XXX", "OO.", "..."]), next: .x)))
    await store.send(.newGame(.game(.playAgainButtonTapped)), fires: ["board", "status"]) {
      $0 = loggedIn(game: game())
    }
    // Not before the end.
    await store.send(.newGame(.game(.playAgainButtonTapped)))
    #expect(
      TicTacToeCommand("again", state: store.state)
        == .invalid(message: "the game is not over yet"))
  }

  @Test func quitFromTheGameReturnsToNewGame() async {
    let store = makeStore(loggedIn(game: game(Board(["X..", "...", "..."]), next: .o)))
    await store.send(.newGame(.game(.quitButtonTapped)), fires: ["screen", "board", "status"]) {
      $0 = loggedIn()
    }
  }
}
