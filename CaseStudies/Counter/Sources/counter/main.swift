// The counter case study: reads commands from standard input, one per line, and prints the
// count whenever it changes.
//
//   swift run counter
//   printf '+\n+\n-\nquit\n' | swift run counter

import CounterCore
import Foundation
import Unidirectional

if CommandLine.arguments.dropFirst().contains(where: { $0 == "--help" || $0 == "-h" }) {
  print(
    """
    usage: counter
    Reads commands from standard input, one per line: \(CounterCommand.usage).
    Prints the count when it changes. Ends at 'quit' or at the end of input.
    """
  )
  exit(0)
}

let store = Store(initialState: Counter.State()) { Counter() }

// Output comes from an observer, never from the reducer: it runs now and after every change.
let countLabel = store.observe(\.count) { count in
  print("count: \(count)")
}

while let line = readLine() {
  switch CounterCommand(line) {
  case .send(let action):
    store.send(action)
  case .quit:
    exit(0)
  case .nothing:
    continue
  case .invalid(let message):
    fflush(nil)  // Keep output and error lines in order when both go to one place.
    FileHandle.standardError.write(Data("error: \(message)\n".utf8))
  }
}
withExtendedLifetime(countLabel) {}
