// The program on the landing page of UnidirectionalTerminal.docc, compiled here so that it
// keeps compiling: keep the two the same.

import Foundation
import Unidirectional
import UnidirectionalTerminal

struct Tally: Reducer {
  struct State: Equatable, Sendable {
    var count = 0
  }

  enum Action: Codable, Equatable, Sendable {
    case increment
  }

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    state.count += 1
    return .none
  }
}

/// The whole program; its `main.swift` is `exit(await tally())`.
func tally() async -> Int32 {
  let terminal = Terminal()
  let arguments = ProgramArguments.parseOrExit(
    usage: "usage: tally [--record FILE [--force] | --replay FILE]", terminal: terminal)
  let display = [
    DisplayConcern<Tally.State, Tally.Action>("count", showsInitialValue: true) {
      store, styler in
      "count: " + styler.styled("\(store.count)", .bold)
    }
  ]
  if let path = arguments.replayPath {
    ActionLogSession.replayAndExit(
      from: path, program: "tally", initialState: Tally.State(), reducer: Tally(),
      concerns: display, terminal: terminal)
  }
  let store = Store(
    initialState: Tally.State(), reducer: Tally(),
    interceptors: ActionLogSession.interceptors(
      for: arguments, program: "tally", terminal: terminal))
  let repl = REPL(
    store: store, terminal: terminal, prompt: { _ in "tally> " }, display: display,
    help: { _ in "+     add one\nquit  leave" },
    interpret: { line, _ in
      let input = InputLine(line)
      switch (input.command, input.argument) {
      case ("", _): return .nothing
      case ("+", ""): return .send(.increment)
      case ("help", ""): return .help
      case ("quit", ""): return .quit
      default: return .failure("unknown command '\(InputLine.excerpt(input.command))'")
      }
    })
  return await repl.run(greeting: "Type a command, or 'help'.")
}
