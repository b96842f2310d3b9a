import Unidirectional

/// A read-eval-print loop bound to a store: a prompt, one command per line, output drawn by the
/// store's observers, and the exit status of a well-behaved command-line tool.
///
/// Each line is handed to `interpret` with the store's current state; the ``Step`` it returns
/// says what to do (send an action, print help, quit, report a bad line). Output never comes
/// from `interpret` or the reducer: the ``DisplayConcern``s observe the store and print what
/// changed, from whichever thread changed it, even while the loop waits for input.
///
/// The loop behaves like `sqlite3` or `git`:
/// - **At a terminal** (standard input is one) it shows the prompt and does not wait for
///   effects: their output appears above the prompt as it arrives. A bad line prints an error
///   and the loop goes on.
/// - **From a script** (a pipe or a file) it prints no prompt and, for ``Step/send(_:)``, waits
///   for the action's effects to finish before reading the next line, so the output does not
///   depend on timing. The exit status is 1 if any line failed, 0 otherwise.
/// - **End of input** (Ctrl-D at a terminal) ends the loop with status 0 (1 for a script with a
///   failed line); at a terminal the prompt's line is ended first.
/// - **Ctrl-C** (`SIGINT`) ends the program at once with status 130, waiting for input or not
///   (see ``Terminal/exitOnInterrupt(status:)``).
/// - **A line with a control character** (an arrow key's `ESC [ A`, a pasted escape sequence)
///   is refused before `interpret` sees it, as a ``Step/failure(_:)`` whose message quotes it
///   escaped (see ``InputLine/controlCharacterProblem(in:)``): the error line never plays an
///   escape sequence back to the terminal.
///
/// ```swift
/// let repl = REPL(
///   store: store, terminal: Terminal(), prompt: { _ in "counter> " },
///   display: CounterDisplay.concerns,
///   help: { _ in "+   add one\nquit  leave" }
/// ) { line, state in
///   let input = InputLine(line)
///   switch input.command {
///   case "": return .nothing
///   case "+": return .send(.increment)
///   case "help": return .help
///   case "quit": return .quit
///   default: return .failure("unknown command '\(InputLine.excerpt(input.command))'")
///   }
/// }
/// exit(await repl.run())
/// ```
public struct REPL<State: Sendable, Action: Sendable> {
  /// What the loop does with one line of input.
  public enum Step: Sendable {
    /// Sends the action to the store. From a script, its effects finish before the next line
    /// is read.
    case send(Action)
    /// Sends the action and never waits for its effects, even from a script: for effects that
    /// run until stopped, such as a timer.
    case sendWithoutWaiting(Action)
    /// Lets time pass before reading the next line (effects run meanwhile).
    case wait(Duration)
    /// Reads the next line without showing it as it is typed (see
    /// ``Terminal/readSecretLine(prompt:)``), such as a password, and does what `then` says
    /// with it. The secret is handed over as read, control characters included: it is never
    /// shown. At a terminal, `prompt` is shown first; from a script, the next line is read.
    case readSecret(prompt: String, then: @Sendable (_ secret: String) -> Step)
    /// Prints the text on standard output.
    case print(String)
    /// Prints the help for the current state.
    case help
    /// Ends the loop.
    case quit
    /// Does nothing (a blank line).
    case nothing
    /// The line was refused: prints `error: message` on standard error, and makes a script's
    /// exit status 1.
    case failure(String)
  }

  /// The store the loop sends actions to.
  public let store: Store<State, Action>
  /// The terminal the loop reads from and prints on.
  public let terminal: Terminal
  private let prompt: (State) -> String
  private let concerns: [DisplayConcern<State, Action>]
  private let errorConcerns: [DisplayConcern<State, Action>]
  private let help: (State) -> String
  private let interpret: (String, State) -> Step

  /// Creates a loop.
  ///
  /// - Parameters:
  ///   - store: The store to send actions to and display.
  ///   - terminal: The terminal to read from and print on.
  ///   - prompt: The prompt for the current state (shown only at a terminal).
  ///   - display: The output, drawn on standard output while the loop runs.
  ///   - errors: Output drawn as `error:` lines on standard error while the loop runs.
  ///   - help: The help text for the current state, printed for ``Step/help``.
  ///   - interpret: What to do with a line (without its newline) typed in the given state; a
  ///     line with a control character other than a tab never reaches it.
  public init(
    store: Store<State, Action>,
    terminal: Terminal,
    prompt: @escaping (State) -> String,
    display: [DisplayConcern<State, Action>] = [],
    errors: [DisplayConcern<State, Action>] = [],
    help: @escaping (State) -> String,
    interpret: @escaping (_ line: String, _ state: State) -> Step
  ) {
    self.store = store
    self.terminal = terminal
    self.prompt = prompt
    self.concerns = display
    self.errorConcerns = errors
    self.help = help
    self.interpret = interpret
  }

  /// Runs the loop until ``Step/quit`` or the end of input, and returns the exit status.
  ///
  /// Installs the terminal's `SIGINT` handler, draws the display (concerns that show their
  /// initial value first), prints `greeting` at a terminal, then reads lines.
  ///
  /// - Parameters:
  ///   - greeting: A line printed first at a terminal only, such as
  ///     `"Type a command, or 'help'."`.
  ///   - exitsOnInterrupt: Whether Ctrl-C (`SIGINT`) ends the process with status 130 (see
  ///     ``Terminal/exitOnInterrupt(status:)``); `false` leaves signals alone (tests).
  /// - Returns: 0, or 1 when input is a script and a line failed, or when output could not be
  ///   written (see ``Terminal/exitStatus(after:)``).
  public func run(greeting: String? = nil, exitsOnInterrupt: Bool = true) async -> Int32 {
    if exitsOnInterrupt { terminal.exitOnInterrupt() }
    let observers = store.display(concerns, errors: errorConcerns, on: terminal)
    defer { withExtendedLifetime(observers) {} }
    if terminal.isInteractive, let greeting { terminal.print(greeting) }
    var failures = 0
    loop: while true {
      terminal.prompt(prompt(store.state))
      guard let line = terminal.readLine() else {
        // End of input: at a terminal, end the line the prompt is on.
        if terminal.isInteractive { terminal.print("") }
        break
      }
      var step =
        InputLine.controlCharacterProblem(in: line).map(Step.failure)
        ?? interpret(line, store.state)
      while case .readSecret(let secretPrompt, let then) = step {
        guard let secret = terminal.readSecretLine(prompt: secretPrompt) else {
          if terminal.isInteractive { terminal.print("") }
          break loop
        }
        step = then(secret)
      }
      switch step {
      case .send(let action):
        let task = store.send(action)
        if !terminal.isInteractive { await task.finish() }
      case .sendWithoutWaiting(let action):
        _ = store.send(action)
      case .wait(let duration):
        try? await Task.sleep(for: duration)
      case .print(let text):
        terminal.print(text)
      case .help:
        terminal.print(help(store.state))
      case .quit:
        break loop
      case .nothing, .readSecret:
        continue
      case .failure(let message):
        terminal.printError(message)
        failures += 1
      }
    }
    return terminal.exitStatus(after: !terminal.isInteractive && failures > 0 ? 1 : 0)
  }
}
