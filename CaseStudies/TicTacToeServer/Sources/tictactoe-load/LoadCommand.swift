// tictactoe-load: N concurrent loopback clients play random legal games against
// tictactoe-server, and the same client code measures a bare echo server of the same frames.
//
// Exit codes: 0 when no move was lost or duplicated and no frame was refused; 1 otherwise;
// 64 bad arguments; 69 a server could not be started or reached.

import Foundation
import TicTacToeServerCore

#if canImport(Glibc)
  import Glibc
#endif

let usage = """
  usage: tictactoe-load [--connections N] [--duration SECONDS] [--seed N]
                        [--host 127.0.0.1] [--port P [--server-pid PID]] [--durable]
                        [--ports P1,P2,… [--server-pid PID1,PID2,…] [--server-log F1,F2,…]]
                        [--server PATH] [--one-game]
                        [--server-args "..."] [--rounds N] [--yardstick [--runs N]]

    --connections N   concurrent client connections (default 1000; an even number)
    --duration S      seconds of play per run (default 10)
    --port P          play against the server already listening on P (default: start one)
    --server-pid PID  that server's process, for its resident memory and CPU
    --ports P1,P2,…   play against several servers already listening (a cluster's shards):
                      client i connects to the i-th port in turn; `redirect` frames are
                      followed (a new connection, `rejoin` with the seat token)
    --server-pid L    with --ports: their processes (a comma-separated list), whose CPU is
                      summed
    --server-log L    their log files (as many as pids, same order): the tool sends each
                      SIGUSR1 before and after the run and reads the commits its `holding:`
                      line reports, for commits per second
    --one-game        each connection plays one whole game; the run ends when every game
                      is over (--duration then only bounds it: a game unfinished by then
                      fails the run); no echo baseline
    --durable         start the server durable, with a fresh data directory (removed after)
    --server-args "…" extra arguments for the server this tool starts (e.g. "--data-dir DIR")
    --server PATH     the game server to start instead of tictactoe-server, such as the
                      cluster case study's tictactoe-pg-server (with --server-args
                      "--database …"); the echo baseline stays tictactoe-server
    --rounds N        a memory check instead: N rounds in which the connections open, play one
                      whole game each and close, against a server this tool starts; prints
                      each round's moves/s, the server's resident memory and what it holds
                      (--duration then bounds each round: 60 s by default)
    --yardstick       instead: the game server against its baseline (`tictactoe-server
                      --baseline`: the same reducers without stores), runs alternated, compared
                      on server CPU per move (target: at most 1.33×); durability off
    --runs N          yardstick runs, alternated server/baseline (default 4; even)

  Starts `tictactoe-server --echo` (the baseline) and, unless --port is given,
  `tictactoe-server`, both from the directory of this executable, on free ports.
  """

func usageError(_ message: String) -> Never {
  FileHandle.standardError.write(Data("tictactoe-load: \(message)\n\(usage)\n".utf8))
  exit(64)
}

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("tictactoe-load: \(message)\n".utf8))
  exit(69)
}

/// A server process this tool started.
final class ChildServer {
  let process = Process()
  let port: UInt16
  let stderr = Pipe()

  /// `tictactoe-server` beside this executable (symbolic links resolved).
  static let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    .deletingLastPathComponent().appendingPathComponent("tictactoe-server")

  /// Starts `executable` (by default `tictactoe-server` beside this one) on a free port.
  init(arguments: [String], executable: URL = ChildServer.executable) throws {
    process.executableURL = executable
    process.arguments = ["--port", "0", "--quiet"] + arguments
    let stdout = Pipe()
    process.standardOutput = stdout
    // Quiet servers write a few lines: the pipe never fills while the run lasts.
    process.standardError = stderr
    try process.run()
    var text = ""
    while !text.contains("\n") {
      let data = stdout.fileHandleForReading.availableData
      if data.isEmpty { break }
      text += String(decoding: data, as: UTF8.self)
    }
    guard let line = text.split(separator: "\n").first,
      let port = UInt16(line.split(separator: ":").last ?? "")
    else { throw LoadClient.Failure(description: "\(executable.path) printed: \(text)") }
    self.port = port
  }

  /// Stops the server with SIGTERM; returns its log.
  @discardableResult
  func stop() -> String {
    kill(process.processIdentifier, SIGTERM)
    let log = stderr.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: log, as: UTF8.self)
  }
}

/// The resident memory of a process now and at its peak, in kB, from /proc.
func memory(of pid: Int32) -> (rss: Int, peak: Int)? {
  guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else {
    return nil
  }
  func field(_ name: String) -> Int? {
    guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") })
    else { return nil }
    return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
  }
  guard let rss = field("VmRSS"), let peak = field("VmHWM") else { return nil }
  return (rss, peak)
}

/// The CPU seconds a process used so far (user + system), from /proc.
func cpuSeconds(of pid: Int32) -> Double? {
  guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
    let close = stat.lastIndex(of: ")")
  else { return nil }
  // Fields after the command: state is field 3; utime and stime are fields 14 and 15.
  let fields = stat[stat.index(after: close)...].split(separator: " ")
  guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else {
    return nil
  }
  return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

struct Run {
  var movesPerSecond: Double
  var p50: Double
  var p99: Double
  var max: Double
  var client: LoadClient
  /// CPU seconds used during the run by the server and by this client.
  var serverCPU: Double?
  var clientCPU: Double?
}

func measure(
  _ mode: LoadClient.Mode, port: UInt16, host: String, connections: Int, duration: Double,
  seed: UInt64, serverPID: Int32?
) -> Run {
  measure(
    mode, ports: [port], host: host, connections: connections, duration: duration, seed: seed,
    serverPIDs: serverPID.map { [$0] } ?? [])
}

/// The CPU seconds `pids` used so far, summed; `nil` if one cannot be read (or none given).
func cpuSeconds(of pids: [Int32]) -> Double? {
  guard !pids.isEmpty else { return nil }
  var total = 0.0
  for pid in pids {
    guard let seconds = cpuSeconds(of: pid) else { return nil }
    total += seconds
  }
  return total
}

/// Plays against the servers on `ports` (clients spread over them); the server CPU is that of
/// every process of `serverPIDs`, summed.
func measure(
  _ mode: LoadClient.Mode, ports: [UInt16], host: String, connections: Int, duration: Double,
  seed: UInt64, serverPIDs: [Int32], oneGameEach: Bool = false
) -> Run {
  let client = LoadClient(mode: mode, seed: seed)
  client.oneGameEach = oneGameEach
  do {
    try client.connect(count: connections, host: host, ports: ports)
  } catch {
    fail("\(error)")
  }
  let serverBefore = cpuSeconds(of: serverPIDs)
  let clientBefore = cpuSeconds(of: getpid())
  let seconds = client.run(duration: duration)
  let serverCPU = cpuSeconds(of: serverPIDs).flatMap { after in
    serverBefore.map { (after - $0) / seconds }
  }
  let clientCPU = cpuSeconds(of: getpid()).flatMap { after in
    clientBefore.map { (after - $0) / seconds }
  }
  client.closeAll()
  let sorted = client.latencies.sorted()
  func percentile(_ p: Double) -> Double {
    sorted.isEmpty ? 0 : Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]) / 1000
  }
  return Run(
    movesPerSecond: Double(client.moves) / seconds, p50: percentile(0.5), p99: percentile(0.99),
    max: Double(sorted.last ?? 0) / 1000, client: client, serverCPU: serverCPU,
    clientCPU: clientCPU)
}

func format(_ run: Run, unit: String) -> String {
  var text = String(
    format: "%9.0f %@/s   latency p50 %6.0f µs  p99 %7.0f µs  max %8.0f µs", run.movesPerSecond,
    unit, run.p50, run.p99, run.max)
  if let server = run.serverCPU, let client = run.clientCPU {
    text += String(format: "   CPU: server %.2f, clients %.2f cores", server, client)
  }
  return text
}

/// The commits a server reports on SIGUSR1, in its log at `path` (its `holding:` line:
/// `…, 4878 commits, …`, as `tictactoe-pg-server` and `tictactoe-cluster-shard` write it): signals
/// it, then reads the log until a new such line is there (for at most five seconds).
func reportedCommits(pid: Int32, log path: String) -> Int? {
  func lines() -> [Substring] {
    let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").filter { $0.contains("holding:") && $0.contains(" commits") }
  }
  let before = lines().count
  kill(pid, SIGUSR1)
  let deadline = now() + 5_000_000_000
  while now() < deadline {
    let after = lines()
    if after.count > before, let line = after.last, let range = line.range(of: " commits") {
      let digits = line[..<range.lowerBound].reversed().prefix { $0.isNumber }
      return Int(String(digits.reversed()))
    }
    usleep(10_000)  // The pace of the reads of the log, not a condition.
  }
  return nil
}

/// The commits `pids` report (one log each), summed; `nil` if one does not say.
func reportedCommits(pids: [Int32], logs: [String]) -> Int? {
  guard !pids.isEmpty, pids.count == logs.count else { return nil }
  var total = 0
  for (pid, log) in zip(pids, logs) {
    guard let commits = reportedCommits(pid: pid, log: log) else { return nil }
    total += commits
  }
  return total
}

@main
enum LoadCommand {
  static func main() {
    var connections = 1000
    var duration = 10.0
    var seed: UInt64 = 1
    var host = "127.0.0.1"
    var ports: [UInt16] = []
    var serverPIDs: [Int32] = []
    var serverLogs: [String] = []
    var serverArguments: [String] = []
    var gameServer = ChildServer.executable
    var durableDirectory: String?
    var rounds: Int?
    var durationGiven = false
    var yardstick = false
    var oneGame = false
    var runs = 4
    var arguments = ArgumentList(CommandLine.arguments.dropFirst(), refusing: usageError)
    // Each rule is checked on its own, so that a mistake is named alone.
    while let argument = arguments.next() {
      switch argument {
      case "--connections":
        connections = arguments.number(of: argument, as: Int.self)
        guard connections >= 2, connections % 2 == 0 else {
          usageError(
            "--connections: \(connections) is not an even number of at least 2 (each game seats "
              + "two connections)")
        }
      case "--duration":
        duration = arguments.number(of: argument, as: Double.self)
        durationGiven = true
        guard duration > 0, duration.isFinite else {
          usageError("--duration: \(duration) is not a positive number of seconds")
        }
      case "--seed": seed = arguments.number(of: argument, as: UInt64.self)
      case "--host": host = arguments.value(of: argument)
      case "--port": ports.append(arguments.port(of: argument, allowingZero: false))
      case "--ports":
        let list = arguments.value(of: argument)
        for item in list.split(separator: ",", omittingEmptySubsequences: false) {
          guard let port = UInt16(item), port > 0 else {
            usageError("--ports: \(list) is not a list of ports from 1 to 65535, such as 7001,7002")
          }
          ports.append(port)
        }
      case "--server-pid":
        let list = arguments.value(of: argument)
        for item in list.split(separator: ",", omittingEmptySubsequences: false) {
          guard let pid = Int32(item), pid > 0 else {
            usageError("--server-pid: \(list) is not a process id or a list of them (1,2)")
          }
          serverPIDs.append(pid)
        }
      case "--server-log":
        serverLogs += arguments.value(of: argument).split(separator: ",").map(String.init)
      case "--durable":
        durableDirectory =
          FileManager.default.temporaryDirectory
          .appendingPathComponent("tictactoe-load-\(getpid())").path
      case "--server":
        gameServer = URL(fileURLWithPath: arguments.value(of: argument))
        guard FileManager.default.isExecutableFile(atPath: gameServer.path) else {
          usageError("--server: \(gameServer.path) is not an executable")
        }
      case "--server-args":
        serverArguments = arguments.value(of: argument).split(separator: " ").map(String.init)
      case "--rounds":
        let count = arguments.number(of: argument, as: Int.self)
        guard (1...1000).contains(count) else {
          usageError("--rounds: \(count) is not a number of rounds from 1 to 1000")
        }
        rounds = count
      case "--yardstick": yardstick = true
      case "--one-game": oneGame = true
      case "--runs":
        runs = arguments.number(of: argument, as: Int.self)
        guard runs >= 2, runs % 2 == 0 else {
          usageError("--runs: \(runs) is not an even number of at least 2 (server, baseline, …)")
        }
      case "-h", "--help":
        print(usage)
        exit(0)
      default: usageError("unknown argument: \(argument)")
      }
    }
    guard serverLogs.isEmpty || serverLogs.count == serverPIDs.count else {
      usageError(
        "--server-log: \(serverLogs.count) logs for \(serverPIDs.count) server pids (one log each)")
    }
    guard host == "127.0.0.1" else { usageError("the load test runs on loopback: 127.0.0.1") }
    // The echo baseline always runs on a server this tool starts: without one, say what is
    // missing, where it was looked for and how to build it (not a Foundation error, later).
    let server = ChildServer.executable
    guard FileManager.default.isExecutableFile(atPath: server.path) else {
      fail(
        "no tictactoe-server beside this program: looked for \(server.path). It starts that "
          + "server for the echo baseline (and for the games unless --port is given). Build it "
          + "into the same directory, e.g. 'swift build -c release --product tictactoe-server', "
          + "then run tictactoe-load from there, e.g. '.build/release/tictactoe-load'")
    }
    // Clients and servers hold one descriptor per connection: raise the soft limit.
    var limit = rlimit()
    if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 {
      limit.rlim_cur = limit.rlim_max
      setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
      if Int(limit.rlim_cur) < connections + 64 {
        fail("the descriptor limit (\(limit.rlim_cur)) is below \(connections + 64)")
      }
    }
    signal(SIGPIPE, SIG_IGN)
    if yardstick {
      // The yardstick starts both servers itself, durability off (the baseline has no journal).
      guard ports.isEmpty, durableDirectory == nil, !serverArguments.contains("--data-dir") else {
        usageError("--yardstick starts its own servers, durability off: no --port or --durable")
      }
      guard rounds == nil else { usageError("--yardstick and --rounds are two runs: give one") }
      runYardstick(
        runs: runs, connections: connections, duration: duration, seed: seed, host: host,
        serverArguments: serverArguments)
    }
    if let durableDirectory { serverArguments += ["--data-dir", durableDirectory] }
    // A journal in a directory, or in a database (tictactoe-pg-server).
    let durable = serverArguments.contains("--data-dir") || serverArguments.contains("--database")
    if let rounds {
      guard ports.isEmpty else { usageError("--rounds starts its own server: leave out --port") }
      Rounds.run(
        rounds: rounds, connections: connections, host: host, seed: seed,
        serverArguments: serverArguments, bound: durationGiven ? duration : 60,
        removing: durableDirectory)
    }
    print(
      "tictactoe-load: \(connections) connections, \(duration) s per run, "
        + "\(ProcessInfo.processInfo.activeProcessorCount) cores shared by the clients and the "
        + "server\(durable ? ", durability on" : "")")

    // One game each ends on a fact, not at the duration: a baseline of that length means nothing.
    var echoRun: Run?
    if !oneGame {
      let echo: ChildServer
      do { echo = try ChildServer(arguments: ["--echo"]) } catch { fail("echo server: \(error)") }
      let run = measure(
        .echo, port: echo.port, host: host, connections: connections, duration: duration,
        seed: seed, serverPID: echo.process.processIdentifier)
      echo.stop()
      print("echo baseline: " + format(run, unit: "frames"))
      echoRun = run
    }

    var child: ChildServer?
    if ports.isEmpty {
      do {
        child = try ChildServer(arguments: serverArguments, executable: gameServer)
      } catch {
        fail("server: \(error)")
      }
      serverPIDs = child.map { [$0.process.processIdentifier] } ?? []
      ports = child.map { [$0.port] } ?? []
    }
    // The commits counted lie between the two reports, connects and the grace for the last
    // moves included: they are divided by the time from asking the first to reading the second.
    let commitsAsked = now()
    let commitsBefore = reportedCommits(pids: serverPIDs, logs: serverLogs)
    let gameRun = measure(
      .game, ports: ports, host: host, connections: connections, duration: duration, seed: seed,
      serverPIDs: serverPIDs, oneGameEach: oneGame)
    let commitsAfter = reportedCommits(pids: serverPIDs, logs: serverLogs)
    let commitSeconds = Double(now() - commitsAsked) / 1e9
    let rss = serverPIDs.count == 1 ? memory(of: serverPIDs[0]) : nil
    let serverLog = child?.stop() ?? ""
    print("game server:   " + format(gameRun, unit: "moves "))
    if let cpu = gameRun.serverCPU, gameRun.movesPerSecond > 0 {
      print(
        String(
          format: "server CPU per move: %.1f µs (%@%@)",
          cpu / gameRun.movesPerSecond * 1_000_000,
          serverPIDs.count == 1
            ? "the server's process" : "the \(serverPIDs.count) servers' processes, summed",
          serverArguments.contains("--database") || !serverLogs.isEmpty
            ? "; PostgreSQL's own processes are not counted" : ""))
    }
    if let commitsBefore, let commitsAfter {
      let commits = commitsAfter - commitsBefore
      print(
        String(
          format: "commits: %d during the run, %.0f/s over the %.1f s between the servers' "
            + "reports, %.1f moves per commit (as the servers report them on SIGUSR1)", commits,
          Double(commits) / commitSeconds, commitSeconds,
          commits > 0 ? Double(gameRun.client.moves) / Double(commits) : 0))
    } else if !serverLogs.isEmpty {
      print("commits: unknown (a server did not report them in its log on SIGUSR1)")
    }
    if ports.count > 1 || gameRun.client.redirects > 0 || gameRun.client.movedRejoins > 0 {
      print(
        "servers: \(ports.count) (ports \(ports.map(String.init).joined(separator: ","))); "
          + "redirects followed: \(gameRun.client.redirects); rejoins after moved: "
          + "\(gameRun.client.movedRejoins)")
    }
    let client = gameRun.client
    print(
      "games finished: \(client.games / 2); server resident memory: "
        + (rss.map { "\($0.rss / 1024) MiB (peak \($0.peak / 1024) MiB)" } ?? "unknown"))
    if let echoRun {
      print(
        String(
          format: "ratio: %.2f of the echo's throughput%@",
          gameRun.movesPerSecond / echoRun.movesPerSecond,
          child == nil
            ? " (durability not known: a server this tool did not start)"
            : durable ? " (durability on)" : " (durability off)"))
    }
    let unfinished = oneGame ? connections - client.games : 0
    if unfinished > 0 {
      print("unfinished: \(unfinished) connections' games were not over within \(duration) s")
    }
    print(
      "lost moves: \(client.lost), duplicated moves: \(client.duplicated), refused frames: "
        + "\(client.errors), connections closed by the server: \(client.closedByServer)")
    if let first = client.firstError { print("first refusal: \(first)") }
    // The durable server's last line: "journal: N entries on disk, F flushes in this run"
    // (tictactoe-pg-server: "journal: N entries in PostgreSQL, C commits in this run").
    if durable,
      let line = serverLog.split(separator: "\n").last(where: { $0.contains("journal: ") }),
      let flushes = Int(line.split(separator: ", ").last?.split(separator: " ").first ?? ""),
      let entries = Int(line.split(separator: "journal: ").last?.split(separator: " ").first ?? ""),
      flushes > 0
    {
      let unit = line.contains(" commits in this run") ? "commit" : "fsync"
      print(
        String(
          format: "durability: %d %@s for %d journal entries: %.1f moves per %@ "
            + "(%.1f entries per %@; %.0f %@s/s over the run)", flushes, unit, entries,
          Double(client.moves) / Double(flushes), unit, Double(entries) / Double(flushes), unit,
          Double(flushes) / duration, unit))
    }
    if serverLog.contains("error") { print("server log:\n" + serverLog) }
    let clean =
      client.lost == 0 && client.duplicated == 0 && client.errors == 0
      && client.closedByServer == 0 && (echoRun?.client.lost ?? 0) == 0
      && (echoRun?.client.duplicated ?? 0) == 0 && unfinished == 0
    // `exit` skips `defer`: remove the durable run's directory first.
    if let durableDirectory { try? FileManager.default.removeItem(atPath: durableDirectory) }
    exit(clean ? 0 : 1)
  }
}
