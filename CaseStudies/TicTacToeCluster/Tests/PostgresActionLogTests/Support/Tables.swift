import Foundation

/// What the tables of a run share: where the server is, what it acknowledged, and what went
/// wrong.
final class TableRun: @unchecked Sendable {
  // Safe: every property is read and written with `condition` locked.

  /// Where the database is, in the outage test: a move sent once it is stopped (after
  /// `pg_ctl stop` returned) must not be acknowledged before the test starts it again.
  enum Database { case up, stopping, stopped, starting }

  private let condition = NSCondition()
  private var port: UInt16
  /// Grows with each server started: a table that lost its server waits for the next.
  private var server = 0
  private var isFinishing = false
  private(set) var database = Database.up
  private(set) var acknowledged: Set<StoredJournal.Move> = []
  private(set) var unavailableFrames = 0
  private(set) var problems: [String] = []
  /// Games played to their end, by all tables.
  private(set) var gamesFinished = 0
  /// Serializes games' starts: the lobby pairs whoever queues, so one table queues at a time.
  let starting = NSLock()

  init(port: UInt16) {
    self.port = port
  }

  private func locked<T>(_ body: () -> T) -> T {
    condition.lock()
    defer { condition.unlock() }
    return body()
  }

  var acknowledgedCount: Int { locked { acknowledged.count } }
  var finishing: Bool { locked { isFinishing } }

  /// The server to play on, and its number.
  var current: (port: UInt16, server: Int) { locked { (port, server) } }

  /// A new server listens on `port`.
  func restarted(on port: UInt16) {
    locked {
      self.port = port
      server += 1
      condition.broadcast()
    }
  }

  /// From now on, tables end once their game is over.
  func finish() {
    locked {
      isFinishing = true
      condition.broadcast()
    }
  }

  func setDatabase(_ database: Database) {
    locked { self.database = database }
  }

  func noteUnavailable() {
    locked {
      unavailableFrames += 1
      condition.broadcast()
    }
  }

  func noteGameFinished() {
    locked { gamesFinished += 1 }
  }

  func problem(_ description: String) {
    locked { problems.append(description) }
  }

  /// Records an acknowledged move; a move sent while the database was stopped must not be
  /// acknowledged before the test starts it again.
  func acknowledge(_ move: StoredJournal.Move, sentWhile: Database) {
    locked {
      if sentWhile == .stopped && database == .stopped {
        problems.append("\(move) acknowledged while the database was stopped")
      }
      acknowledged.insert(move)
      condition.broadcast()
    }
  }

  /// The run's counts, for `wait(until:)`.
  struct Counts {
    var acknowledged: Int
    var unavailableFrames: Int
  }

  /// Waits until `isDone` holds of the counts (checked whenever they change), or the failure
  /// bound passes; returns whether it holds. On a thread of Dispatch's, not one of the
  /// concurrency pool, which the other suites' tasks need meanwhile.
  func wait(until isDone: @escaping @Sendable (Counts) -> Bool) async -> Bool {
    await withCheckedContinuation { continuation in
      DispatchQueue.global().async {
        continuation.resume(returning: self.blockingWait(until: isDone))
      }
    }
  }

  private func blockingWait(until isDone: (Counts) -> Bool) -> Bool {
    condition.lock()
    defer { condition.unlock() }
    // The lock is held here: the counts are read directly, not through the locked accessors.
    var counts: Counts {
      Counts(acknowledged: acknowledged.count, unavailableFrames: unavailableFrames)
    }
    // wall-clock: a failure bound; a passing run is woken as soon as the condition holds.
    let deadline = Date().addingTimeInterval(180)
    while !isDone(counts) {
      // wall-clock: the same failure bound.
      guard condition.wait(until: deadline) else { return isDone(counts) }
    }
    return true
  }

  /// Waits until a server after `server` is started, the run finishes, or `pause` passes (the
  /// pace of retries while the database is away).
  func waitForServer(after server: Int, pause: TimeInterval) {
    condition.lock()
    defer { condition.unlock() }
    // wall-clock: a retry's pace, not a decision: the table tries again either way.
    let until = Date().addingTimeInterval(pause)
    while self.server == server && !isFinishing {
      // wall-clock: the same pace.
      guard condition.wait(until: until) else { return }
    }
  }
}

/// Two players at one game, played by one thread: they start a game, move in turn, wait for
/// each acknowledgement, and after a lost connection take their seats again with their tokens.
final class Table: @unchecked Sendable {
  // Safe: used only by the table's own thread (`play`).

  /// A player's connection ended (the server killed, or its database away: `unavailable`).
  struct Lost: Error {
    var player: String
  }

  let name: String
  let run: TableRun
  private var random: UInt64
  /// The players' connections, by side ("X", "O"): a live one is kept when the other is lost,
  /// since a client that goes away forfeits its game.
  private var seats: [String: FrameClient] = [:]
  private var game: String?
  private var tokens: [String: String] = [:]
  private var board = Array(repeating: Character("."), count: 9)
  private var turn = "X"
  private var seq = 0
  /// The acknowledged moves of the game in progress: a player who rejoins must find each on the
  /// board.
  private var acknowledged: [(cell: Int, player: String)] = []

  init(name: String, seed: UInt64, run: TableRun) {
    self.name = name
    self.random = seed
    self.run = run
  }

  /// Plays until the run finishes and the table's game is over.
  func play() {
    var failures = 0
    while true {
      let (port, server) = run.current
      do {
        if game != nil && seats.count < 2 { try sit(port: port) }
        if game == nil {
          seats = [:]
          if run.finishing { return }
          try start(port: port)
        }
        try move()
        failures = 0
      } catch let lost as Lost {
        seats[lost.player] = nil
        failures += 1
      } catch {
        // No connection: the server is gone.
        seats = [:]
        failures += 1
      }
      if failures > 0 {
        guard failures < 2000 else {
          run.problem("\(name): gave up after \(failures) failed attempts")
          return
        }
        // Lost the server (killed) or its database: wait for the next server, or retry soon.
        run.waitForServer(after: server, pause: 0.05)
      }
    }
  }

  private func nextRandom() -> UInt64 {
    random &+= 0x9E37_79B9_7F4A_7C15
    var z = random
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// Reads `player`'s frames until one `matches`; an `unavailable` error, a `bye` or the end of
  /// the connection is `Lost`, another error a problem of the run.
  private func read(
    _ player: String, _ client: FrameClient, until matches: ([String: Any]) -> Bool
  ) throws(Lost) -> [String: Any] {
    while true {
      guard let frame = try? client.next() else { throw Lost(player: player) }
      let type = frame["type"] as? String
      if type == "error" {
        let code = frame["code"] as? String ?? ""
        if code == "unavailable" { run.noteUnavailable() }
        if code != "unavailable" && !matches(frame) {
          run.problem("\(name): refused: \(frame)")
        }
        if code == "unavailable" || !matches(frame) { throw Lost(player: player) }
        return frame
      }
      if type == "bye" { throw Lost(player: player) }
      if matches(frame) { return frame }
    }
  }

  private func apply(state frame: [String: Any]) {
    board = Array(frame["board"] as? String ?? ".........")
    turn = frame["turn"] as? String ?? ""
    if frame["status"] as? String != "playing" && game != nil {
      game = nil
      run.noteGameFinished()
    }
  }

  private static func isState(_ frame: [String: Any]) -> Bool {
    frame["type"] as? String == "state"
  }

  /// Takes the empty seats of the game in progress again (after a restart or an outage); a game
  /// that is gone (ended, or its start never acknowledged, so no tokens) is forgotten.
  private func sit(port: UInt16) throws {
    guard let game, tokens.count == 2 else {
      self.game = nil
      return
    }
    for player in ["X", "O"] where seats[player] == nil {
      let client = try FrameClient(port: port)
      client.send(#"{"type":"rejoin","game":"\#(game)","token":"\#(tokens[player]!)"}"#)
      let frame = try read(player, client) { frame in
        Self.isState(frame)
          || (frame["type"] as? String == "error"
            && ["unknown-game", "bad-token"].contains(frame["code"] as? String ?? ""))
      }
      guard Self.isState(frame) else {
        // Ended while we were away (its end journaled): start another.
        self.game = nil
        return
      }
      seats[player] = client
      apply(state: frame)
      for move in acknowledged where board[move.cell] != Character(move.player) {
        run.problem(
          "\(name): acknowledged \(move.player)\(move.cell) of \(game) is not on the rejoined "
            + "board \(String(board))")
      }
    }
  }

  /// Starts a new game: X queues, then O, one table at a time.
  private func start(port: UInt16) throws {
    run.starting.lock()
    defer { run.starting.unlock() }
    tokens = [:]
    let x = try FrameClient(port: port)
    let o = try FrameClient(port: port)
    x.send(#"{"type":"hello","name":"\#(name)-x"}"#)
    x.send(#"{"type":"join"}"#)
    _ = try read("X", x) { $0["phase"] as? String == "queued" }
    o.send(#"{"type":"hello","name":"\#(name)-o"}"#)
    o.send(#"{"type":"join"}"#)
    let playing = try read("X", x) { $0["phase"] as? String == "playing" }
    let game = playing["game"] as? String
    var state: [String: Any] = [:]
    for (player, client) in [("X", x), ("O", o)] {
      let seat = try read(player, client) { $0["type"] as? String == "seat" }
      tokens[player] = seat["token"] as? String
      state = try read(player, client, until: Self.isState)
    }
    self.game = game
    acknowledged = []
    seats = ["X": x, "O": o]
    apply(state: state)
  }

  /// Plays one random legal move and waits for its acknowledgement, and the opponent's copy.
  private func move() throws(Lost) {
    guard let game, let x = seats["X"], let o = seats["O"] else { return }
    let player = turn
    let (mover, other) = player == "X" ? (x, o) : (o, x)
    let free = board.indices.filter { board[$0] == "." }
    guard !free.isEmpty, player == "X" || player == "O" else {
      run.problem("\(name): no move to play on \(String(board)), turn \(player)")
      throw Lost(player: "X")
    }
    let cell = free[Int(nextRandom() % UInt64(free.count))]
    seq += 1
    let seq = self.seq
    let sentWhile = run.database
    mover.send(#"{"type":"move","game":"\#(game)","cell":\#(cell),"seq":\#(seq)}"#)
    let ack = try read(player, mover) { frame in
      let last = frame["last"] as? [String: Any]
      return Self.isState(frame) && last?["seq"] as? Int == seq
        && last?["player"] as? String == player
    }
    run.acknowledge(
      StoredJournal.Move(game: game, player: player, cell: cell, seq: seq), sentWhile: sentWhile)
    acknowledged.append((cell, player))
    let count = ack["moves"] as? Int ?? 0
    _ = try read(player == "X" ? "O" : "X", other) {
      Self.isState($0) && ($0["moves"] as? Int ?? 0) >= count
    }
    apply(state: ack)
  }
}
