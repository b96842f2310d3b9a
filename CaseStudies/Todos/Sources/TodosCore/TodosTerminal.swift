import CaseStudySupport
import Foundation
import Synchronization
import Unidirectional

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The to-do program's terminal: prompts, colour, output and error lines, written with `write(2)`
/// straight to the file descriptors.
///
/// Output can come from any thread at any time: the undo window expires while the main thread
/// waits for input in `readLine()`. The shared `Terminal` flushes every C stream with
/// `fflush(nil)`, and on glibc that takes the lock of standard input's `FILE` too, which
/// `readLine()` holds while it waits, so output from another thread would wait for the next
/// line of input. This type never touches a `FILE`: it writes bytes to descriptors 1 and 2, so
/// asynchronous output appears at once.
///
/// Interactive when standard input is a terminal (prompts are shown); colour only when standard
/// output is a terminal and `NO_COLOR` is not set. Lines are written whole; when a prompt is
/// showing on a terminal, it is erased and redrawn below them.
public final class TodosTerminal: Sendable {
  /// Whether a person is typing: standard input is a terminal.
  public let isInteractive: Bool
  /// Styles text (its colour setting is this terminal's).
  public let styler: Terminal
  private let outputIsTerminal: Bool
  private let output: Int32
  private let error: Int32
  /// The prompt showing now, if any. Guarded by a pthread mutex (`Locked`), which
  /// ThreadSanitizer understands, unlike `Mutex` on Linux.
  private let shownPrompt = Locked<String?>(nil)

  /// Creates a terminal with explicit settings and descriptors (tests), or, by default, from
  /// the process's standard input, output and error and its environment.
  ///
  /// - Parameters:
  ///   - isInteractive: Whether to show prompts.
  ///   - usesColor: Whether output may contain ANSI colour codes.
  ///   - output: The descriptor for output lines.
  ///   - error: The descriptor for error lines.
  public init(
    isInteractive: Bool = isatty(STDIN_FILENO) == 1,
    usesColor: Bool = isatty(STDOUT_FILENO) == 1
      && ProcessInfo.processInfo.environment["NO_COLOR"] == nil,
    output: Int32 = STDOUT_FILENO,
    error: Int32 = STDERR_FILENO
  ) {
    self.isInteractive = isInteractive
    self.styler = Terminal(isInteractive: isInteractive, usesColor: usesColor)
    self.outputIsTerminal = isatty(output) == 1
    self.output = output
    self.error = error
  }

  /// `text` in `style` when colour is on; `text` unchanged otherwise.
  public func styled(_ text: String, _ style: Terminal.Style) -> String {
    styler.styled(text, style)
  }

  /// Prints one line (or several, separated by newlines) of output, from any thread.
  public func print(_ text: String) {
    shownPrompt.withLock { prompt in
      if let prompt, outputIsTerminal {
        Self.write("\r\u{1B}[K" + text + "\n" + styled(prompt, .bold), to: output)
      } else {
        Self.write(text + "\n", to: output)
      }
    }
  }

  /// Prints `error: message` on standard error, from any thread.
  public func printError(_ message: String) {
    shownPrompt.withLock { prompt in
      let line = styled("error:", .red) + " " + message + "\n"
      if let prompt, outputIsTerminal {
        Self.write("\r\u{1B}[K", to: output)
        Self.write(line, to: error)
        Self.write(styled(prompt, .bold), to: output)
      } else {
        Self.write(line, to: error)
      }
    }
  }

  /// Shows `text` as a prompt (no newline) when interactive; nothing otherwise.
  public func prompt(_ text: String) {
    guard isInteractive else { return }
    shownPrompt.withLock { prompt in
      prompt = text
      Self.write(styled(text, .bold), to: output)
    }
  }

  /// Reads one line of input without its line ending, or `nil` at the end of input. Bytes that
  /// are not UTF-8 become U+FFFD.
  public func readLine() -> String? {
    defer { shownPrompt.withLock { $0 = nil } }
    guard var line = Swift.readLine(strippingNewline: true) else { return nil }
    if line.hasSuffix("\r") { line.removeLast() }
    return line
  }

  /// Writes all of `text` to `descriptor`, retrying after interruptions and short writes. Gives
  /// up silently if the descriptor is closed (output has nowhere to go).
  private static func write(_ text: String, to descriptor: Int32) {
    var text = text
    text.withUTF8 { bytes in
      var offset = 0
      while offset < bytes.count {
        #if canImport(Glibc)
          let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
        #elseif canImport(Musl)
          let written = Musl.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
        #else
          let written = Darwin.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
        #endif
        if written < 0 {
          if errno == EINTR { continue }
          return
        }
        offset += written
      }
    }
  }
}

extension Store {
  /// Draws each concern on `terminal` now (those that show their initial value) and whenever
  /// the values it read change: `concerns` as output lines, `errorConcerns` as error lines.
  ///
  /// - Returns: The observers' tokens; keep them alive as long as the output should update.
  public func display(
    _ concerns: [DisplayConcern<State, Action>],
    errors errorConcerns: [DisplayConcern<State, Action>] = [],
    on terminal: TodosTerminal
  ) -> [ObservationToken] {
    let all = concerns.map { ($0, false) } + errorConcerns.map { ($0, true) }
    return all.map { concern, isError in
      let isRegistered = RegistrationFlag()
      let token = observe { [unowned self] in
        let output = concern.render(self, terminal.styler)
        guard concern.showsInitialValue || isRegistered.value.load(ordering: .acquiring),
          let output
        else { return }
        if isError { terminal.printError(output) } else { terminal.print(output) }
      }
      isRegistered.value.store(true, ordering: .releasing)
      return token
    }
  }
}

private final class RegistrationFlag: Sendable {
  let value = Atomic<Bool>(false)
}
