import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A program's terminal: its input lines, its output and error lines, a prompt, and colour.
///
/// **Interactive** when standard input is a terminal: ``prompt(_:)`` shows a prompt. Otherwise
/// (a pipe or a file) nothing but the program's output is printed, so sessions can be scripted.
///
/// **Colour per stream**: output lines are coloured only when standard output is a terminal,
/// error lines only when standard error is, and neither when the environment sets `NO_COLOR`
/// to a non-empty value (<https://no-color.org>).
///
/// **Output from any thread, at once**: effects deliver actions on their own threads while the
/// main thread waits for input in ``readLine()``; the observers that draw those actions print
/// immediately. Output is written with `write(2)` straight to the file descriptors, and input is
/// read with `read(2)` into the terminal's own buffer: no C `FILE` lock is involved, so nothing
/// waits for the next line of input (on glibc, `fflush(nil)` locks `stdin`, which `readLine()`
/// holds while it waits). Each call writes its text whole; when a prompt is showing on a
/// terminal, it is erased and drawn again below the new line. What the user had typed on that
/// line is not drawn again: the terminal's line discipline keeps it (it is still submitted with
/// the next Return), but the screen no longer shows it. The terminal is never put in raw mode,
/// so this layer cannot redraw it.
///
/// ```swift
/// let terminal = Terminal()
/// terminal.prompt("counter> ")
/// while let line = terminal.readLine() {
///   terminal.print("you typed " + terminal.styled(line, .bold))
///   terminal.prompt("counter> ")
/// }
/// ```
public final class Terminal: Sendable {
  /// Whether a person is typing: standard input is a terminal.
  public let isInteractive: Bool
  /// Styles text for standard output (colour only if it is a terminal and `NO_COLOR` is unset).
  public let outputStyler: Styler
  /// Styles text for standard error (colour only if it is a terminal and `NO_COLOR` is unset).
  public let errorStyler: Styler

  private let input: Int32
  private let output: Int32
  private let error: Int32
  /// Whether the output descriptor is a terminal, so a prompt can be erased and redrawn.
  private let outputIsTerminal: Bool
  /// The prompt showing now, if any. Its lock also serializes every write, so lines from
  /// different threads never interleave.
  private let shownPrompt = Protected<String?>(nil)
  /// Whether this terminal installed the `SIGINT` handler and shows prompts on a terminal: it
  /// then tells the handler whether a prompt is showing, so that the handler ends its line.
  private let tellsInterruptAboutPrompts = Atomic<Bool>(false)
  /// Input read but not yet returned. A lock of its own: a reader waiting for input never
  /// holds the output lock.
  private let reader = Protected(LineReader())
  /// The `errno` of the first write to standard output that failed, 0 if none did.
  private let outputFailure = Atomic<Int32>(0)

  /// Creates the terminal of the process (by default) or of the given descriptors, deciding
  /// from them whether it is interactive and where colour is used.
  ///
  /// - Parameters:
  ///   - input: The descriptor lines are read from.
  ///   - output: The descriptor for output lines and prompts.
  ///   - error: The descriptor for error lines.
  ///   - environment: The environment, for `NO_COLOR`.
  public convenience init(
    input: Int32 = STDIN_FILENO,
    output: Int32 = STDOUT_FILENO,
    error: Int32 = STDERR_FILENO,
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) {
    let colorAllowed = (environment["NO_COLOR"] ?? "").isEmpty
    self.init(
      input: input, output: output, error: error,
      isInteractive: Descriptor.isTerminal(input),
      outputUsesColor: colorAllowed && Descriptor.isTerminal(output),
      errorUsesColor: colorAllowed && Descriptor.isTerminal(error))
  }

  /// Creates a terminal with explicit settings, for tests.
  ///
  /// - Parameters:
  ///   - input: The descriptor lines are read from.
  ///   - output: The descriptor for output lines and prompts.
  ///   - error: The descriptor for error lines.
  ///   - isInteractive: Whether to show prompts.
  ///   - outputUsesColor: Whether output lines may contain ANSI colour codes.
  ///   - errorUsesColor: Whether error lines may contain ANSI colour codes.
  public init(
    input: Int32 = STDIN_FILENO,
    output: Int32 = STDOUT_FILENO,
    error: Int32 = STDERR_FILENO,
    isInteractive: Bool,
    outputUsesColor: Bool,
    errorUsesColor: Bool
  ) {
    self.input = input
    self.output = output
    self.error = error
    self.isInteractive = isInteractive
    self.outputStyler = Styler(usesColor: outputUsesColor)
    self.errorStyler = Styler(usesColor: errorUsesColor)
    self.outputIsTerminal = Descriptor.isTerminal(output)
  }

  /// `text` in `style` for standard output: styled when output uses colour, plain otherwise.
  ///
  /// - Parameters:
  ///   - text: The text to style.
  ///   - style: The style to show it in.
  /// - Returns: The styled text.
  public func styled(_ text: some StringProtocol, _ style: TextStyle) -> String {
    outputStyler.styled(text, style)
  }

  /// Prints `text` and a newline on standard output, from any thread.
  ///
  /// - Parameter text: One line, or several separated by newlines.
  public func print(_ text: String) {
    shownPrompt.withLock { prompt in
      if let prompt, outputIsTerminal {
        // Erase the prompt's line, print, and show the prompt again below.
        noteFailure(
          Descriptor.write("\r\u{1B}[K" + text + "\n" + styled(prompt, .bold), to: output))
      } else {
        noteFailure(Descriptor.write(text + "\n", to: output))
      }
    }
  }

  /// Remembers the first failed write to standard output.
  private func noteFailure(_ error: Int32) {
    guard error != 0 else { return }
    _ = outputFailure.compareExchange(expected: 0, desired: error, ordering: .relaxed)
  }

  /// The status to exit with once the program's work ended with `status`: `status`, or 1 if
  /// some output could not be written (a full disk, a closed pipe), which is then said on
  /// standard error. Without it, a script would take the program's silence for success, as a
  /// tool that ignores write errors lets it.
  ///
  /// ```swift
  /// exit(terminal.exitStatus(after: 0))
  /// ```
  ///
  /// - Parameter status: The status the program's own work ended with.
  /// - Returns: `status`, or 1 if a write to standard output failed.
  public func exitStatus(after status: Int32) -> Int32 {
    let failure = outputFailure.load(ordering: .relaxed)
    guard failure != 0 else { return status }
    printError("cannot write the output: \(String(cString: strerror(failure)))")
    return status == 0 ? 1 : status
  }

  /// Prints `error: message` on standard error, from any thread.
  ///
  /// - Parameter message: What went wrong, in one line (more lines are allowed).
  public func printError(_ message: String) {
    shownPrompt.withLock { prompt in
      let line = errorStyler.styled("error:", .red) + " " + message + "\n"
      if let prompt, outputIsTerminal {
        Descriptor.write("\r\u{1B}[K", to: output)
        Descriptor.write(line, to: error)
        Descriptor.write(styled(prompt, .bold), to: output)
      } else {
        Descriptor.write(line, to: error)
      }
    }
  }

  /// Shows `text` as a prompt (no newline) when interactive; does nothing otherwise.
  ///
  /// The prompt stays until ``readLine()`` returns; lines printed meanwhile appear above it.
  ///
  /// - Parameter text: The prompt, such as `"counter> "`.
  public func prompt(_ text: String) {
    guard isInteractive else { return }
    shownPrompt.withLock { prompt in
      prompt = text
      // Told before the prompt is written: a Ctrl-C right after the write must find it, or the
      // shell's prompt would start after ours (the other way round, it ends an empty line).
      if tellsInterruptAboutPrompts.load(ordering: .relaxed) { Interrupt.promptShows(on: output) }
      noteFailure(Descriptor.write(styled(text, .bold), to: output))
    }
  }

  /// Reads one line of input without its line ending, waiting for it; `nil` at the end of
  /// input (Ctrl-D at a terminal).
  ///
  /// Bytes that are not UTF-8 become U+FFFD, so any input reads as some line. A last line
  /// without a newline is returned before the end of input is.
  ///
  /// - Returns: The line, or `nil` at the end of input.
  public func readLine() -> String? {
    defer {
      shownPrompt.withLock { prompt in
        prompt = nil
        if tellsInterruptAboutPrompts.load(ordering: .relaxed) { Interrupt.promptShows(on: nil) }
      }
    }
    let input = input
    let (line, unterminated) = reader.withLock { reader in
      (reader.nextLine(from: input), reader.lastLineWasUnterminated)
    }
    if line != nil, unterminated, isInteractive, outputIsTerminal {
      // Ctrl-D after typing: the cursor is still after the typed text. End that line, or the
      // output the line causes would be glued to it.
      shownPrompt.withLock { _ in noteFailure(Descriptor.write("\n", to: output)) }
    }
    return line
  }

  /// Reads one line that is not shown as it is typed, such as a password; `nil` at the end of
  /// input.
  ///
  /// At a terminal, shows `prompt` and turns the terminal's echo off while the line is typed
  /// (the newline still shows), then turns it back on; Ctrl-C meanwhile (with
  /// ``exitOnInterrupt(status:)``) turns it back on before the program ends. Otherwise (input
  /// from a pipe or a file) it reads the next line as ``readLine()`` does, without a prompt.
  ///
  /// - Parameter text: The prompt, such as `"password: "`.
  /// - Returns: The line, or `nil` at the end of input.
  public func readSecretLine(prompt text: String) -> String? {
    var settings = termios()
    guard isInteractive, tcgetattr(input, &settings) == 0 else {
      prompt(text)
      return readLine()
    }
    var quiet = settings
    quiet.c_lflag &= ~tcflag_t(ECHO)
    quiet.c_lflag |= tcflag_t(ECHONL)
    Interrupt.echoIsOff(on: input, settings: settings)
    _ = tcsetattr(input, TCSANOW, &quiet)
    defer {
      _ = tcsetattr(input, TCSANOW, &settings)
      Interrupt.echoIsOff(on: nil, settings: settings)
    }
    prompt(text)
    return readLine()
  }

  /// Ends the program with `status` when it receives `SIGINT` (Ctrl-C at a terminal), from any
  /// state: waiting for input or running effects.
  ///
  /// The terminal's settings are changed only while ``readSecretLine(prompt:)`` waits (its echo
  /// is then put back), so there is little to restore but the cursor: at a terminal, if a
  /// prompt is showing, its line (with the `^C` echo) is ended first, so the shell's prompt
  /// starts on a line of its own. Output is never buffered, so none is lost.
  ///
  /// With the default status the process then ends by `SIGINT` itself, as well-behaved Unix
  /// tools do: the shell reports status 130, and a script that ran the program stops too
  /// (a plain `exit(130)` would let it carry on). Any other status is an ordinary exit with it.
  ///
  /// - Parameter status: The exit status; 130 (128 + `SIGINT`), the default, ends the process
  ///   by the signal.
  public func exitOnInterrupt(status: Int32 = 130) {
    Interrupt.install(status: status)
    tellsInterruptAboutPrompts.store(isInteractive && outputIsTerminal, ordering: .relaxed)
  }
}
