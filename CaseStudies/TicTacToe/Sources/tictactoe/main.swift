// The TicTacToe case study: log in (with two-factor if the account asks), name the players, and
// play on a board drawn in the terminal. Interactive at a terminal; plain when piped:
//
//   swift run tictactoe
//   printf 'email a@b.c\npassword password\nlogin\nx Ann\no Bob\nstart\nb2\n' | swift run tictactoe

import Foundation
import TicTacToeCore
import Unidirectional
import UnidirectionalTerminal

let terminal = Terminal()
let arguments = ProgramArguments.parseOrExit(
  usage:
    """
    usage: tictactoe [--record FILE [--force] | --replay FILE]
    Reads commands from standard input, one per line. Each screen has its own commands, and
    'help' and 'quit' mean the same on every screen:

    Log in:
    \(TicTacToeCommand.commandList(on: .login))

    Two-factor authentication:
    \(TicTacToeCommand.commandList(on: .twoFactor))

    New game:
    \(TicTacToeCommand.commandList(on: .newGame))

    Game:
    \(TicTacToeCommand.commandList(on: .game))

    At a terminal it prompts for each command; Ctrl-D (end of input) or 'quit' leaves, Ctrl-C
    stops at once (status 130). From a pipe or a file it prints only the output, and each
    command's requests finish before the next line is read. Exits with status 0, or 1 when a
    line from a pipe or a file was refused (each refused line gets one error line on standard
    error). Colour is used on each stream that is a terminal, unless NO_COLOR is set.

    \(ProgramArguments.optionsHelp)
    """,
  terminal: terminal
)

if let path = arguments.replayPath {
  ActionLogSession.replayAndExit(
    from: path, program: "tictactoe", initialState: TicTacToe.State(), reducer: TicTacToe(),
    concerns: TicTacToeDisplay.concerns, terminal: terminal)
}
let store = Store(
  initialState: TicTacToe.State(), reducer: TicTacToe(),
  interceptors: ActionLogSession.interceptors(
    for: arguments, program: "tictactoe", terminal: terminal))

// Output comes from observers, one per concern, never from the reducers.
let repl = REPL(
  store: store, terminal: terminal, prompt: { _ in "tictactoe> " },
  display: TicTacToeDisplay.concerns,
  help: { TicTacToeCommand.commandList(on: $0.screen) },
  interpret: { line, state in
    switch TicTacToeCommand(line, state: state) {
    case .send(let action): .send(action)
    case .readPassword:
      .readSecret(prompt: "password: ") { password in
        password.isEmpty
          ? .failure("the password is empty; type 'password' to try again")
          : .send(.login(.passwordChanged(Secret(password))))
      }
    case .help: .help
    case .exit: .quit
    case .nothing: .nothing
    case .invalid(let message): .failure(message)
    }
  }
)
exit(await repl.run())
