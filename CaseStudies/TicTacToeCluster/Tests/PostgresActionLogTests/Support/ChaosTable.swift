import Foundation

/// What the tables of a chaos run share: where each shard listens now, which are down, what was
/// acknowledged, the games seated and finished, and what went wrong.
final class ChaosRun: @unchecked Sendable {
  // Safe: every property is read and written with `condition` locked.

  private let condition = NSCondition()
  private var ports: [String: UInt16] = [:]
  /// Shards killed or stopped: tables start no game there.
  private var down: Set<String> = []
  private var isFinishing = false
  private var isAborted = false
  private(set) var acknowledged: Set<StoredJournal.Move> = []
  /// Games whose seats the tables hold (their start was acknowledged with the tokens).
  private(set) var seatedGames: Set<String> = []
  /// Games the tables saw end (a `state` frame that is not `playing`).
  private(set) var finishedGames: Set<String> = []
  /// Games a rejoin found no longer in progress (`unknown-game`): over by a move whose
  /// acknowledgement was lost with a killed shard.
  private(set) var endedUnseenGames: Set<String> = []
  private(set) var problems: [String] = []
  private(set) var redirects = 0
  private(set) var rejoins = 0
  private var tablesPlaying = 0
  /// Serializes games' starts: a lobby pairs whoever queues, so one table queues at a time.
  let starting = NSLock()

  private func locked<T>(_ body: () -> T) -> T {
    condition.lock()
    defer { condition.unlock() }
    return body()
  }

  var finishing: Bool { locked { isFinishing } }
  var aborted: Bool { locked { isAborted } }
  var acknowledgedCount: Int { locked { acknowledged.count } }
  var snapshot:
    (
      acknowledged: Set<StoredJournal.Move>, seated: Set<String>, finished: Set<String>,
      endedUnseen: Set<String>
    )
  { locked { (acknowledged, seatedGames, finishedGames, endedUnseenGames) } }

  /// Shard `name` listens on `port` and is up.
  func up(_ name: String, port: UInt16) {
    locked {
      ports[name] = port
      down.remove(name)
    }
  }

  /// Shard `name` is killed or stopped.
  func markDown(_ name: String) {
    _ = locked { down.insert(name) }
  }

  /// The port of a shard that is up, drawn with `random`.
  func livePort(_ random: UInt64) -> UInt16? {
    locked {
      let live = ports.filter { !down.contains($0.key) }.sorted { $0.key < $1.key }
      guard !live.isEmpty else { return nil }
      return live[Int(random % UInt64(live.count))].value
    }
  }

  func problem(_ description: String) {
    locked { problems.append(description) }
  }

  func acknowledge(_ move: StoredJournal.Move) {
    locked {
      if !acknowledged.insert(move).inserted { problems.append("\(move) acknowledged twice") }
      condition.broadcast()
    }
  }

  func seated(_ game: String) { _ = locked { seatedGames.insert(game) } }
  func finished(_ game: String) { _ = locked { finishedGames.insert(game) } }
  func endedUnseen(_ game: String) { _ = locked { endedUnseenGames.insert(game) } }
  func noteRedirect() { locked { redirects += 1 } }
  func noteRejoin() { locked { rejoins += 1 } }

  func tableStarted() { locked { tablesPlaying += 1 } }

  func tableEnded() {
    locked {
      tablesPlaying -= 1
      condition.broadcast()
    }
  }

  /// From now on, tables end once their game is over.
  func finish() {
    locked { isFinishing = true }
  }

  /// The run failed: tables end at once, in whatever state their game is.
  func abort() {
    locked {
      isFinishing = true
      isAborted = true
    }
  }

  /// Waits until `acknowledged` moves were acknowledged, or every table ended if `nil`; false
  /// after the failure bound. On a thread of Dispatch's, not one of the concurrency pool.
  func wait(forAcknowledged count: Int?, within seconds: TimeInterval) async -> Bool {
    await withCheckedContinuation { continuation in
      DispatchQueue.global().async {
        self.condition.lock()
        defer { self.condition.unlock() }
        // wall-clock: a failure bound; a passing run is woken as soon as the count is reached.
        let deadline = Date().addingTimeInterval(seconds)
        func done() -> Bool {
          if let count { return self.acknowledged.count >= count }
          return self.tablesPlaying == 0
        }
        while !done() {
          // wall-clock: the same failure bound.
          guard self.condition.wait(until: deadline) else { break }
        }
        continuation.resume(returning: done())
      }
    }
  }
}

/// Two players at one game, played by one thread against a cluster of shards: they start a game
/// at a shard that is up (meeting in its home lobby), move in turn, wait for each
/// acknowledgement; a player whose connection ends (a killed shard, `moved`, `bye`) rejoins
/// with its seat token at any shard, following `redirect`s to the owner of its game.
final class ChaosTable: @unchecked Sendable {
  // Safe: used only by the table's own thread (`play`).

  /// A player's connection ended, or the cluster cannot take the frame now.
  struct Lost: Error {
    var player: String
  }

  /// Error codes that say "not now, rejoin": the partition moved, has no owner yet, the
  /// shard serves none yet, or the database is away.
  static let passing: Set<String> = ["moved", "no-owner", "no-partition", "unavailable"]

  let name: String
  let run: ChaosRun
  private var random: UInt64
  private var seats: [String: FrameClient] = [:]
  private var game: String?
  private var tokens: [String: String] = [:]
  /// Where the game was last served: the first shard a rejoin asks.
  private var owner: UInt16?
  private var board = Array(repeating: Character("."), count: 9)
  private var turn = "X"
  private var seq = 0
  /// The acknowledged moves of the game in progress: a player who rejoins must find each on the
  /// board.
  private var acknowledged: [(cell: Int, player: String)] = []

  init(name: String, seed: UInt64, run: ChaosRun) {
    self.name = name
    self.random = seed
    self.run = run
  }

  /// Plays until the run finishes and the table's game is over.
  func play() {
    run.tableStarted()
    defer { run.tableEnded() }
    var failures = 0
    while !run.aborted {
      do {
        if game == nil {
          seats = [:]
          if run.finishing { return }
          try start()
        } else if seats.count < 2 {
          try sit()
        } else {
          try move()
        }
        failures = 0
      } catch let lost as Lost {
        seats[lost.player] = nil
        failures += 1
      } catch {
        // No connection: the shard is gone.
        seats = [:]
        owner = nil
        failures += 1
      }
      if failures > 0 {
        guard failures < 3000 else {
          run.problem("\(name): gave up after \(failures) failed attempts in a row")
          return
        }
        // wall-clock: a retry's pace, not a decision: the table tries again either way.
        usleep(20_000)
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

  /// Reads `player`'s frames until one `matches`. A passing error, a `bye` or the end of the
  /// connection is `Lost`; another error not matched is a problem of the run.
  private func read(
    _ player: String, _ client: FrameClient, until matches: ([String: Any]) -> Bool
  ) throws(Lost) -> [String: Any] {
    while true {
      guard let frame = try? client.next() else { throw Lost(player: player) }
      let type = frame["type"] as? String
      if type == "error" && !matches(frame) {
        let code = frame["code"] as? String ?? ""
        if !Self.passing.contains(code) { run.problem("\(name): refused: \(frame)") }
        throw Lost(player: player)
      }
      if type == "bye" { throw Lost(player: player) }
      if matches(frame) { return frame }
    }
  }

  private static func isState(_ frame: [String: Any]) -> Bool {
    frame["type"] as? String == "state"
  }

  private func apply(state frame: [String: Any]) {
    board = Array(frame["board"] as? String ?? ".........")
    turn = frame["turn"] as? String ?? ""
    if frame["status"] as? String != "playing", let game {
      run.finished(game)
      self.game = nil
    }
  }

  /// Starts a new game at a shard that is up: X queues, then O, one table at a time.
  private func start() throws {
    run.starting.lock()
    defer { run.starting.unlock() }
    guard let port = run.livePort(nextRandom()) else { throw Lost(player: "X") }
    tokens = [:]
    let x = try FrameClient(port: port)
    let o = try FrameClient(port: port)
    x.send(#"{"type":"hello","name":"\#(name)-x"}"#)
    x.send(#"{"type":"join"}"#)
    _ = try read("X", x) { $0["phase"] as? String == "queued" }
    o.send(#"{"type":"hello","name":"\#(name)-o"}"#)
    o.send(#"{"type":"join"}"#)
    // wall-clock: a failure bound on the pairing, shorter than a game's: if the shard's home
    // partition changed between the two joins (it claimed a lower one), they wait in two
    // lobbies; both leave the queue as they close, and the table starts again.
    x.setReceiveTimeout(seconds: 10)
    o.setReceiveTimeout(seconds: 10)
    let playing = try read("X", x) { $0["phase"] as? String == "playing" }
    guard let game = playing["game"] as? String else { throw Lost(player: "X") }
    x.setReceiveTimeout(seconds: FrameClient.receiveTimeout)
    o.setReceiveTimeout(seconds: FrameClient.receiveTimeout)
    var state: [String: Any] = [:]
    for (player, client) in [("X", x), ("O", o)] {
      let seat = try read(player, client) { $0["type"] as? String == "seat" }
      tokens[player] = seat["token"] as? String
      state = try read(player, client, until: Self.isState)
    }
    self.game = game
    run.seated(game)
    owner = port
    acknowledged = []
    seats = ["X": x, "O": o]
    apply(state: state)
  }

  /// Takes the empty seats of the game in progress again: a rejoin at the shard that served it
  /// last (or any shard that is up), following redirects to the owner of its partition.
  private func sit() throws(Lost) {
    guard let game, tokens.count == 2 else {
      run.problem("\(name): seated without both tokens")
      self.game = nil
      return
    }
    for player in ["X", "O"] where seats[player] == nil {
      guard var port = owner ?? run.livePort(nextRandom()) else { throw Lost(player: player) }
      // Each redirect names the owner the lease table shows; a few hops cover a partition
      // moving meanwhile, then the table starts over from any shard.
      for _ in 0..<4 {
        owner = nil
        run.noteRejoin()
        // A shard gone: this seat only is lost (closing the other's live connection would
        // forfeit the game).
        guard let client = try? FrameClient(port: port) else { throw Lost(player: player) }
        client.send(#"{"type":"rejoin","game":"\#(game)","token":"\#(tokens[player]!)"}"#)
        let frame = try read(player, client) { frame in
          let type = frame["type"] as? String
          return type == "state" || type == "redirect"
            || (type == "error"
              && ["unknown-game", "bad-token"].contains(frame["code"] as? String ?? ""))
        }
        if frame["type"] as? String == "redirect" {
          run.noteRedirect()
          guard frame["game"] as? String == game, let address = frame["address"] as? String,
            address.hasPrefix("127.0.0.1:"), let next = UInt16(address.dropFirst(10))
          else {
            run.problem("\(name): a redirect that names no loopback address: \(frame)")
            throw Lost(player: player)
          }
          port = next
          continue
        }
        guard Self.isState(frame) else {
          if frame["code"] as? String == "unknown-game" {
            // Over, by a move committed whose acknowledgement the shard's death lost: the
            // test checks that the journal holds its end.
            run.endedUnseen(game)
          } else {
            run.problem("\(name): rejoin of \(game) at port \(port) refused: \(frame)")
          }
          self.game = nil
          return
        }
        seats[player] = client
        owner = port
        for move in acknowledged
        where Array(frame["board"] as? String ?? "")[move.cell] != Character(move.player) {
          run.problem(
            "\(name): acknowledged \(move.player)\(move.cell) of \(game) is not on the rejoined "
              + "board \(frame["board"] ?? "")")
        }
        apply(state: frame)
        if self.game == nil { return }
        break
      }
      if seats[player] == nil { throw Lost(player: player) }
    }
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
    mover.send(#"{"type":"move","game":"\#(game)","cell":\#(cell),"seq":\#(seq)}"#)
    let ack = try read(player, mover) { frame in
      let last = frame["last"] as? [String: Any]
      return Self.isState(frame) && last?["seq"] as? Int == seq
        && last?["player"] as? String == player
    }
    run.acknowledge(StoredJournal.Move(game: game, player: player, cell: cell, seq: seq))
    acknowledged.append((cell, player))
    let count = ack["moves"] as? Int ?? 0
    _ = try read(player == "X" ? "O" : "X", other) {
      Self.isState($0) && ($0["moves"] as? Int ?? 0) >= count
    }
    apply(state: ack)
  }
}
