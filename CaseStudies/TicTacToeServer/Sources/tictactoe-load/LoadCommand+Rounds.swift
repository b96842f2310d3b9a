import Foundation

#if canImport(Glibc)
  import Glibc
#endif

// `--rounds N`: a memory check. Each round, C connections open, each plays one whole game, and
// all close; then the tool asks the server what it holds (SIGUSR1 makes it log a `holding:`
// line) until the server has let every connection go, and prints the round's moves/s, the
// server's resident memory and that line. What the server holds must come back, round after
// round, to its level after the first.

/// The log of a server this tool started, read line by line as it comes.
final class ServerLog {
  let child: ChildServer
  private var buffer: [UInt8] = []

  init(_ child: ChildServer) {
    self.child = child
  }

  /// The next line of the log, waiting for it; `nil` once the server closed its stderr.
  func nextLine() -> String? {
    while true {
      if let newline = buffer.firstIndex(of: 0x0A) {
        let line = String(decoding: buffer[..<newline], as: UTF8.self)
        buffer.removeFirst(newline + 1)
        return line
      }
      let data = child.stderr.fileHandleForReading.availableData
      if data.isEmpty { return nil }
      buffer += data
    }
  }

  /// Asks the server what it holds and returns its answer (after `holding: `).
  func holding() -> String? {
    kill(child.process.processIdentifier, SIGUSR1)
    while let line = nextLine() {
      if let range = line.range(of: "holding: ") { return String(line[range.upperBound...]) }
    }
    return nil
  }
}

/// What a `holding:` line says, as numbers: the counts of sessions, connections, buffers…
func counts(_ holding: String) -> [Int] {
  holding.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
}

enum Rounds {
  /// Runs `rounds` rounds of `connections` connections against a server this tool starts, and
  /// exits: 0 if every round played its games cleanly and the server's counts after each round
  /// equal those after the first, 1 otherwise, 69 if the server could not be started.
  static func run(
    rounds: Int, connections: Int, host: String, seed: UInt64, serverArguments: [String],
    bound: Double, removing directory: String?
  ) -> Never {
    let child: ChildServer
    do { child = try ChildServer(arguments: serverArguments) } catch { fail("server: \(error)") }
    let pid = child.process.processIdentifier
    let log = ServerLog(child)
    print(
      "tictactoe-load: \(rounds) rounds of \(connections) connections that open, play one whole "
        + "game each and close; server pid \(pid)"
        + (serverArguments.isEmpty ? "" : " (\(serverArguments.joined(separator: " ")))"))
    if let start = memory(of: pid) {
      print("before round 1: server resident memory \(mebibytes(start.rss))")
    }
    var first: [Int]?
    var clean = true
    var steady = true
    for round in 1...rounds {
      let client = LoadClient(mode: .game, seed: seed &+ UInt64(round))
      client.oneGameEach = true
      do {
        try client.connect(count: connections, host: host, port: child.port)
      } catch {
        fail("round \(round): \(error)")
      }
      let seconds = client.run(duration: bound)
      let finished = client.games == connections
      client.closeAll()
      // The server reads each close in its own time: ask until it holds no connection and no
      // session (facts it reports), within a bound that only turns a hang into a failure.
      let deadline = now() + 10_000_000_000
      var holding = log.holding() ?? "unknown (the server's log ended)"
      while now() < deadline, !settled(holding) {
        usleep(20_000)
        holding = log.holding() ?? holding
      }
      let rss = memory(of: pid)
      print(
        String(
          format: "round %2d: %d games, %d moves in %.2f s (%.0f moves/s); server RSS %@ "
            + "(peak %@)", round, client.games / 2, client.moves, seconds,
          Double(client.moves) / seconds, rss.map { mebibytes($0.rss) } ?? "unknown",
          rss.map { mebibytes($0.peak) } ?? "unknown"))
      print("          holding: \(holding)")
      if !finished || client.lost != 0 || client.duplicated != 0 || client.errors != 0
        || client.closedByServer != 0
      {
        clean = false
        print(
          "          not clean: \(client.games) of \(connections) games seen over, lost "
            + "\(client.lost), duplicated \(client.duplicated), refused \(client.errors), "
            + "closed by the server \(client.closedByServer)")
      }
      if let first {
        if counts(holding) != first { steady = false }
      } else {
        first = counts(holding)
      }
    }
    let serverLog = child.stop()
    for line in serverLog.split(separator: "\n")
    where line.contains("stopped: ") || line.contains("holding: ") || line.contains("error") {
      print("server: \(line)")
    }
    print(
      "what the server holds after each round "
        + (steady ? "equals its level after round 1" : "DIFFERS from its level after round 1"))
    // `exit` skips `defer`: remove the durable run's directory first.
    if let directory { try? FileManager.default.removeItem(atPath: directory) }
    exit(clean && steady ? 0 : 1)
  }

  /// Whether a `holding:` line says the server let every connection go.
  static func settled(_ holding: String) -> Bool {
    holding.hasPrefix("0 sessions (0 session entries, 0 session stores)")
      && holding.contains(" 0 connections (0 connection objects)")
  }

  /// kB as MiB with one decimal.
  static func mebibytes(_ kilobytes: Int) -> String {
    String(format: "%.1f MiB", Double(kilobytes) / 1024)
  }
}
