import CaseStudySupport
import Unidirectional

/// What the TicTacToe program shows, one concern per observer. Each reads only the values it
/// shows, through precise key paths, so a move redraws the board and the status line and
/// nothing else.
public enum TicTacToeDisplay {
  typealias Concern = DisplayConcern<TicTacToe.State, TicTacToe.Action>

  /// The output concerns, in the order they print after one action.
  public static let concerns: [DisplayConcern<TicTacToe.State, TicTacToe.Action>] = [
    Concern("screen", showsInitialValue: true) { store, terminal in
      let screen = store.screen
      let title =
        switch screen {
        case .login: "Log in"
        case .twoFactor: "Two-factor authentication"
        case .newGame: "New game"
        case .game: "Game"
        }
      return terminal.styled("== \(title) ==", .bold) + "\n"
        + terminal.styled("commands: " + TicTacToeCommand.usage(on: screen), .dim)
    },
    Concern("login form") { store, terminal in
      store[\.login?.isFormValid] == true ? terminal.styled("ready: type 'login'", .dim) : nil
    },
    Concern("login request") { store, terminal in
      store[\.login?.isLoginRequestInFlight] == true ? terminal.styled("logging in…", .dim) : nil
    },
    Concern("login error") { store, terminal in
      store[\.login?.error].map { terminal.styled("login failed: \($0)", .red) }
    },
    Concern("two-factor request") { store, terminal in
      store[\.login?.twoFactor?.isRequestInFlight] == true
        ? terminal.styled("checking the code…", .dim) : nil
    },
    Concern("two-factor error") { store, terminal in
      store[\.login?.twoFactor?.error].map {
        terminal.styled("two-factor failed: \($0)", .red)
      }
    },
    Concern("new game form") { store, terminal in
      store[\.newGame?.canStart] == true ? terminal.styled("ready: type 'start'", .dim) : nil
    },
    Concern("board") { store, terminal in
      store[\.newGame?.game?.board].map { draw($0, terminal: terminal) }
    },
    Concern("status") { store, terminal in
      guard let status = store[\.newGame?.game?.status],
        let xName = store[\.newGame?.game?.xName], let oName = store[\.newGame?.game?.oName]
      else { return nil }
      let name = { (player: Player) in "\(player.rawValue) (\(player == .x ? xName : oName))" }
      switch status {
      case .turn(let player):
        return "\(name(player)) to move"
      case .won(let player):
        return terminal.styled("\(name(player)) wins!", .green)
          + " Type 'again' to play again or 'quit' to leave."
      case .tie:
        return terminal.styled("It's a tie.", .yellow)
          + " Type 'again' to play again or 'quit' to leave."
      }
    },
  ]

  /// The board with its coordinates:
  ///
  /// ```
  ///     a   b   c
  /// 1   X | O |
  ///    ---+---+---
  /// 2     | X |
  ///    ---+---+---
  /// 3     |   | O
  /// ```
  public static func draw(_ board: Board, terminal: Terminal) -> String {
    var lines = ["    a   b   c"]
    for row in 0..<3 {
      let cells = (0..<3).map { column -> String in
        switch board[row, column] {
        case .x: terminal.styled("X", .cyan)
        case .o: terminal.styled("O", .magenta)
        case nil: " "
        }
      }
      var line = "\(row + 1)   " + cells.joined(separator: " | ")
      while line.hasSuffix(" ") { line.removeLast() }
      lines.append(line)
      if row < 2 { lines.append("   ---+---+---") }
    }
    return lines.joined(separator: "\n")
  }
}
