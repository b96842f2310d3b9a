import Dispatch
import Foundation
import Unidirectional

#if canImport(Glibc)
  import Glibc
#endif

/// What a TicTacToe server program does around its server: its log lines, its signals and its
/// shutdown. `tictactoe-server` and the cluster's `tictactoe-pg-server` share it, so that both
/// stop, log and answer `SIGUSR1` the same way.
///
/// ```swift
/// let signals = ServerProcess.blockSignals()  // First, before any thread is made.
/// let process = ServerProcess(program: "tictactoe-server")
/// … make the game server and its `LineServer`, start it …
/// let name = process.waitForShutdown(signals) { ServerProcess.holding(games, server) }
/// ```
public struct ServerProcess: Sendable {
  /// The program's name, at the start of each log line.
  public let program: String

  /// Creates the process's helpers for `program`.
  public init(program: String) {
    self.program = program
  }

  /// Blocks SIGINT, SIGTERM and SIGUSR1 in the calling thread, and so in every thread made
  /// after (each inherits the mask), so that they stay pending until
  /// ``waitForShutdown(_:holding:)`` takes them; raises the open-file limit to the hard one (a
  /// descriptor per client); ignores SIGPIPE. Call it first, before any thread is made: a
  /// thread that left the signals unblocked could be handed one and drop it or die of it.
  ///
  /// - Returns: The blocked signals, for ``waitForShutdown(_:holding:)``.
  public static func blockSignals() -> sigset_t {
    var signals = sigset_t()
    sigemptyset(&signals)
    sigaddset(&signals, SIGINT)
    sigaddset(&signals, SIGTERM)
    // SIGUSR1 logs what the server holds, and serving goes on (the load tool's rounds).
    sigaddset(&signals, SIGUSR1)
    pthread_sigmask(SIG_BLOCK, &signals, nil)
    var fileLimit = rlimit()
    if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &fileLimit) == 0,
      fileLimit.rlim_cur < fileLimit.rlim_max
    {
      fileLimit.rlim_cur = fileLimit.rlim_max
      setrlimit(Int32(RLIMIT_NOFILE.rawValue), &fileLimit)
    }
    signal(SIGPIPE, SIG_IGN)
    return signals
  }

  /// Writes one line on standard error, with a UTC timestamp and the program's name; one
  /// `write` per line, so lines never interleave.
  public func log(_ message: String) {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    var seconds = now.tv_sec
    var parts = tm()
    gmtime_r(&seconds, &parts)
    let stamp = String(
      format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", parts.tm_year + 1900, parts.tm_mon + 1,
      parts.tm_mday, parts.tm_hour, parts.tm_min, parts.tm_sec, now.tv_nsec / 1_000_000)
    let line = Array("\(stamp) \(program): \(message)\n".utf8)
    line.withUnsafeBytes { _ = write(2, $0.baseAddress, $0.count) }
  }

  /// Logs `error: message` and exits with `code`.
  public func fail(_ message: String, code: Int32) -> Never {
    log("error: \(message)")
    exit(code)
  }

  /// Waits on the calling thread (the main one) for SIGINT or SIGTERM, logging
  /// `holding: …` with what `holding` says on each SIGUSR1, and returns the signal's name.
  ///
  /// Not a dispatch source: on Linux, `dispatchMain()` parks the main thread with signals
  /// unblocked, and a signal delivered there is lost (or, with the default action, ends the
  /// process before the shutdown).
  ///
  /// - Parameters:
  ///   - signals: What ``blockSignals()`` returned.
  ///   - holding: What the server holds now, on one line.
  public func waitForShutdown(_ signals: sigset_t, holding: () -> String) -> String {
    var signals = signals
    var number: Int32 = 0
    while true {
      while sigwait(&signals, &number) != 0 {}
      guard number == SIGUSR1 else { break }
      log("holding: " + holding())
    }
    return number == SIGINT ? "SIGINT" : "SIGTERM"
  }

  /// Waits until everything sent to `journal` is durable, its header included, and returns
  /// `nil`; or returns why its last round failed.
  ///
  /// A server waits so before it listens: a client then never sees a journal that is not on
  /// disk yet, nor a game that recovery closed and has not journaled.
  public static func waitUntilDurable(_ journal: GameJournal) -> ActionLogError? {
    // Detached: a task made here would run on the main actor, whose thread this one may be,
    // waiting.
    let outcome = Locked<ActionLogError?>(nil)
    let flushed = DispatchSemaphore(value: 0)
    Task.detached {
      do throws(ActionLogError) {
        try await journal.log.waitUntilDurable()
      } catch {
        outcome.withLock { $0 = error }
      }
      flushed.signal()
    }
    flushed.wait()
    return outcome.withLock { $0 }
  }

  /// Waits until everything sent to `journal` is durable (or its last round failed), and logs
  /// how many entries it holds: `journal: N entries on disk, F flushes in this run` (the load
  /// tool reads this line), and, if some never became durable, how many and why.
  ///
  /// - Parameters:
  ///   - journal: The journal.
  ///   - place: Where the entries are, for "on disk".
  ///   - commits: The transactions that made them durable, for a journal in a database, read
  ///     once the wait is over: then the line ends with "C commits in this run".
  public func drain(
    _ journal: GameJournal, place: String = "on disk", commits: (@Sendable () -> Int)? = nil
  ) {
    let failure = Self.waitUntilDurable(journal)
    let count =
      commits.map { ", \($0()) commits in this run" }
      ?? journal.flushCount.map { ", \($0) flushes in this run" } ?? ""
    log("journal: \(journal.log.durableCount) entries \(place)" + count)
    let lost = journal.log.recordedCount - journal.log.durableCount
    if lost > 0, let error = failure {
      log(
        "warning: \(lost) journal entries were never made durable (\(error)); none of them was "
          + "acknowledged, and a restart recovers the games without them")
    }
  }

  /// What a game server holds now, on one line: its sessions and games (objects alive, not only
  /// table entries), its connections and their buffers. After a shutdown, all zero unless
  /// something is left behind.
  public static func holding(_ gameServer: GameServer?, _ server: LineServer) -> String {
    let line = server.statistics
    var text =
      "\(line.connections) connections (\(line.connectionObjects) connection objects), "
      + "\(line.bufferBytes) buffer bytes"
    if let gameServer {
      let games = gameServer.statistics
      text =
        "\(games.sessions) sessions (\(games.sessionEntries) session entries, "
        + "\(games.sessionStores) session stores), \(games.games) games "
        + "(\(games.gameEntries) game entries), \(games.queued) queued, " + text
    }
    return text
  }
}
