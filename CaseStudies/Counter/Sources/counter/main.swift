// The counter case study: reads commands from standard input, one per line, and prints what
// changes. Interactive at a terminal (a prompt, `help`); plain when piped, so it can be scripted:
//
//   swift run counter
//   printf '+\nfact\ntimer\nwait 2.5\ntimer\nquit\n' | swift run counter

import CaseStudySupport
import CounterCore
import Foundation
import Unidirectional

let arguments = ProgramArguments.parseOrExit(
  usage:
    """
    usage: counter [--record FILE | --replay FILE]
    Reads commands from standard input, one per line, and prints what changes:

    \(CounterCommand.commandList)

    At a terminal it prompts for each command. From a pipe or a file it prints only the output,
    and runs each command's effects to the end before reading the next line (except the timer,
    which runs until stopped: use 'wait' to let it tick). Exits with status 0 at 'quit' or at the
    end of input. Colour is used at a terminal unless NO_COLOR is set.

    \(ProgramArguments.optionsHelp)
    """
)

let terminal = Terminal()
if let path = arguments.replayPath {
  Session.replayAndExit(
    from: path, initialState: Counter.State(), reducer: Counter(),
    concerns: CounterDisplay.concerns,
    terminal: terminal)
}
let store = Store(
  initialState: Counter.State(), reducer: Counter(),
  interceptors: Session.interceptors(for: arguments, terminal: terminal))

// Output comes from observers, one per concern, never from the reducer: each is redrawn only
// when the values it read changed.
let observers = store.display(CounterDisplay.concerns, on: terminal)

if terminal.isInteractive { terminal.print("Type a command, or 'help'.") }
loop: while true {
  terminal.prompt("counter> ")
  guard let line = terminal.readLine() else { break }
  switch CounterCommand(line) {
  case .send(let action):
    let task = store.send(action)
    // From a script, each command's effects run to the end before the next line, so output
    // does not depend on timing; the timer runs until stopped.
    if !terminal.isInteractive, action != .toggleTimer { await task.finish() }
  case .wait(let duration):
    try? await Task.sleep(for: duration)
  case .help:
    terminal.print(CounterCommand.commandList)
  case .quit:
    break loop
  case .nothing:
    continue
  case .invalid(let message):
    terminal.printError(message)
  }
}
withExtendedLifetime(observers) {}
exit(0)
