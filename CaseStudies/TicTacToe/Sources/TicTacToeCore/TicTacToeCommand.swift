import CaseStudySupport
import Unidirectional

/// One line of user input to the TicTacToe program, parsed for the screen it was typed on.
///
/// Input that cannot apply now (a move onto a taken cell, a move after the end, anything while a
/// request is in flight) is `invalid` with a message, so the state never changes on bad input.
public enum TicTacToeCommand: Equatable, Sendable {
  /// Send this action to the store.
  case send(TicTacToe.Action)
  /// Read the password from the next line, without showing it as it is typed (`password` alone,
  /// on the login screen).
  case readPassword
  /// Show the commands of the current screen.
  case help
  /// Leave the program.
  case exit
  /// Nothing to do (an empty or all-blank line).
  case nothing
  /// The line cannot be used now; `message` says why and what is allowed.
  case invalid(message: String)

  /// The commands of each screen, for help and error messages. `help` and `quit` mean the same
  /// on every screen; each screen's way back (`back`, `logout`, `leave`) has its own name.
  public static func usage(on screen: Screen) -> String {
    switch screen {
    case .login: "email ADDRESS, password SECRET, login, help, quit"
    case .twoFactor: "code DIGITS, submit, back, help, quit"
    case .newGame: "x NAME, o NAME, start, logout, help, quit"
    case .game: "a move such as b2 (column a-c, row 1-3), again, leave, help, quit"
    }
  }

  /// What each command of a screen does, one per line, ending with the commands of every
  /// screen.
  public static func commandList(on screen: Screen) -> String {
    let screenCommands =
      switch screen {
      case .login:
        """
        email ADDRESS    set the email: NAME@DOMAIN, e.g. blob@example.com (put '2fa' in it to
                         try two-factor)
        password SECRET  set the password (the demo accepts 'password')
        password         ask for the password, not shown as it is typed
        login            log in
        """
      case .twoFactor:
        """
        code DIGITS      set the two-factor code: 4 to 8 digits (the demo accepts 1234)
        submit           check the code
        back             return to the login screen
        """
      case .newGame:
        """
        x NAME           set the name of player X
        o NAME           set the name of player O
        start            start a game
        logout           log out, back to the login screen
        """
      case .game:
        """
        b2               mark a cell: column a, b or c, then row 1, 2 or 3 (one move per line)
        again            play again with the same players, once the game is over
        leave            leave the game, back to the new-game screen
        """
      }
    return screenCommands + "\n" + globalCommandList
  }

  /// The commands that mean the same on every screen.
  static let globalCommandList = """
    help             the commands of this screen
    quit, exit       leave the program (so does the end of input)
    """

  /// Parses one line typed on the screen of `state`.
  ///
  /// - Parameters:
  ///   - line: The line, without its newline.
  ///   - state: The program's state when the line is read.
  public init(_ line: String, state: TicTacToe.State) {
    let (command, argument) = line.commandAndArgument
    let screen = state.screen
    switch command {
    case "":
      self = .nothing
      return
    case "help", "quit", "exit":
      // The same on every screen.
      guard argument.isEmpty else {
        self = Self.noArgument(command, on: screen)
        return
      }
      self = command == "help" ? .help : .exit
      return
    default: break
    }
    let invalid = { (message: String) in Self.invalid(message: message) }
    let unknown = invalid(
      "unknown command '\(command.truncatedForDisplay())'; valid here: \(Self.usage(on: screen))")

    switch state {
    case .login(let login):
      if let twoFactor = login.twoFactor {
        self = Self.twoFactor(command, argument, twoFactor) ?? unknown
      } else {
        self = Self.login(command, argument, login) ?? unknown
      }
    case .newGame(let newGame):
      if let game = newGame.game {
        self = Self.game(command, argument, game) ?? unknown
      } else {
        self = Self.newGame(command, argument, newGame) ?? unknown
      }
    }
  }

  /// What is wrong with `address` as an email address, or `nil` if it has the form
  /// NAME@DOMAIN (the domain with a dot inside it, no spaces).
  ///
  /// - Parameter address: The address as typed.
  /// - Returns: The problem, naming the bad part, for an error message.
  public static func emailProblem(_ address: some StringProtocol) -> String? {
    let parts = address.split(separator: "@", omittingEmptySubsequences: false)
    if address.contains(where: \.isWhitespace) { return "it contains a space" }
    guard parts.count == 2 else {
      return parts.count < 2 ? "it has no '@'" : "it has more than one '@'"
    }
    let (name, domain) = (parts[0], parts[1])
    if name.isEmpty { return "nothing comes before the '@'" }
    if domain.isEmpty { return "nothing comes after the '@'" }
    guard let dot = domain.firstIndex(of: "."), dot != domain.startIndex,
      domain.last != "."
    else {
      return "the domain '\(domain.truncatedForDisplay(limit: 30))' has no dot inside it"
    }
    return nil
  }

  /// What is wrong with `code` as a two-factor code, or `nil` if it is 4 to 8 digits.
  ///
  /// - Parameter code: The code as typed.
  /// - Returns: The problem, naming the bad part, for an error message.
  public static func codeProblem(_ code: some StringProtocol) -> String? {
    if let bad = code.first(where: { !("0"..."9").contains($0) }) {
      return "'\(bad)' is not a digit"
    }
    guard (4...8).contains(code.count) else { return "it has \(code.count) digits" }
    return nil
  }

  private static func login(_ command: Substring, _ argument: Substring, _ state: Login.State)
    -> Self?
  {
    guard ["email", "password", "login"].contains(command) else { return nil }
    if state.isLoginRequestInFlight {
      return .invalid(message: "please wait: logging in…")
    }
    switch command {
    case "email":
      guard !argument.isEmpty else {
        return .invalid(message: "'email' needs an address, e.g. 'email blob@example.com'")
      }
      if let problem = emailProblem(argument) {
        return .invalid(
          message: "'\(argument.truncatedForDisplay())' is not an email address: \(problem); "
            + "use the form NAME@DOMAIN, e.g. 'email blob@example.com'")
      }
      return .send(.login(.emailChanged(String(argument))))
    case "password":
      guard !argument.isEmpty else { return .readPassword }
      return .send(.login(.passwordChanged(Secret(String(argument)))))
    default:
      guard argument.isEmpty else { return noArgument(command, on: .login) }
      guard state.isFormValid else {
        return .invalid(message: "set an email and a password first ('email …', 'password …')")
      }
      return .send(.login(.loginButtonTapped))
    }
  }

  private static func twoFactor(
    _ command: Substring, _ argument: Substring, _ state: TwoFactor.State
  ) -> Self? {
    switch command {
    case "back":
      // Allowed while the code is being checked: the check is abandoned.
      guard argument.isEmpty else { return noArgument(command, on: .twoFactor) }
      return .send(.login(.twoFactorDismissed))
    case "code", "submit":
      if state.isRequestInFlight { return .invalid(message: "please wait: checking the code…") }
      if command == "code" {
        guard !argument.isEmpty else {
          return .invalid(message: "'code' needs the code, e.g. 'code 1234'")
        }
        if let problem = codeProblem(argument) {
          return .invalid(
            message: "'\(argument.truncatedForDisplay())' is not a code: \(problem); a code is "
              + "4 to 8 digits, e.g. 'code 1234'")
        }
        return .send(.login(.twoFactor(.codeChanged(Secret(String(argument))))))
      }
      guard argument.isEmpty else { return noArgument(command, on: .twoFactor) }
      guard state.canSubmit else {
        return .invalid(message: "set the code first ('code …')")
      }
      return .send(.login(.twoFactor(.submitButtonTapped)))
    default:
      return nil
    }
  }

  private static func newGame(_ command: Substring, _ argument: Substring, _ state: NewGame.State)
    -> Self?
  {
    switch command {
    case "x", "o":
      guard !argument.isEmpty else {
        return .invalid(message: "'\(command)' needs a name, e.g. '\(command) Blob'")
      }
      guard argument.count <= 40 else {
        return .invalid(message: "a name can have at most 40 characters")
      }
      let name = String(argument)
      return .send(.newGame(command == "x" ? .xNameChanged(name) : .oNameChanged(name)))
    case "start":
      guard argument.isEmpty else { return noArgument(command, on: .newGame) }
      guard state.canStart else {
        return .invalid(message: "name both players first ('x NAME', 'o NAME')")
      }
      return .send(.newGame(.letsPlayButtonTapped))
    case "logout":
      guard argument.isEmpty else { return noArgument(command, on: .newGame) }
      return .send(.newGame(.logoutButtonTapped))
    default:
      return nil
    }
  }

  private static func game(_ command: Substring, _ argument: Substring, _ state: Game.State)
    -> Self?
  {
    switch command {
    case "again":
      guard argument.isEmpty else { return noArgument(command, on: .game) }
      guard state.isOver else { return .invalid(message: "the game is not over yet") }
      return .send(.newGame(.game(.playAgainButtonTapped)))
    case "leave":
      guard argument.isEmpty else { return noArgument(command, on: .game) }
      return .send(.newGame(.game(.quitButtonTapped)))
    default:
      if Board.parseCoordinate(command) != nil, !argument.isEmpty {
        return .invalid(
          message: "one move per line: '\(command)' is a move, and "
            + "'\(argument.truncatedForDisplay())' after it is an extra argument")
      }
      let text = argument.isEmpty ? command : command + argument
      guard let (row, column) = Board.parseCoordinate(text) else {
        return cellProblem(text).map { .invalid(message: $0) }
      }
      let cell = Board.coordinate(row: row, column: column)
      if state.isOver {
        return .invalid(
          message: "the game is over; type 'again' to play again or 'leave' to leave the game")
      }
      guard state.board[row, column] == nil else {
        return .invalid(message: "\(cell) is taken; free cells: \(freeCells(state.board))")
      }
      return .send(.newGame(.game(.cellTapped(row: row, column: column))))
    }
  }

  /// For text shaped like a cell (a letter, then a digit) that is not one: what is wrong.
  private static func cellProblem(_ text: Substring) -> String? {
    let characters = Array(text.filter { !$0.isWhitespace })
    guard characters.count == 2, characters[0].isLetter, characters[1].isNumber else {
      return nil
    }
    let example = "e.g. 'b2' is the centre"
    guard Board.parseCoordinate("\(characters[0])1") != nil else {
      return "no column '\(characters[0])': columns are a, b, c (\(example))"
    }
    return "no row '\(characters[1])': rows are 1, 2, 3 (\(example))"
  }

  private static func noArgument(_ command: Substring, on screen: Screen) -> Self {
    .invalid(message: "'\(command)' takes no argument; valid here: \(usage(on: screen))")
  }

  private static func freeCells(_ board: Board) -> String {
    (0..<3).flatMap { row in
      (0..<3).compactMap { column in
        board[row, column] == nil ? Board.coordinate(row: row, column: column) : nil
      }
    }
    .joined(separator: ", ")
  }
}
