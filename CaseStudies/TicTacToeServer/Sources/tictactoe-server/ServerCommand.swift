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
                          [--data-dir DIR [--repair-journal] [--abandon-after SECONDS]
                                          [--snapshot-every ENTRIES]]
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
    --snapshot-every N  snapshot the journal's games and leaderboard every N entries
                        (default 1000)
    --quiet             log warnings and the shutdown summary only, not each game
    --echo              serve a bare echo of each line instead of games
    --baseline          serve games from the baseline: the same reducers on plain state, without
                        stores (the load test's yardstick; no --data-dir)

  Prints "listening on HOST:PORT" on stdout once it accepts connections; logs go to stderr.
  SIGINT or SIGTERM stops it; SIGUSR1 logs what it holds ("holding: …") and it serves on.
  """

let process = ServerProcess(program: "tictactoe-server")

func log(_ message: String) {
  process.log(message)
}

func fail(_ message: String, code: Int32) -> Never {
  process.fail(message, code: code)
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
  var snapshotInterval = 1000

  init(_ arguments: [String]) {
    var arguments = ArgumentList(arguments, refusing: usageError)
    while let argument = arguments.next() {
      switch argument {
      case "--host": host = arguments.value(of: argument)
      case "--port": port = arguments.port(of: argument, allowingZero: true)
      case "--idle-timeout": idleTimeout = arguments.number(of: argument, as: Double.self)
      case "--max-frame": limits.maximumFrameBytes = arguments.number(of: argument, as: Int.self)
      case "--max-output": limits.maximumOutputBytes = arguments.number(of: argument, as: Int.self)
      case "--max-connections":
        limits.maximumConnections = arguments.number(of: argument, as: Int.self)
      case "--quiet": quiet = true
      case "--echo": echo = true
      case "--baseline": baseline = true
      case "--data-dir": dataDirectory = arguments.value(of: argument)
      case "--repair-journal": repairJournal = true
      case "--abandon-after": abandonAfter = arguments.number(of: argument, as: Double.self)
      case "--snapshot-every": snapshotInterval = arguments.number(of: argument, as: Int.self)
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
    guard snapshotInterval > 0 else {
      usageError("--snapshot-every: \(snapshotInterval) is not a number of entries from 1")
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
    let signals = ServerProcess.blockSignals()
    let options = Options(Array(CommandLine.arguments.dropFirst()))

    let logEvent: (@Sendable (String) -> Void)? =
      options.quiet ? nil : { @Sendable message in log(message) }
    let journal =
      options.echo
      ? nil
      : options.dataDirectory.map {
        openJournal(
          $0, repairing: options.repairJournal, snapshotInterval: options.snapshotInterval)
      }
    let gameServer = GameServer(
      configuration: GameServer.Configuration(
        idleTimeout: .milliseconds(Int64(options.idleTimeout * 1000)),
        log: logEvent, abandonAfter: .milliseconds(Int64(options.abandonAfter * 1000))),
      journal: journal)
    // Served only once the journal is on disk: its header, and the games recovery closed.
    if let journal, let failure = ServerProcess.waitUntilDurable(journal) {
      fail("the journal cannot be written: \(failure)", code: 74)
    }
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

    let stopSignal = process.waitForShutdown(signals) {
      ServerProcess.holding(options.echo ? nil : gameServer, server)
    }
    log("\(stopSignal): no new connections; closing sessions")
    server.stop {
      if let baseline { baseline.shutdown() } else { gameServer.shutdown() }
    }
    // Nothing journaled is left unwritten: wait for the last flush.
    if let journal { process.drain(journal) }
    let statistics = baseline?.statistics ?? gameServer.statistics
    log(
      "stopped\(baseline == nil ? "" : " (baseline)"): \(statistics.gamesStarted) games "
        + "started, \(statistics.moves) moves in finished games, \(statistics.games) games "
        + "unfinished, \(statistics.gamesAbandoned) recovered games closed as abandoned")
    if baseline == nil {
      log("holding: " + ServerProcess.holding(options.echo ? nil : gameServer, server))
    }
    exit(0)
  }

  /// Opens (or recovers) the journal in `directory`, repairing damage if asked; exits 74 if it
  /// cannot.
  static func openJournal(_ directory: String, repairing: Bool, snapshotInterval: Int)
    -> GameJournal
  {
    do {
      let journal = try GameJournal(
        directory: directory, committer: ActionLogCommitter(),
        snapshotInterval: snapshotInterval, repairingDamage: repairing)
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
