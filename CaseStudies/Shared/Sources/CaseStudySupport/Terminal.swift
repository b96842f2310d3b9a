import Foundation

/// The case studies' terminal: whether input and output are a person at a terminal, prompts,
/// colour, and error lines.
///
/// Interactive when standard input is a terminal: prompts are shown. Otherwise (a pipe or a
/// file) nothing but the program's output is printed, so sessions can be scripted. Colour is used
/// only when standard output is a terminal and `NO_COLOR` is not set.
///
/// Output may come from any thread (observers run where effects deliver their actions); lines
/// are written whole, and when a prompt is showing on a terminal it is redrawn below them.
public final class Terminal: @unchecked Sendable {
  // Safe: the only mutable state, `shownPrompt`, is read and written only while holding `lock`.
  /// Whether a person is typing: standard input is a terminal.
  public let isInteractive: Bool
  /// Whether output may contain ANSI colour codes.
  public let usesColor: Bool
  /// Whether standard output is a terminal (so a prompt can be erased and redrawn).
  private let outputIsTerminal: Bool
  /// The prompt showing on the terminal now, if any. Guarded by `lock` (an `NSLock`, which
  /// ThreadSanitizer understands, unlike `Mutex` on Linux).
  private var shownPrompt: String?
  private let lock = NSLock()

  /// Creates a terminal with explicit settings (tests), or, by default, from the process's
  /// standard input, standard output and environment.
  public init(
    isInteractive: Bool = isatty(STDIN_FILENO) == 1,
    usesColor: Bool = isatty(STDOUT_FILENO) == 1
      && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
  ) {
    self.isInteractive = isInteractive
    self.usesColor = usesColor
    self.outputIsTerminal = isatty(STDOUT_FILENO) == 1
  }

  /// Text styles for ``styled(_:_:)``.
  public enum Style: String, Sendable {
    /// Bold or bright text.
    case bold = "1"
    /// Faint text, for hints and progress.
    case dim = "2"
    /// Red, for errors.
    case red = "31"
    /// Green.
    case green = "32"
    /// Yellow.
    case yellow = "33"
    /// Blue.
    case blue = "34"
    /// Magenta.
    case magenta = "35"
    /// Cyan.
    case cyan = "36"
  }

  /// `text` in `style` when colour is on; `text` unchanged otherwise.
  public func styled(_ text: String, _ style: Style) -> String {
    usesColor ? "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m" : text
  }

  /// Prints one line of output, from any thread.
  public func print(_ line: String) {
    lock.withLock {
      guard let prompt = shownPrompt, outputIsTerminal else {
        Swift.print(line)
        fflush(nil)
        return
      }
      // Erase the prompt line, print, and show the prompt again below.
      Swift.print("\r\u{1B}[K" + line + "\n" + styled(prompt, .bold), terminator: "")
      fflush(nil)
    }
  }

  /// Shows `text` as a prompt (no newline) when interactive; nothing otherwise.
  public func prompt(_ text: String) {
    guard isInteractive else { return }
    lock.withLock {
      shownPrompt = text
      Swift.print(styled(text, .bold), terminator: "")
      fflush(nil)
    }
  }

  /// Prints `error: message` on standard error, after flushing standard output so that both
  /// keep their order when they go to the same place.
  public func printError(_ message: String) {
    fflush(nil)
    FileHandle.standardError.write(Data((styled("error:", .red) + " " + message + "\n").utf8))
  }

  /// Reads one line of input without its line ending, or `nil` at the end of input. Bytes that
  /// are not UTF-8 become U+FFFD, so any input reads as some line.
  public func readLine() -> String? {
    defer { lock.withLock { shownPrompt = nil } }
    guard var line = Swift.readLine(strippingNewline: true) else { return nil }
    if line.hasSuffix("\r") { line.removeLast() }
    return line
  }
}
