// The TicTacToe case study: log in (with two-factor if the account asks), name the players, and
// play on a board drawn in the terminal. Interactive at a terminal; plain when piped:
//
//   swift run tictactoe
//   printf 'email a@b.c\npassword password\nlogin\nx Ann\no Bob\nstart\nb2\n' | swift run tictactoe

import CaseStudySupport
import Foundation
import TicTacToeCore
import Unidirectional

let arguments = ProgramArguments.parseOrExit(
  usage:
    """
    usage: tictactoe [--record FILE | --replay FILE]
    Reads commands from standard input, one per line. Each screen has its own commands:

    Log in:
    \(TicTacToeCommand.commandList(on: .login))

    Two-factor authentication:
    \(TicTacToeCommand.commandList(on: .twoFactor))

    New game:
    \(TicTacToeCommand.commandList(on: .newGame))

    Game:
    \(TicTacToeCommand.commandList(on: .game))

    'help' lists the commands of the current screen. At a terminal it prompts for each command.
    From a pipe or a file it prints only the output, and each command's requests finish before
    the next line is read. Exits with status 0 at 'quit'/'exit' or at the end of input. Colour
    is used at a terminal unless NO_COLOR is set.

    \(ProgramArguments.optionsHelp)
    """
)

let terminal = Terminal()
if let path = arguments.replayPath {
  Session.replayAndExit(
    from: path, initialState: TicTacToe.State(), reducer: TicTacToe(),
    concerns: TicTacToeDisplay.concerns,
    terminal: terminal)
}
let store = Store(
  initialState: TicTacToe.State(), reducer: TicTacToe(),
  interceptors: Session.interceptors(for: arguments, terminal: terminal))

// Output comes from observers, one per concern, never from the reducers.
let observers = store.display(TicTacToeDisplay.concerns, on: terminal)

loop: while true {
  terminal.prompt("tictactoe> ")
  guard let line = terminal.readLine() else { break }
  switch TicTacToeCommand(line, state: store.state) {
  case .send(let action):
    let task = store.send(action)
    // From a script, requests finish before the next line, so output does not depend on timing.
    if !terminal.isInteractive { await task.finish() }
  case .help:
    terminal.print(TicTacToeCommand.commandList(on: store.screen))
  case .exit:
    break loop
  case .nothing:
    continue
  case .invalid(let message):
    terminal.printError(message)
  }
}
withExtendedLifetime(observers) {}
exit(0)
