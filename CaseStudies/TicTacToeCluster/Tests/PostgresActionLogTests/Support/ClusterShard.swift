import Foundation
import Testing

@testable import PostgresActionLog

#if canImport(Glibc)
  import Glibc
#endif

/// The real `tictactoe-cluster-shard`, started by a test against a throwaway PostgreSQL, on a
/// free loopback port; its log goes to a file, read with ``log``.
final class ClusterShard {
  let process = Process()
  let name: String
  let port: UInt16
  private let logPath: String

  static var executable: URL {
    PostgresGameServer.executable.deletingLastPathComponent()
      .appendingPathComponent("tictactoe-cluster-shard")
  }

  /// Starts shard `name` and waits for its "listening on" line; `environment` adds to the
  /// test's own (the shard's test-only switches, `Shard+Testing`).
  init(
    name: String, database: String, partitions: Int, lease: Double,
    environment: [String: String] = [:]
  ) throws {
    guard FileManager.default.isExecutableFile(atPath: Self.executable.path) else {
      throw PostgresGameServer.Failure(
        description: "no \(Self.executable.path): build the package first")
    }
    self.name = name
    logPath = NSTemporaryDirectory() + "shard-\(name)-\(UUID().uuidString).log"
    guard FileManager.default.createFile(atPath: logPath, contents: nil) else {
      throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: logPath])
    }
    process.executableURL = Self.executable
    // Players wait out failovers: a long idle limit keeps them from forfeiting meanwhile.
    process.arguments = [
      "--database", database, "--name", name, "--listen", "127.0.0.1:0",
      "--partitions", String(partitions), "--lease", String(lease), "--idle-timeout", "600",
    ]
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle(forWritingAtPath: logPath)
    try process.run()
    var text = ""
    while !text.contains("\n") {
      let data = output.fileHandleForReading.availableData
      if data.isEmpty { break }
      text += String(decoding: data, as: UTF8.self)
    }
    guard let line = text.split(separator: "\n").first,
      line.hasPrefix("listening on 127.0.0.1:"),
      let port = UInt16(line.dropFirst("listening on 127.0.0.1:".count))
    else {
      process.terminate()
      throw PostgresGameServer.Failure(description: "unexpected first line: \(text)")
    }
    self.port = port
  }

  deinit {
    if process.isRunning {
      Glibc.kill(process.processIdentifier, SIGCONT)
      kill()
    }
    try? FileManager.default.removeItem(atPath: logPath)
  }

  var address: String { "127.0.0.1:\(port)" }

  /// What it logged so far.
  var log: String {
    (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
  }

  func kill() {
    Glibc.kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
  }

  func signal(_ number: Int32) {
    Glibc.kill(process.processIdentifier, number)
  }

  /// SIGTERM; the exit status.
  func stop() -> Int32 {
    process.terminate()
    process.waitUntilExit()
    return process.terminationStatus
  }
}

/// The cluster as the database says it is: the live leases and the journals of partitions.
struct ClusterTables {
  let connectionString: String

  /// The holder and epoch of each partition with an unexpired lease, on the database's clock.
  func holders() throws -> [Int: (holder: String, epoch: Int64)] {
    let connection = try PostgresConnection(connectionString)
    let rows = try connection.execute(
      "SELECT partition::text, holder, epoch::text FROM unidirectional_partition_leases "
        + "WHERE holder IS NOT NULL AND expires_at > clock_timestamp()"
    ).rows
    var holders: [Int: (String, Int64)] = [:]
    for row in rows {
      guard let partition = row[0].flatMap(PartitionLeases.integer), let holder = row[1],
        let epoch = row[2].flatMap(PartitionLeases.integer)
      else { continue }
      holders[Int(partition)] = (String(decoding: holder, as: UTF8.self), epoch)
    }
    return holders
  }

  /// Waits until `condition` holds of the live leases; false after `bound`.
  func waitForLeases(
    within bound: Duration = .seconds(30),
    _ condition: ([Int: (holder: String, epoch: Int64)]) -> Bool
  ) throws -> Bool {
    // wall-clock: a failure bound; a passing run goes on as soon as the table shows it.
    let deadline = ContinuousClock.now + bound
    while true {
      if try condition(holders()) { return true }
      // wall-clock: a failure bound; a passing run goes on as soon as the table shows it.
      if ContinuousClock.now >= deadline { return false }
      // wall-clock: the pause between two reads of the table (shards renew every ~0.7 s).
      usleep(50_000)
    }
  }

  /// The journal of the partition of `game`.
  func journal(ofGame game: String, partitions: Int) throws -> StoredJournal {
    let partition = PartitionLeases.partition(ofGame: game, partitionCount: partitions)
    return try StoredJournal.read(connectionString, log: "tictactoe-p\(partition)")
  }
}

/// A player of the cluster's tests: a connection, and what it reads.
final class ClusterPlayer {
  var client: FrameClient
  var game = ""
  var token = ""
  var side = ""

  init(port: UInt16) throws {
    client = try FrameClient(port: port)
  }

  /// Reads frames until one satisfies `match`, and returns it (throws if the connection ends).
  @discardableResult
  func read(until match: ([String: Any]) -> Bool) throws -> [String: Any] {
    while true {
      let frame = try client.next()
      if match(frame) { return frame }
    }
  }

  /// Says hello and queues for a game.
  func join(as name: String) {
    client.send(#"{"type":"hello","name":"\#(name)"}"#)
    client.send(#"{"type":"join"}"#)
  }

  /// Reads until seated (the seat frame, then the game's state): a game, a side, a token.
  func awaitSeat() throws {
    let seat = try read { $0["type"] as? String == "seat" }
    game = seat["game"] as? String ?? ""
    token = seat["token"] as? String ?? ""
    side = seat["you"] as? String ?? ""
    try read { $0["type"] as? String == "state" }
  }

  /// Plays `cell` with `seq`; returns the acknowledging state frame, or the frame that
  /// refused or ended it.
  func move(_ cell: Int, seq: Int) throws -> [String: Any] {
    client.send(#"{"type":"move","game":"\#(game)","cell":\#(cell),"seq":\#(seq)}"#)
    return try read { frame in
      let type = frame["type"] as? String
      if type == "state", let last = frame["last"] as? [String: Any] {
        return last["seq"] as? Int == seq && last["player"] as? String == side
      }
      return type == "error" || type == "bye"
    }
  }

  /// Waits for the state frame that shows `moves` moves (the opponent's move, say).
  func awaitMoves(_ moves: Int) throws -> [String: Any] {
    try read { $0["type"] as? String == "state" && $0["moves"] as? Int == moves }
  }

  /// Connects to `port` and sends its rejoin; returns the first answer that is not the
  /// `session connected` greeting.
  func rejoin(at port: UInt16) throws -> [String: Any] {
    client = try FrameClient(port: port)
    client.send(#"{"type":"rejoin","game":"\#(game)","token":"\#(token)"}"#)
    return try read {
      !($0["type"] as? String == "session" && $0["phase"] as? String == "connected")
    }
  }
}
