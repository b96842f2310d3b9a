// The counter case study: reads commands from standard input, one per line, and prints what
// changes. Interactive at a terminal (a prompt, `help`); plain when piped, so it can be scripted:
//
//   swift run counter
//   printf '+\nfact\ntimer\nwait 2.5\ntimer\nquit\n' | swift run counter

import CounterCore
import Foundation
import Unidirectional
import UnidirectionalTerminal

let terminal = Terminal()
let arguments = ProgramArguments.parseOrExit(
  usage:
    """
    usage: counter [--record FILE [--force] | --replay FILE]
    Reads commands from standard input, one per line, and prints what changes:

    \(CounterCommand.commandList)

    At a terminal it prompts for each command; Ctrl-D (end of input) or 'quit' leaves, Ctrl-C
    stops at once (status 130). From a pipe or a file it prints only the output, and runs each
    command's effects to the end before reading the next line (except the timer, which runs
    until stopped: use 'wait' to let it tick). Exits with status 0, or 1 when a line from a pipe
    or a file was refused (each refused line gets one error line on standard error). Colour is
    used on each stream that is a terminal, unless NO_COLOR is set.

    \(ProgramArguments.optionsHelp)
    """,
  terminal: terminal
)

if let path = arguments.replayPath {
  ActionLogSession.replayAndExit(
    from: path, program: "counter", initialState: Counter.State(), reducer: Counter(),
    concerns: CounterDisplay.concerns, terminal: terminal)
}
let store = Store(
  initialState: Counter.State(), reducer: Counter(),
  interceptors: ActionLogSession.interceptors(
    for: arguments, program: "counter", terminal: terminal))

// Output comes from observers, one per concern, never from the reducer: each is redrawn only
// when the values it read changed.
let repl = REPL(
  store: store, terminal: terminal, prompt: { _ in "counter> " },
  display: CounterDisplay.concerns, help: { _ in CounterCommand.commandList },
  interpret: { line, _ in
    switch CounterCommand(line) {
    // The timer runs until stopped: a script goes on while it ticks.
    case .send(.toggleTimer): .sendWithoutWaiting(.toggleTimer)
    case .send(let action): .send(action)
    case .wait(let duration): .wait(duration)
    case .help: .help
    case .quit: .quit
    case .nothing: .nothing
    case .invalid(let message): .failure(message)
    }
  }
)
exit(await repl.run(greeting: "Type a command, or 'help'."))
