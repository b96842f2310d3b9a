import CaseStudySupport

/// One line of user input to the counter program, parsed.
public enum CounterCommand: Equatable, Sendable {
  /// Send this action to the store.
  case send(Counter.Action)
  /// Let time pass (for scripts: the timer ticks meanwhile).
  case wait(Duration)
  /// Show the commands.
  case help
  /// Stop the program.
  case quit
  /// Nothing to do (an empty or all-blank line).
  case nothing
  /// The line is not a command; `message` says what was wrong and what is allowed.
  case invalid(message: String)

  /// The commands the program understands, for help and error messages.
  public static let usage = "+, -, step N, fact, timer, wait SECONDS, help, quit"

  /// What each command does, one per line.
  public static let commandList = """
    +             add the step (1 unless set)
    -             subtract the step (below zero, the count returns toward zero after a second)
    step N        set the step, from 1 to 1000000, kept for the next runs (in ~/.counter.json,
                  or the file COUNTER_SETTINGS names)
    fact          a fact about the current count (a change of the count cancels it)
    timer         start or stop a timer that adds one every second
    wait SECONDS  let time pass, up to 60 seconds (for scripts)
    help          this list
    quit          leave (so do 'exit' and the end of input)
    """

  /// Parses one line. Surrounding whitespace is ignored; anything else is an error.
  ///
  /// - Parameter line: The line, without its newline.
  public init(_ line: String) {
    let (command, argument) = line.commandAndArgument
    switch (command, argument.isEmpty) {
    case ("", _): self = .nothing
    case ("+", true): self = .send(.increment)
    case ("-", true): self = .send(.decrement)
    case ("fact", true): self = .send(.factButtonTapped)
    case ("timer", true): self = .send(.toggleTimer)
    case ("help", true): self = .help
    case ("quit", true), ("exit", true): self = .quit
    case ("step", _):
      guard let step = Int(argument), CounterSettings.steps.contains(step) else {
        self = .invalid(
          message: "'step' needs a whole number from \(CounterSettings.steps.lowerBound) to "
            + "\(CounterSettings.steps.upperBound), e.g. 'step 5'; got "
            + "'\(argument.truncatedForDisplay())'")
        return
      }
      self = .send(.setStep(step))
    case ("wait", _):
      guard let seconds = Double(argument), seconds >= 0, seconds <= 60 else {
        self = .invalid(
          message: "'wait' needs a number of seconds from 0 to 60, e.g. 'wait 2'; got "
            + "'\(argument.truncatedForDisplay())'")
        return
      }
      self = .wait(.milliseconds(Int((seconds * 1000).rounded())))
    case ("+", false), ("-", false), ("fact", false), ("timer", false), ("help", false),
      ("quit", false), ("exit", false):
      self = .invalid(message: "'\(command)' takes no argument; valid commands: \(Self.usage)")
    default:
      self = .invalid(
        message: "unknown command '\(command.truncatedForDisplay())'; valid commands: \(Self.usage)"
      )
    }
  }
}
