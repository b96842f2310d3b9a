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
  // A storage of its own: the replay starts from the default settings, takes the ones the
  // session had from the log, and saves nothing.
  let initialState = withDependencies {
    $0.sharedStorage = SharedStorage()
  } operation: {
    Counter.State(settings: CounterSettings.shared(at: "/replay/counter.json"))
  }
  ActionLogSession.replayAndExit(
    from: path, program: "counter", initialState: initialState,
    reducer: Counter.receivingSettings(),
    concerns: CounterDisplay.concerns, terminal: terminal)
}
let settingsPath = CounterSettings.path(environment: ProcessInfo.processInfo.environment)
let store = Store(
  initialState: Counter.State(settings: CounterSettings.shared(at: settingsPath)),
  reducer: Counter.receivingSettings(),
  interceptors: ActionLogSession.interceptors(
    for: arguments, program: "counter", terminal: terminal))
if arguments.recordPath != nil {
  // The log starts with the settings this session has (a step saved by an earlier run), so that
  // its replay counts with the same step. The store's copy stays as it is.
  store.send(.settingsChanged(store.settings.currentChange))
}

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
let status = await repl.run(greeting: "Type a command, or 'help'.")
// The last change of the step is on disk before the program ends.
SharedStorage.live.waitForSaves()
exit(status)
