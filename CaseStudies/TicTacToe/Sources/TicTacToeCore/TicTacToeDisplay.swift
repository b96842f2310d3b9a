import Unidirectional
import UnidirectionalTerminal

/// What the TicTacToe program shows, one concern per observer. Each reads only the values it
/// shows, through precise key paths, so a move redraws the board and the status line and
/// nothing else.
public enum TicTacToeDisplay {
  typealias Concern = DisplayConcern<TicTacToe.State, TicTacToe.Action>

  /// The output concerns, in the order they print after one action.
  public static let concerns: [DisplayConcern<TicTacToe.State, TicTacToe.Action>] = [
    Concern("screen", showsInitialValue: true) { store, styler in
      let screen = store.screen
      let title =
        switch screen {
        case .login: "Log in"
        case .twoFactor: "Two-factor authentication"
        case .newGame: "New game"
        case .game: "Game"
        }
      return styler.styled("== \(title) ==", .bold) + "\n"
        + styler.styled("commands: " + TicTacToeCommand.usage(on: screen), .dim)
    },
    Concern("login form") { store, styler in
      store[\.login?.isFormValid] == true ? styler.styled("ready: type 'login'", .dim) : nil
    },
    Concern("login request") { store, styler in
      store[\.login?.isLoginRequestInFlight] == true ? styler.styled("logging in…", .dim) : nil
    },
    Concern("login error") { store, styler in
      store[\.login?.error].map { styler.styled("login failed: \($0)", .red) }
    },
    Concern("two-factor request") { store, styler in
      store[\.login?.twoFactor?.isRequestInFlight] == true
        ? styler.styled("checking the code…", .dim) : nil
    },
    Concern("two-factor error") { store, styler in
      store[\.login?.twoFactor?.error].map {
        styler.styled("two-factor failed: \($0)", .red)
      }
    },
    Concern("new game form") { store, styler in
      store[\.newGame?.canStart] == true ? styler.styled("ready: type 'start'", .dim) : nil
    },
    Concern("board") { store, styler in
      store[\.newGame?.game?.board].map { draw($0, styler: styler) }
    },
    Concern("status") { store, styler in
      guard let status = store[\.newGame?.game?.status],
        let xName = store[\.newGame?.game?.xName], let oName = store[\.newGame?.game?.oName]
      else { return nil }
      let name = { (player: Player) in "\(player.rawValue) (\(player == .x ? xName : oName))" }
      switch status {
      case .turn(let player):
        return "\(name(player)) to move"
      case .won(let player):
        return styler.styled("\(name(player)) wins!", .green)
          + " Type 'again' to play again or 'leave' to leave the game."
      case .tie:
        return styler.styled("It's a tie.", .yellow)
          + " Type 'again' to play again or 'leave' to leave the game."
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
  public static func draw(_ board: Board, styler: Styler) -> String {
    var lines = ["    a   b   c"]
    for row in 0..<3 {
      let cells = (0..<3).map { column -> String in
        switch board[row, column] {
        case .x: styler.styled("X", .cyan)
        case .o: styler.styled("O", .magenta)
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
