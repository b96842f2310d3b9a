import Foundation
import Unidirectional

/// Runs a program's store with the action log its ``ProgramArguments`` ask for: recording to
/// `--record FILE`, or replaying `--replay FILE`.
///
/// ```swift
/// if let path = arguments.replayPath {
///   ActionLogSession.replayAndExit(
///     from: path, program: "counter", initialState: Counter.State(), reducer: Counter(),
///     concerns: CounterDisplay.concerns, terminal: terminal)
/// }
/// let store = Store(
///   initialState: Counter.State(), reducer: Counter(),
///   interceptors: ActionLogSession.interceptors(
///     for: arguments, program: "counter", terminal: terminal))
/// ```
///
/// Logs are the library's (`ActionLogRecorder`, `ActionLog`): a header line names the program,
/// so a log is never replayed into another one; the file is created readable by its owner only
/// (mode 0600) and an existing file is replaced only with `--force`; payloads wrapped in
/// `Secret` are written redacted, and a replay stops before the first such entry, saying why.
public enum ActionLogSession {
  /// The interceptors for `arguments`: an action-log recorder for `--record FILE`, else none.
  /// Prints an error and exits with status 1 if the file cannot be created, is a directory, or
  /// exists and `--force` was not given.
  ///
  /// - Parameters:
  ///   - arguments: The program's options.
  ///   - program: The program's name, written in the log's header.
  ///   - schemaVersion: The version of the actions' encoding (raise it when old logs can no
  ///     longer be decoded).
  ///   - terminal: Where to print an error.
  /// - Returns: The interceptors to create the store with.
  public static func interceptors<State, Action: Encodable & Sendable>(
    for arguments: ProgramArguments, program: String, schemaVersion: Int = 1,
    terminal: Terminal
  ) -> [StoreInterceptor<State, Action>] {
    guard let path = arguments.recordPath else { return [] }
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory),
      isDirectory.boolValue
    {
      // Said before `--force` is considered: no flag makes a directory a log file.
      terminal.printError("cannot record: \(path) is a directory; give the path of a file")
      exit(1)
    }
    do {
      let recorder = try ActionLogRecorder<Action>(
        path: path, program: program, schemaVersion: schemaVersion,
        overwrite: arguments.overwritesRecord)
      return [recorder.interceptor()]
    } catch let error where error.reason == .fileExists {
      terminal.printError(
        "cannot record: \(path) already exists; add --force to replace it, or choose another file")
      exit(1)
    } catch {
      terminal.printError("cannot record: \(error)")
      exit(1)
    }
  }

  /// Replays the log at `path` into a store that ignores effects, drawing `concerns` as the
  /// live program would, then exits: with status 0, or 1 with an error naming the bad line (the
  /// output then shows the state after the last good action).
  ///
  /// - Parameters:
  ///   - path: The log to replay.
  ///   - program: The program's name: a log recorded by another program is refused, naming
  ///     both.
  ///   - schemaVersion: The newest version of the actions' encoding the program reads.
  ///   - initialState: The state the recorded program started from.
  ///   - reducer: The program's reducer (its effects are not run).
  ///   - concerns: The program's output.
  ///   - terminal: Where to print.
  public static func replayAndExit<R: Reducer>(
    from path: String,
    program: String,
    schemaVersion: Int = 1,
    initialState: R.State,
    reducer: R,
    concerns: [DisplayConcern<R.State, R.Action>],
    terminal: Terminal
  ) -> Never where R.Action: Decodable {
    let log: ActionLog<R.Action>
    do {
      log = try ActionLog(path: path, program: program, schemaVersion: schemaVersion)
    } catch {
      terminal.printError("cannot replay: \(error)")
      exit(1)
    }
    let store = Store(initialState: initialState) { reducer.ignoringEffects() }
    let observers = store.display(concerns, on: terminal)
    log.replay(into: store)
    withExtendedLifetime(observers) {}
    if let error = log.error {
      terminal.printError(
        "the replay stopped after \(log.entries.count) action\(log.entries.count == 1 ? "" : "s"): \(error)"
      )
      exit(terminal.exitStatus(after: 1))
    }
    exit(terminal.exitStatus(after: 0))
  }
}
