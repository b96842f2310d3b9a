// The Todos case study: a to-do list kept in a file. Interactive at a terminal (a prompt,
// `help`); plain when piped, so it can be scripted:
//
//   swift run todos
//   printf 'add Buy milk\nadd Call Ann\ndone 1\n' | swift run todos --file /tmp/todos.json

import Foundation
import TodosCore
import Unidirectional
import UnidirectionalTerminal

let usage = """
  usage: todos [--file PATH]
  A to-do list kept in a file. Reads commands from standard input, one per line; each screen
  has its own commands ('help' lists those of the current one). N is an item's number as the
  list shows it.

  The list:
  \(TodosCommand.commandList(on: .list))

  An item ('open N'):
  \(TodosCommand.commandList(on: .item))

  Its tags ('tags' on an item):
  \(TodosCommand.commandList(on: .tags))

  The editor ('edit N' on the list, 'edit' on an item):
  \(TodosCommand.commandList(on: .editor))

  The list is kept in PATH if given, else in $TODOS_FILE if set, else in ~/.todos.json. It is
  saved after every change, atomically: a crash never leaves a half-written file. A file that
  is not a valid list is reported and left untouched; the program then exits with status 1.

  At a terminal it prompts for each command; Ctrl-D (end of input) or 'quit' leaves, Ctrl-C
  stops at once (status 130). From a pipe or a file it prints only the output, and exits with
  status 1 if any line was refused (each refused line gets one error line), 0 otherwise. Colour
  is used on each stream that is a terminal, unless NO_COLOR is set.
  """

let terminal = Terminal()
let arguments: TodosArguments
switch TodosArguments.parse(Array(CommandLine.arguments.dropFirst())) {
case .success(let parsed):
  arguments = parsed
case .failure(let error):
  terminal.printError("\(error.message); try --help")
  exit(2)
}
if arguments.wantsHelp {
  terminal.print(usage)
  exit(terminal.exitStatus(after: 0))
}

let file = TodoFile(
  path: TodoFile.resolvedPath(
    option: arguments.file, environment: ProcessInfo.processInfo.environment))
// Where the list lives: its file on disk. What goes wrong loading it stops the program; what goes
// wrong saving it is said on the list's screen (see `saveFailed`).
let storeLink = Locked<Store<Todos.State, Todos.Action>?>(nil)
let loadFailure = Locked<SharedStorageError?>(nil)
let storage = SharedStorage(filesOnDisk: true) { error in
  guard let store = storeLink.withLock({ $0 }) else {
    loadFailure.withLock { $0 = $0 ?? error }
    return
  }
  store.send(.saveFailed(TodoFileError(error).description))
}
let initialState = withDependencies {
  $0.sharedStorage = storage
} operation: {
  Todos.State(list: file.sharedList())
}
if let failure = loadFailure.withLock({ $0 }) {
  let error = TodoFileError(failure)
  terminal.printError("\(error)\n\(error.advice)")
  exit(1)
}
let store = withDependencies {
  $0.sharedStorage = storage
} operation: {
  Store(initialState: initialState, reducer: Todos.receivingList())
}
storeLink.withLock { $0 = store }
if terminal.isInteractive {
  terminal.print("Type a command, or 'help'. The list is saved in \(file.path).")
}

// Output comes from observers, one per concern, never from the reducers. The undo window's
// expiry is drawn from an effect's thread while this one waits for input: `Terminal` writes it
// at once.
let observers = store.display(
  TodosDisplay.concerns, errors: TodosDisplay.errorConcerns, on: terminal)

// Ctrl-C ends the program at once, with status 130. Saves are atomic: one cut short leaves the
// file as the previous save wrote it.
terminal.exitOnInterrupt()
var refusedLines = 0
loop: while true {
  terminal.prompt(TodosDisplay.prompt(on: store.screen))
  guard let line = terminal.readLine() else {
    // End of input (Ctrl-D at a terminal): end the prompt's line.
    if terminal.isInteractive { terminal.print("") }
    break
  }
  switch TodosCommand(line, state: store.state) {
  case .send(let action):
    let task = store.send(action)
    // Every other effect ends before the next line is read, so output does not depend on
    // timing; deletes keep their undo timer running.
    if case .deleteTapped = action {} else { await task.finish() }
  case .show:
    terminal.print(TodosDisplay.screen(of: store, styler: terminal.outputStyler))
  case .help:
    terminal.print(TodosCommand.commandList(on: store.screen))
  case .quit:
    break loop
  case .nothing:
    continue
  case .invalid(let message):
    terminal.printError(message)
    refusedLines += 1
  }
}

// Stop the undo timer, then wait for every effect, and for the last save of the list: `exit`
// must cut off neither.
await store.send(.exiting).finish()
await store.waitForEffects()
// The last change of the list is on disk before the program ends.
await storage.saved()
withExtendedLifetime(observers) {}
if store.saveError != nil { exit(terminal.exitStatus(after: 1)) }
exit(terminal.exitStatus(after: !terminal.isInteractive && refusedLines > 0 ? 1 : 0))
