// The yardstick (issue 34): the game server against its baseline, the same reducers on plain
// state without stores, with the same clients, in runs alternated server/baseline/server/…,
// compared on the server CPU each spends per move.

import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The yardstick's target: the game server may spend at most this many times the baseline's
/// CPU per move (at least 0.75 of its efficiency).
let yardstickTarget = 1.33

/// CPU seconds a process used so far, user and system apart, from /proc/PID/stat.
func cpuTimes(of pid: Int32) -> (user: Double, system: Double)? {
  guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
    let close = stat.lastIndex(of: ")")
  else { return nil }
  // Fields after the command: state is field 3; utime and stime are fields 14 and 15.
  let fields = stat[stat.index(after: close)...].split(separator: " ")
  guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else {
    return nil
  }
  let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
  return (user / ticks, system / ticks)
}

/// Busy and total CPU time of the whole machine so far, in clock ticks, from /proc/stat: how
/// much of the machine other work (builds, other tests) took during a run.
func machineTicks() -> (busy: Double, total: Double)? {
  guard let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
    let line = stat.split(separator: "\n").first, line.hasPrefix("cpu ")
  else { return nil }
  let values = line.split(separator: " ").dropFirst().compactMap { Double($0) }
  guard values.count >= 5 else { return nil }
  // user nice system idle iowait irq softirq steal: idle and iowait are not busy.
  let total = values.prefix(8).reduce(0, +)
  return (total - values[3] - values[4], total)
}

/// One run of the yardstick against one server.
struct YardstickRun {
  /// `server` or `baseline`.
  var label: String
  var movesPerSecond: Double
  var moves: Int
  /// The server's CPU per move, in µs, user and system apart.
  var userPerMove: Double
  var systemPerMove: Double
  /// Cores used on average during the run: the server, the load clients, the whole machine.
  var serverCores: Double
  var clientCores: Double
  var machineCores: Double
  var p50: Double
  var p99: Double
  var client: LoadClient

  var cpuPerMove: Double { userPerMove + systemPerMove }

  /// Which side limited the rate: the server's event loop is one thread, so a server near a
  /// whole core was the bottleneck; otherwise the clients (one thread too) or other work on
  /// the machine were.
  var bottleneck: String {
    if serverCores >= 0.9 { return "server (its loop thread near a whole core)" }
    if clientCores >= 0.9 { return "clients (the load thread near a whole core), not the server" }
    return String(
      format: "neither near a core: the machine (%.2f of %d cores busy) was", machineCores,
      ProcessInfo.processInfo.activeProcessorCount)
  }
}

extension LoadCommand {
  /// Runs the yardstick and exits: `runs` runs of `duration` seconds, alternated between the
  /// game server and the baseline (`tictactoe-server --baseline`), both started once, on free
  /// ports, durability off; prints each run, the medians, their ratio and the verdict.
  static func runYardstick(
    runs: Int, connections: Int, duration: Double, seed: UInt64, host: String,
    serverArguments: [String]
  ) -> Never {
    print(
      "tictactoe-load --yardstick: \(connections) connections, \(duration) s per run, \(runs) "
        + "runs alternated server/baseline, "
        + "\(ProcessInfo.processInfo.activeProcessorCount) cores shared by the clients and the "
        + "servers, durability off")
    print(
      "baseline: tictactoe-server --baseline, the same reducers (Lobby, GameRoom, Session) on "
        + "plain state under a lock per game, on the same event loop, parser and encoder: no "
        + "Store (observation, effects, journal)")
    let servers: [(label: String, child: ChildServer)]
    do {
      servers = [
        ("server", try ChildServer(arguments: serverArguments)),
        ("baseline", try ChildServer(arguments: serverArguments + ["--baseline"])),
      ]
    } catch {
      fail("yardstick servers: \(error)")
    }
    var results: [YardstickRun] = []
    for index in 0..<runs {
      let (label, child) = servers[index % 2]
      let run = measureCPU(
        label, port: child.port, pid: child.process.processIdentifier, host: host,
        connections: connections, duration: duration, seed: seed)
      results.append(run)
      print("run \(index + 1) " + describe(run))
      settle(port: child.port, host: host)
    }
    let logs = servers.map { $0.child.stop() }
    let server = results.filter { $0.label == "server" }
    let baseline = results.filter { $0.label == "baseline" }
    func median(_ values: [Double]) -> Double {
      let sorted = values.sorted()
      guard !sorted.isEmpty else { return .nan }
      let middle = sorted.count / 2
      return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
    for (label, group) in [("server", server), ("baseline", baseline)] {
      print(
        String(
          format: "median %@:%@ %9.0f moves/s   CPU per move %6.2f µs (user %.2f, system %.2f)",
          label, label == "server" ? "  " : "", median(group.map(\.movesPerSecond)),
          median(group.map(\.cpuPerMove)), median(group.map(\.userPerMove)),
          median(group.map(\.systemPerMove))))
    }
    let ratio = median(server.map(\.cpuPerMove)) / median(baseline.map(\.cpuPerMove))
    // Each server run with the baseline run after it: the pairs' ratios show the spread.
    let pairs = stride(from: 0, to: results.count - 1, by: 2).map {
      results[$0].cpuPerMove / results[$0 + 1].cpuPerMove
    }
    print(
      "pairs (server ÷ the baseline run after it): "
        + pairs.map { String(format: "%.2f", $0) }.joined(separator: ", "))
    let met = ratio <= yardstickTarget
    print(
      String(
        format: "ratio: the server uses %.2f× the baseline's CPU per move (%.2f of its "
          + "efficiency); target at most %.2f×: %@", ratio, 1 / ratio, yardstickTarget,
        met ? "met" : "missed"))
    let clients = results.map(\.client)
    let lost = clients.map(\.lost).reduce(0, +)
    let duplicated = clients.map(\.duplicated).reduce(0, +)
    let errors = clients.map(\.errors).reduce(0, +)
    let closed = clients.map(\.closedByServer).reduce(0, +)
    print(
      "lost moves: \(lost), duplicated moves: \(duplicated), refused frames: \(errors), "
        + "connections closed by the server: \(closed)")
    if let first = clients.compactMap(\.firstError).first { print("first refusal: \(first)") }
    for (log, (label, _)) in zip(logs, servers) where log.contains("error") {
      print("\(label) log:\n" + log)
    }
    exit(lost == 0 && duplicated == 0 && errors == 0 && closed == 0 ? 0 : 1)
  }

  /// One run against one server, with its CPU read from /proc before and after, over the whole
  /// of the play (the moves in flight at the deadline included, as they are counted).
  static func measureCPU(
    _ label: String, port: UInt16, pid: Int32, host: String, connections: Int, duration: Double,
    seed: UInt64
  ) -> YardstickRun {
    let client = LoadClient(mode: .game, seed: seed)
    do {
      try client.connect(count: connections, host: host, port: port)
    } catch {
      fail("\(label): \(error)")
    }
    let serverBefore = cpuTimes(of: pid)
    let clientBefore = cpuTimes(of: getpid())
    let machineBefore = machineTicks()
    let start = now()
    let seconds = client.run(duration: duration)
    let elapsed = Double(now() - start) / 1e9
    guard let serverBefore, let serverAfter = cpuTimes(of: pid) else {
      fail("\(label): cannot read /proc/\(pid)/stat")
    }
    let clientCPU = cpuTimes(of: getpid()).flatMap { after in
      clientBefore.map { (after.user + after.system - $0.user - $0.system) }
    }
    let machineCores = machineTicks().flatMap { after in
      machineBefore.map {
        (after.busy - $0.busy) / max(1, after.total - $0.total)
          * Double(ProcessInfo.processInfo.activeProcessorCount)
      }
    }
    client.closeAll()
    let moves = max(1, client.moves)
    let user = serverAfter.user - serverBefore.user
    let system = serverAfter.system - serverBefore.system
    let sorted = client.latencies.sorted()
    func percentile(_ p: Double) -> Double {
      sorted.isEmpty
        ? 0 : Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]) / 1000
    }
    return YardstickRun(
      label: label, movesPerSecond: Double(client.moves) / seconds, moves: client.moves,
      userPerMove: user / Double(moves) * 1e6, systemPerMove: system / Double(moves) * 1e6,
      serverCores: (user + system) / elapsed, clientCores: (clientCPU ?? 0) / elapsed,
      machineCores: machineCores ?? .nan, p50: percentile(0.5), p99: percentile(0.99),
      client: client)
  }

  static func describe(_ run: YardstickRun) -> String {
    String(
      format:
        "%@:%@ %9.0f moves/s   CPU per move %6.2f µs (user %.2f, system %.2f)   latency p50 "
        + "%6.0f µs  p99 %7.0f µs   cores: server %.2f, clients %.2f, machine %.2f   "
        + "bottleneck: %@",
      run.label, run.label == "server" ? "  " : "", run.movesPerSecond, run.cpuPerMove,
      run.userPerMove, run.systemPerMove, run.p50, run.p99, run.serverCores, run.clientCores,
      run.machineCores, run.bottleneck)
  }

  /// Waits until the server has handled the closes of the run's connections: a new connection's
  /// `ping` is answered after the loop has read what was sent before it, so the next run's
  /// server does not share the machine with this one's leftovers.
  static func settle(port: UInt16, host: String) {
    let probe = LoadClient(mode: .game, seed: 0)
    guard (try? probe.connect(count: 1, host: host, port: port)) != nil,
      let fd = probe.connections.first?.fd
    else { return }
    defer { probe.closeAll() }
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
    var timeout = timeval(tv_sec: 10, tv_usec: 0)  // A hang becomes a shorter pause.
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    let ping = Array(#"{"type":"ping"}"#.utf8) + [0x0A]
    _ = ping.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    var received: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while !String(decoding: received, as: UTF8.self).contains("pong") {
      let count = recv(fd, &chunk, chunk.count, 0)
      if count <= 0 { return }
      received += chunk[0..<count]
    }
  }
}
