// tictactoe-pg-server: the TicTacToe server with its journal in PostgreSQL instead of a file
// (same protocol, same reducers; players `rejoin` after a restart). See the package's README.
//
// Exit codes: 0 after SIGINT/SIGTERM (clean shutdown); 64 bad arguments; 69 the database cannot
// be reached at start; 71 the socket could not be opened; 74 the journal in the database cannot
// be used (damaged, another program's, a missing privilege).

import Foundation
import PostgresActionLog
import TicTacToeServerCore
import Unidirectional

#if canImport(Glibc)
  import Glibc
#endif

let usage = """
  usage: tictactoe-pg-server [--database CONNINFO] [--journal NAME] [--host 127.0.0.1|::1]
                             [--port N] [--idle-timeout SECONDS] [--abandon-after SECONDS]
                             [--snapshot-every N] [--quiet]

    --database C        a libpq connection string, such as
                        "host=127.0.0.1 port=5432 dbname=games connect_timeout=5"; empty (the
                        default) takes libpq's environment (PGHOST, PGPORT, PGDATABASE, …)
    --journal NAME      the journal's key in the database's tables (default tictactoe)
    --port N            the port (default 7878); 0 picks a free one
    --idle-timeout S    how long the server waits on a client (default 60)
    --abandon-after S   at start, close (journaled as ended) each recovered game with no move
                        or rejoin in the last S seconds (default 3600)
    --snapshot-every N  journal entries between snapshots of the journal (default 1000)
    --quiet             log warnings and the shutdown summary only, not each game

  A move is acknowledged only once its journal entry committed in PostgreSQL. While the
  database is away, clients are told so ({"type":"error","code":"unavailable"}, then
  {"type":"bye","reason":"unavailable"}) and rejoin once it is back.
  Prints "listening on HOST:PORT" on stdout once it accepts connections; logs go to stderr.
  SIGINT or SIGTERM stops it; SIGUSR1 logs what it holds ("holding: …") and it serves on.
  """

let process = ServerProcess(program: "tictactoe-pg-server")

func usageError(_ message: String) -> Never {
  FileHandle.standardError.write(Data("tictactoe-pg-server: \(message)\n\(usage)\n".utf8))
  exit(64)
}

/// The server's settings, from its arguments.
struct Options {
  var database = ""
  var journal = "tictactoe"
  var host = "127.0.0.1"
  var port: UInt16 = 7878
  var idleTimeout = 60.0
  var abandonAfter = 3600.0
  var snapshotEvery = 1000
  var quiet = false

  init(_ arguments: [String]) {
    var arguments = ArgumentList(arguments, refusing: usageError)
    while let argument = arguments.next() {
      switch argument {
      case "--database": database = arguments.value(of: argument)
      case "--journal": journal = arguments.value(of: argument)
      case "--host": host = arguments.value(of: argument)
      case "--port": port = arguments.port(of: argument, allowingZero: true)
      case "--idle-timeout": idleTimeout = arguments.number(of: argument, as: Double.self)
      case "--abandon-after": abandonAfter = arguments.number(of: argument, as: Double.self)
      case "--snapshot-every": snapshotEvery = arguments.number(of: argument, as: Int.self)
      case "--quiet": quiet = true
      case "-h", "--help":
        FileHandle.standardOutput.write(Data((usage + "\n").utf8))
        exit(0)
      default: usageError("unknown argument: \(argument)")
      }
    }
    guard !journal.isEmpty else { usageError("--journal: a name is needed") }
    // Bounded, so that the conversions to whole milliseconds below cannot trap (NaN fails too).
    guard idleTimeout > 0, idleTimeout <= 86_400 else {
      usageError("--idle-timeout: \(idleTimeout) is not a number of seconds from 0 to 86400")
    }
    guard abandonAfter > 0, abandonAfter <= 3_153_600_000 else {
      usageError("--abandon-after: \(abandonAfter) is not a number of seconds from 0 to 3153600000")
    }
    guard snapshotEvery > 0 else { usageError("--snapshot-every: must be positive") }
  }
}

@main
enum PostgresServerCommand {
  static func main() {
    let signals = ServerProcess.blockSignals()
    let options = Options(Array(CommandLine.arguments.dropFirst()))
    let (database, journal) = openJournal(options)
    let logEvent: (@Sendable (String) -> Void)? =
      options.quiet ? nil : { @Sendable message in process.log(message) }
    let gameServer = GameServer(
      configuration: GameServer.Configuration(
        idleTimeout: .milliseconds(Int64(options.idleTimeout * 1000)),
        log: logEvent, abandonAfter: .milliseconds(Int64(options.abandonAfter * 1000))),
      journal: journal)
    let server: LineServer
    do {
      server = try LineServer(
        host: options.host, port: options.port, log: { process.log("warning: \($0)") },
        handler: gameServer.lineHandler)
    } catch {
      process.fail(error.description, code: 71)
    }
    server.start()
    process.log("listening on \(server.address)")
    FileHandle.standardOutput.write(Data("listening on \(server.address)\n".utf8))

    let stopSignal = process.waitForShutdown(signals) {
      ServerProcess.holding(gameServer, server) + ", database "
        + (database.isUnavailable ? "unavailable" : "connected") + ", \(database.commitCount) "
        + "commits, \(journal.log.recordedCount - journal.log.durableCount) entries waiting"
    }
    process.log("\(stopSignal): no new connections; closing sessions")
    server.stop { gameServer.shutdown() }
    process.drain(journal, place: "in PostgreSQL", commits: { database.commitCount })
    let statistics = gameServer.statistics
    process.log(
      "stopped: \(statistics.gamesStarted) games started, \(statistics.moves) moves in "
        + "finished games, \(statistics.games) games unfinished, \(statistics.gamesAbandoned) "
        + "recovered games closed as abandoned")
    exit(0)
  }

  /// Connects to the database and recovers the journal from it; exits 69 if the database
  /// cannot be reached, 74 if the journal cannot be used.
  static func openJournal(_ options: Options) -> (PostgresActionLogDatabase, GameJournal) {
    do {
      let database = try PostgresActionLogDatabase(
        connectionString: options.database, log: { process.log($0) })
      let recovered = try database.recover(
        log: options.journal, program: GameJournal.program,
        schemaVersion: GameJournal.schemaVersion, redactsSecrets: false,
        initialState: Journal.State(), reducer: Journal(),
        committer: ActionLogCommitter(concurrentFlushes: 1))
      let journal = GameJournal(
        recovered: recovered, snapshotEvery: options.snapshotEvery,
        writeSnapshot: database.snapshotWriter(forLog: options.journal))
      process.log("journal '\(options.journal)' in PostgreSQL: " + (journal.recovery ?? "new"))
      return (database, journal)
    } catch {
      if case .unavailable(let why) = error.reason {
        process.fail(
          "the database cannot be reached (\(why)); check --database (or PGHOST, PGPORT…) and "
            + "that PostgreSQL runs", code: 69)
      }
      if case .damaged = error.reason {
        process.fail(
          "journal '\(options.journal)': \(error). Nothing was changed. Look at the row with "
            + "SELECT sequence, line FROM unidirectional_log_lines WHERE log = "
            + "'\(options.journal)' AND sequence = \((error.line ?? 1) - 1); move it and the rows "
            + "after it to a table of your own, then start again", code: 74)
      }
      process.fail("journal '\(options.journal)': \(error)", code: 74)
    }
  }
}
