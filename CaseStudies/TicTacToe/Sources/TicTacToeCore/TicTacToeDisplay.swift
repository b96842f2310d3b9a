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
    // Each field typed is acknowledged with what is still missing (it reads the values, so a
    // change of either prints the line again).
    Concern("login form") { store, styler in
      guard let email = store[\.login?.email], let password = store[\.login?.password] else {
        return nil
      }
      let hasEmail = !InputLine.trimming(email).isEmpty
      let hasPassword = !InputLine.trimming(password).isEmpty
      let text =
        switch (hasEmail, hasPassword) {
        case (false, false): nil as String?
        case (true, false):
          "email set to '\(InputLine.excerpt(email))'; now type 'password SECRET' (or 'password' "
            + "alone, to type it unseen)"
        case (false, true): "password set; now type 'email ADDRESS'"
        case (true, true): "email and password set; ready: type 'login'"
        }
      return text.map { styler.styled($0, .dim) }
    },
    Concern("login request") { store, styler in
      store[\.login?.isLoginRequestInFlight] == true ? styler.styled("logging in…", .dim) : nil
    },
    Concern("login error") { store, styler in
      store[\.login?.error].map { styler.styled("login failed: \($0)", .red) }
    },
    // The code is checked by 'submit', as the login form by 'login': said when it is typed.
    Concern("two-factor form") { store, styler in
      guard let code = store[\.login?.twoFactor?.code], !code.isEmpty else { return nil }
      return styler.styled("code set; type 'submit' to check it", .dim)
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
