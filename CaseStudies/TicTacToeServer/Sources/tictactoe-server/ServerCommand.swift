// tictactoe-server: serves TicTacToe games over TCP on loopback (see the case study's README).
//
// SIGUSR1 logs what the server holds ("holding: …") and serving goes on.
//
// Exit codes: 0 after SIGINT/SIGTERM (clean shutdown); 64 bad arguments; 71 the socket could not
// be opened (address in use, …); 74 the data directory could not be used (or its journal is
// damaged: --repair-journal moves the damage to a quarantine file and starts).

import Dispatch
import Foundation
import TicTacToeServerCore
import Unidirectional

#if canImport(Glibc)
  import Glibc
#endif

let usage = """
  usage: tictactoe-server [--host 127.0.0.1|::1] [--port N] [--idle-timeout SECONDS]
                          [--max-frame BYTES] [--max-output BYTES] [--max-connections N]
                          [--data-dir DIR [--repair-journal] [--abandon-after SECONDS]]
                          [--quiet] [--echo | --baseline]

    --port N            the port (default 7878); 0 picks a free one
    --idle-timeout S    how long the server waits on a client (default 60)
    --max-frame B       the longest frame accepted (default 4096)
    --max-output B      output a client may leave unread before it is dropped (default 262144)
    --data-dir DIR      durable: journal games in DIR, acknowledge a move only once it is on
                        disk, and recover the games in DIR at start
    --repair-journal    if DIR's journal is damaged (an entry that fails its checksum, with
                        valid entries after it), move that entry and all after it to
                        DIR/journal.jsonl.quarantine-N and start from the entries before it
    --abandon-after S   at start, close (journaled as ended) each recovered game with no move
                        or rejoin in the last S seconds (default 3600)
    --quiet             log warnings and the shutdown summary only, not each game
    --echo              serve a bare echo of each line instead of games
    --baseline          serve games from the baseline: the same reducers on plain state, without
                        stores (the load test's yardstick; no --data-dir)

  Prints "listening on HOST:PORT" on stdout once it accepts connections; logs go to stderr.
  SIGINT or SIGTERM stops it; SIGUSR1 logs what it holds ("holding: …") and it serves on.
  """

/// One line on stderr, with a UTC timestamp; one `write` per line, so lines never interleave.
func log(_ message: String) {
  var now = timespec()
  clock_gettime(CLOCK_REALTIME, &now)
  var seconds = now.tv_sec
  var parts = tm()
  gmtime_r(&seconds, &parts)
  let stamp = String(
    format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", parts.tm_year + 1900, parts.tm_mon + 1,
    parts.tm_mday, parts.tm_hour, parts.tm_min, parts.tm_sec, now.tv_nsec / 1_000_000)
  let line = Array("\(stamp) tictactoe-server: \(message)\n".utf8)
  line.withUnsafeBytes { _ = write(2, $0.baseAddress, $0.count) }
}

func fail(_ message: String, code: Int32) -> Never {
  log("error: \(message)")
  exit(code)
}

func usageError(_ message: String) -> Never {
  FileHandle.standardError.write(Data("tictactoe-server: \(message)\n\(usage)\n".utf8))
  exit(64)
}

/// The server's settings, from its arguments.
struct Options {
  var host = "127.0.0.1"
  var port: UInt16 = 7878
  var idleTimeout = 60.0
  var limits = LineServer.Limits()
  var quiet = false
  var echo = false
  var baseline = false
  var dataDirectory: String?
  var repairJournal = false
  var abandonAfter = 3600.0

  init(_ arguments: [String]) {
    var arguments = arguments[...]
    func value(_ name: String) -> String {
      guard let value = arguments.popFirst() else { usageError("\(name) needs a value") }
      return value
    }
    func number<T: LosslessStringConvertible>(_ name: String, _ type: T.Type) -> T {
      let text = value(name)
      guard let number = T(text) else { usageError("\(name): not a number: \(text)") }
      return number
    }
    while let argument = arguments.popFirst() {
      switch argument {
      case "--host": host = value(argument)
      case "--port":
        // Read as any integer first, so that 99999 is said to be out of range, not no number.
        let requested = number(argument, Int.self)
        guard let valid = UInt16(exactly: requested) else {
          usageError(
            "--port: \(requested) is out of range: a port is 1 to 65535 (0 picks a free one)")
        }
        port = valid
      case "--idle-timeout": idleTimeout = number(argument, Double.self)
      case "--max-frame": limits.maximumFrameBytes = number(argument, Int.self)
      case "--max-output": limits.maximumOutputBytes = number(argument, Int.self)
      case "--max-connections": limits.maximumConnections = number(argument, Int.self)
      case "--quiet": quiet = true
      case "--echo": echo = true
      case "--baseline": baseline = true
      case "--data-dir": dataDirectory = value(argument)
      case "--repair-journal": repairJournal = true
      case "--abandon-after": abandonAfter = number(argument, Double.self)
      case "-h", "--help":
        FileHandle.standardOutput.write(Data((usage + "\n").utf8))
        exit(0)
      default: usageError("unknown argument: \(argument)")
      }
    }
    if baseline && (echo || dataDirectory != nil) {
      usageError("--baseline serves games without a journal: not with --echo or --data-dir")
    }
    if repairJournal && dataDirectory == nil {
      usageError("--repair-journal needs --data-dir")
    }
    guard idleTimeout > 0, limits.maximumFrameBytes > 0, limits.maximumOutputBytes > 0 else {
      usageError("limits and the idle timeout must be positive")
    }
    // Bounded (a century), so that the conversion to whole milliseconds below cannot trap on
    // a value such as 1e300; NaN fails the first comparison.
    guard abandonAfter > 0, abandonAfter <= 3_153_600_000 else {
      usageError("--abandon-after: \(abandonAfter) is not a number of seconds from 0 to 3153600000")
    }
  }
}

@main
enum ServerCommand {
  static func main() {
    // First, before any thread is made: SIGINT and SIGTERM blocked in every thread (each
    // inherits this one's mask), so that they stay pending until the main thread takes them
    // with `sigwait` (at the end). A thread that left them unblocked could be handed one and
    // drop it (ignored) or die of it (default action) before the shutdown.
    var shutdownSignals = sigset_t()
    sigemptyset(&shutdownSignals)
    sigaddset(&shutdownSignals, SIGINT)
    sigaddset(&shutdownSignals, SIGTERM)
    // SIGUSR1 logs what the server holds, and serving goes on (the load tool's rounds).
    sigaddset(&shutdownSignals, SIGUSR1)
    pthread_sigmask(SIG_BLOCK, &shutdownSignals, nil)
    let options = Options(Array(CommandLine.arguments.dropFirst()))
    // Many clients, one descriptor each: raise the soft limit to the hard one.
    var fileLimit = rlimit()
    if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &fileLimit) == 0,
      fileLimit.rlim_cur < fileLimit.rlim_max
    {
      fileLimit.rlim_cur = fileLimit.rlim_max
      setrlimit(Int32(RLIMIT_NOFILE.rawValue), &fileLimit)
    }
    signal(SIGPIPE, SIG_IGN)

    let logEvent: (@Sendable (String) -> Void)? =
      options.quiet ? nil : { @Sendable message in log(message) }
    let journal =
      options.echo
      ? nil
      : options.dataDirectory.map { openJournal($0, repairing: options.repairJournal) }
    let gameServer = GameServer(
      configuration: GameServer.Configuration(
        idleTimeout: .milliseconds(Int64(options.idleTimeout * 1000)),
        log: logEvent, abandonAfter: .milliseconds(Int64(options.abandonAfter * 1000))),
      journal: journal)
    let baseline =
      options.baseline
      ? BaselineServer(
        configuration: GameServer.Configuration(
          idleTimeout: .milliseconds(Int64(options.idleTimeout * 1000)), log: logEvent))
      : nil
    let handler =
      options.echo ? echoHandler() : baseline?.lineHandler ?? gameServer.lineHandler
    let server: LineServer
    do {
      server = try LineServer(
        host: options.host, port: options.port, limits: options.limits,
        log: { log("warning: \($0)") }, handler: handler)
    } catch {
      fail(error.description, code: 71)
    }

    server.start()
    log(
      "listening on \(server.address)"
        + (options.echo ? " (echo)" : options.baseline ? " (baseline: no stores)" : ""))
    FileHandle.standardOutput.write(Data("listening on \(server.address)\n".utf8))

    // The main thread waits for SIGINT or SIGTERM, which every thread blocks (see the top), so
    // the shutdown runs as ordinary code. Not a dispatch source: on Linux, `dispatchMain()` parks
    // the main thread with signals unblocked, and a signal delivered there is lost (or, with the
    // default action, ends the process before the shutdown).
    var number: Int32 = 0
    while true {
      while sigwait(&shutdownSignals, &number) != 0 {}
      guard number == SIGUSR1 else { break }
      log("holding: " + holding(gameServer, server, echo: options.echo))
    }
    log("\(number == SIGINT ? "SIGINT" : "SIGTERM"): no new connections; closing sessions")
    server.stop {
      if let baseline { baseline.shutdown() } else { gameServer.shutdown() }
    }
    if let journal {
      // Nothing journaled is left unwritten: wait for the last flush. Detached: a task made
      // here would run on the main actor, whose thread this one is, waiting.
      let flushed = DispatchSemaphore(value: 0)
      Task.detached {
        try? await journal.log.waitUntilDurable()
        flushed.signal()
      }
      flushed.wait()
      let flushes = journal.flushCount
      log(
        "journal: \(journal.log.durableCount) entries on disk"
          + (flushes.map { ", \($0) flushes in this run" } ?? ""))
    }
    let statistics = baseline?.statistics ?? gameServer.statistics
    log(
      "stopped\(baseline == nil ? "" : " (baseline)"): \(statistics.gamesStarted) games "
        + "started, \(statistics.moves) moves in finished games, \(statistics.games) games "
        + "unfinished, \(statistics.gamesAbandoned) recovered games closed as abandoned")
    if baseline == nil { log("holding: " + holding(gameServer, server, echo: options.echo)) }
    exit(0)
  }

  /// What the server holds now, on one line: its sessions and games (objects alive, not only
  /// table entries), its connections and their buffers. After a shutdown, all zero unless
  /// something is left behind.
  static func holding(_ gameServer: GameServer, _ server: LineServer, echo: Bool) -> String {
    let line = server.statistics
    var text =
      "\(line.connections) connections (\(line.connectionObjects) connection objects), "
      + "\(line.bufferBytes) buffer bytes"
    if !echo {
      let games = gameServer.statistics
      text =
        "\(games.sessions) sessions (\(games.sessionEntries) session entries, "
        + "\(games.sessionStores) session stores), \(games.games) games "
        + "(\(games.gameEntries) game entries), \(games.queued) queued, " + text
    }
    return text
  }

  /// Opens (or recovers) the journal in `directory`, repairing damage if asked; exits 74 if it
  /// cannot.
  static func openJournal(_ directory: String, repairing: Bool) -> GameJournal {
    do {
      let journal = try GameJournal(
        directory: directory, committer: ActionLogCommitter(), repairingDamage: repairing)
      log("journal in \(directory): " + (journal.recovery ?? "new"))
      return journal
    } catch {
      if case .damaged = error.reason {
        fail(
          "data directory \(directory): \(error); to repair: tictactoe-server --data-dir "
            + "\(directory) --repair-journal (moves the damaged entry and all after it to "
            + "\(directory)/journal.jsonl.quarantine-N, then starts)", code: 74)
      }
      fail("data directory \(directory): \(error)", code: 74)
    }
  }

  /// Each line back to its sender: the load test's baseline.
  static func echoHandler() -> LineServer.Handler {
    LineServer.Handler(
      open: { _ in },
      line: { connection, line in
        connection.send(bytes: line)
        connection.send("\n")
      },
      end: { connection, cause in
        if cause == .frameTooLarge { connection.close() }
      })
  }
}
