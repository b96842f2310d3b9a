import Foundation
import TicTacToeServerCore
import Unidirectional

@testable import PostgresActionLog

#if canImport(Glibc)
  import Glibc
#endif

/// The real `tictactoe-pg-server`, started by a test against a throwaway PostgreSQL.
final class PostgresGameServer {
  let process = Process()
  let port: UInt16
  private let errors = Pipe()

  /// Where SwiftPM put the executable: beside the test bundle.
  static var executable: URL {
    let bundle = URL(
      fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(
        atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
    return bundle.deletingLastPathComponent().appendingPathComponent("tictactoe-pg-server")
  }

  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  /// Starts the server on a free port against `database`, and waits for its "listening on" line.
  init(database: String) throws {
    guard FileManager.default.isExecutableFile(atPath: Self.executable.path) else {
      throw Failure(description: "no \(Self.executable.path): build the package first")
    }
    process.executableURL = Self.executable
    // Players wait out restarts: a long idle limit keeps them from forfeiting meanwhile.
    process.arguments = [
      "--database", database, "--port", "0", "--quiet", "--idle-timeout", "600",
    ]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = errors
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
      throw Failure(description: "unexpected first line: \(text)")
    }
    self.port = port
  }

  deinit {
    if process.isRunning { kill() }
  }

  /// `kill -9`, and waits for the process to be gone.
  func kill() {
    Glibc.kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
  }

  /// SIGTERM; returns the exit status and what the server logged.
  func stop() -> (status: Int32, log: String) {
    process.terminate()
    process.waitUntilExit()
    let log = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    return (process.terminationStatus, log)
  }
}

/// A blocking loopback client: writes frames, reads them as JSON objects.
final class FrameClient {
  let fd: Int32
  private var buffer: [UInt8] = []

  struct Closed: Error {}

  init(port: UInt16) throws {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    let status = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    // Closed here, before the object is whole: `deinit` (which a throw after that runs) would
    // close the number a second time, by then perhaps another thread's new socket.
    guard status == 0 else {
      Glibc.close(fd)
      throw Closed()
    }
    self.fd = fd
    setReceiveTimeout(seconds: Self.receiveTimeout)
  }

  /// How long a read waits for a frame before it fails (seconds).
  // wall-clock: a failure bound that turns a hang into an error; frames come long before.
  static let receiveTimeout = 30

  /// Sets how long a read waits for a frame before it fails.
  func setReceiveTimeout(seconds: Int) {
    // wall-clock: a failure bound that turns a hang into an error; frames come long before.
    var timeout = timeval(tv_sec: seconds, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
  }

  deinit { Glibc.close(fd) }

  /// Writes one frame and its newline (a closed connection shows at the next read).
  func send(_ json: String) {
    let bytes = Array((json + "\n").utf8)
    var sent = 0
    while sent < bytes.count {
      let count = bytes.withUnsafeBytes {
        Glibc.send(fd, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
      }
      if count <= 0 { return }
      sent += count
    }
  }

  /// The next frame; throws `Closed` at the end of the connection (or after the timeout).
  func next() throws -> [String: Any] {
    while true {
      if let newline = buffer.firstIndex(of: 0x0A) {
        let line = Data(buffer[..<newline])
        buffer.removeFirst(newline + 1)
        guard let object = try JSONSerialization.jsonObject(with: line) as? [String: Any] else {
          throw Closed()
        }
        return object
      }
      var chunk = [UInt8](repeating: 0, count: 16384)
      let count = recv(fd, &chunk, chunk.count, 0)
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { throw Closed() }
      buffer += chunk[0..<count]
    }
  }
}

/// What the database holds of the server's journal.
struct StoredJournal {
  /// Each journaled move, with how many times it is there.
  var moves: [Move: Int] = [:]
  /// Each game's moves, in journal order, as `GameRoom` actions.
  var games: [String: [GameRoom.Action]] = [:]
  /// The games whose end is journaled.
  var ended: Set<String> = []

  struct Move: Hashable, CustomStringConvertible {
    var game: String
    var player: String
    var cell: Int
    var seq: Int
    var description: String { "\(game) \(player)\(cell) seq \(seq)" }
  }

  /// Reads the journal `log` (`tictactoe` by default) from the database, verifying every line.
  static func read(_ connectionString: String, log name: String = "tictactoe") throws
    -> StoredJournal
  {
    let connection = try PostgresConnection(connectionString)
    let rows = try connection.execute(
      "SELECT line FROM unidirectional_log_lines WHERE log = $1 "
        + "ORDER BY unidirectional_log_lines.sequence", [.text(name)], binaryResults: true)
    var data = Data()
    for row in rows.rows {
      data.append(row[0] ?? Data())
      data.append(0x0A)
    }
    let log = try ActionLog<Journal.Action>(
      data: data, program: GameJournal.program, schemaVersion: GameJournal.schemaVersion)
    if let error = log.error { throw error }
    var stored = StoredJournal()
    for entry in log.entries {
      if case .ended(let game) = entry.action { stored.ended.insert(game) }
      guard case .room(let game, let action, _) = entry.action else { continue }
      stored.games[game, default: []].append(action.roomAction)
      if case .move(let player, let cell, let seq) = action {
        stored.moves[Move(game: game, player: player, cell: cell, seq: seq), default: 0] += 1
      }
    }
    return stored
  }

  /// The moves of games that replay with a refused move, described.
  var refusedOnReplay: [String] {
    games.flatMap { game, actions -> [String] in
      var state = GameRoom.State(id: game, xName: "x", oName: "o")
      var refused: [String] = []
      for action in actions {
        if case .move(let move) = action, let refusal = state.refusal(of: move) {
          refused.append("\(game): \(move) refused on replay (\(refusal))")
        }
        _ = GameRoom().reduce(into: &state, action: action)
      }
      return refused
    }
  }
}
