import Foundation
import Unidirectional

/// Runs a program's store with the action log its ``ProgramArguments`` ask for: recording to
/// `--record FILE`, or replaying `--replay FILE`.
///
/// ```swift
/// if let path = arguments.replayPath {
///   ActionLogSession.replayAndExit(
///     from: path, initialState: Counter.State(), reducer: Counter(),
///     concerns: CounterDisplay.concerns, terminal: terminal)
/// }
/// let store = Store(
///   initialState: Counter.State(), reducer: Counter(),
///   interceptors: ActionLogSession.interceptors(for: arguments, terminal: terminal))
/// ```
public enum ActionLogSession {
  /// The interceptors for `arguments`: an action-log recorder for `--record FILE`, else none.
  /// Prints an error and exits with status 1 if the file cannot be created.
  ///
  /// - Parameters:
  ///   - arguments: The program's options.
  ///   - terminal: Where to print an error.
  /// - Returns: The interceptors to create the store with.
  public static func interceptors<State, Action: Encodable & Sendable>(
    for arguments: ProgramArguments, terminal: Terminal
  ) -> [StoreInterceptor<State, Action>] {
    guard let path = arguments.recordPath else { return [] }
    do {
      return [try ActionLogRecorder<Action>(path: path).interceptor()]
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
  ///   - initialState: The state the recorded program started from.
  ///   - reducer: The program's reducer (its effects are not run).
  ///   - concerns: The program's output.
  ///   - terminal: Where to print.
  public static func replayAndExit<R: Reducer>(
    from path: String,
    initialState: R.State,
    reducer: R,
    concerns: [DisplayConcern<R.State, R.Action>],
    terminal: Terminal
  ) -> Never where R.Action: Decodable {
    let log: ActionLog<R.Action>
    do {
      log = try ActionLog(path: path)
    } catch {
      terminal.printError("cannot replay: \(error)")
      exit(1)
    }
    let store = Store(initialState: initialState) { reducer.ignoringEffects() }
    let observers = store.display(concerns, on: terminal)
    log.replay(into: store)
    withExtendedLifetime(observers) {}
    if let error = log.error {
      terminal.printError("the replay stopped after \(log.entries.count) actions: \(error)")
      exit(1)
    }
    exit(0)
  }
}
