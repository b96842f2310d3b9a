import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// N loopback client connections on one `poll` thread, playing random legal games (or, against
/// the echo server, sending the same move frames and waiting for them to come back).
///
/// The same code drives both runs: only what a connection waits for differs. In a game, one
/// move per game is in flight (the player whose turn it is); against the echo, connections are
/// paired the same way and take turns, so both runs keep N/2 moves in flight.
final class LoadClient {
  enum Mode { case game, echo }

  /// One connection's state.
  struct Connection {
    var fd: Int32
    var input: [UInt8] = []
    var output: [UInt8] = []
    // Game mode.
    var game = ""
    var me: UInt8 = 0  // "X" or "O"
    var board = [UInt8](repeating: 0x2E, count: 9)
    /// The move count of the newest view seen in the current game, and whose turn it gave.
    var movesSeen = 0
    var turn: UInt8 = 0
    var seq = 0
    /// The move in flight: its seq and when it was sent (ns).
    var pending: (seq: Int, sentAt: UInt64)?
    /// The cell of the move in flight, to send it again after a rejoin.
    var pendingCell = 0
    /// Set by a rejoin (after a redirect or a `moved`): the move in flight, if any, is sent
    /// again (same cell and seq) at the next `state`; the server answers it with its original
    /// acknowledgement if it was played.
    var resendPending = false
    /// Set by a `moved` error: when the server closes the connection, rejoin on another port.
    var moved = false
    /// When to send the `rejoin` again (after `no-owner`), and how many times it was.
    var rejoinAt: UInt64?
    var rejoins = 0
    /// Moves of mine the server acknowledged in the current game.
    var ackedInGame = 0
    /// Acknowledged seqs, with the move count they were acknowledged at (for duplicates).
    var acked: [Int: Int] = [:]
    var waitingForLobby = false
    var isOpen = true
    /// The seat token of the game (durable servers), for a `rejoin` after a `redirect`.
    var token = ""
  }

  let mode: Mode
  var connections: [Connection] = []
  var random: SplitMix
  var latencies: [UInt64] = []
  var moves = 0
  var games = 0
  var errors = 0
  var lost = 0
  var duplicated = 0
  var closedByServer = 0
  /// `redirect` frames followed: a new connection to the address given, and a `rejoin`.
  var redirects = 0
  /// The host the connections reach, and the ports (a `moved` client rejoins on the next).
  var host = "127.0.0.1"
  var ports: [UInt16] = []
  /// Rejoins after a `moved` (the server stopped serving the game's partition).
  var movedRejoins = 0
  var stopping = false
  var firstError: String?
  /// Each connection plays one whole game, then stays in the lobby; the run ends once every
  /// connection's game is over (the rounds of `--rounds`), or at the duration given to `run`.
  var oneGameEach = false

  init(mode: Mode, seed: UInt64) {
    self.mode = mode
    self.random = SplitMix(seed: seed)
  }

  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  /// Connects `count` clients to `port` on `host` (blocking connects, then non-blocking I/O).
  func connect(count: Int, host: String, port: UInt16) throws {
    try connect(count: count, host: host, ports: [port])
  }

  /// Connects `count` clients to `host`, spread over `ports` in turn (client i to port
  /// i mod the count: a cluster's shards, say).
  func connect(count: Int, host: String, ports: [UInt16]) throws {
    self.host = host
    self.ports = ports
    for index in 0..<count {
      do {
        connections.append(
          Connection(fd: try Self.open(host: host, port: ports[index % ports.count])))
      } catch {
        throw Failure(description: "connect #\(index + 1): \(error.description)")
      }
    }
  }

  /// A connected non-blocking socket to `host`:`port`.
  static func open(host: String, port: UInt16) throws(Failure) -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else {
      throw Failure(description: "socket: \(String(cString: strerror(errno)))")
    }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    inet_pton(AF_INET, host, &address.sin_addr)
    let status = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard status == 0 else {
      let message = String(cString: strerror(errno))
      Glibc.close(fd)
      throw Failure(description: "\(host):\(port): \(message)")
    }
    var one: Int32 = 1
    setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    return fd
  }

  /// Plays for `duration` seconds, then stops starting moves and waits (up to `grace`) for the
  /// moves in flight. Returns the seconds measured (from the start to the deadline).
  func run(duration: Double, grace: Double = 5) -> Double {
    let start = now()
    for index in connections.indices {
      switch mode {
      case .game:
        write(
          index, #"{"type":"hello","name":"load-\#(index)"}"# + "\n" + #"{"type":"join"}"# + "\n")
      case .echo:
        if index % 2 == 0 { sendMove(index, cell: Int(random.next() % 9)) }
      }
    }
    let deadline = start + UInt64(duration * 1e9)
    let graceEnd = deadline + UInt64(grace * 1e9)
    var fds = connections.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      let time = now()
      if !stopping, time >= deadline { stopping = true }
      if stopping, connections.allSatisfy({ $0.pending == nil }) || time >= graceEnd { break }
      if oneGameEach, games >= connections.count { break }
      for index in connections.indices {
        if let at = connections[index].rejoinAt, time >= at {
          connections[index].rejoinAt = nil
          sendRejoin(index)
        }
      }
      for index in fds.indices {
        // A redirect replaces a connection's socket.
        fds[index].fd = connections[index].fd
        fds[index].events = Int16(POLLIN) | (connections[index].output.isEmpty ? 0 : Int16(POLLOUT))
        if !connections[index].isOpen { fds[index].fd = -1 }
      }
      let ready = fds.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), 100) }
      if ready <= 0 { continue }
      for index in fds.indices where fds[index].revents != 0 {
        if fds[index].revents & Int16(POLLOUT) != 0 { flush(index) }
        guard fds[index].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 else { continue }
        let count = chunk.withUnsafeMutableBytes {
          Glibc.read(connections[index].fd, $0.baseAddress, $0.count)
        }
        if count <= 0 {
          if count < 0, errno == EAGAIN || errno == EINTR { continue }
          if connections[index].moved, reconnect(index) { continue }
          connections[index].isOpen = false
          closedByServer += 1
          continue
        }
        connections[index].input += chunk[0..<count]
        processLines(index)
      }
    }
    let measured = Double(min(now(), deadline) - start) / 1e9
    for connection in connections where connection.pending != nil { lost += 1 }
    return measured
  }

  func closeAll() {
    for connection in connections { Glibc.close(connection.fd) }
    connections = []
  }

  // MARK: Frames

  private func processLines(_ index: Int) {
    var start = 0
    let input = connections[index].input
    let fd = connections[index].fd
    while let newline = input[start...].firstIndex(of: 0x0A) {
      handle(index, input[start..<newline])
      start = newline + 1
      // Redirected: what is left came on the old connection.
      if connections[index].fd != fd { return }
    }
    connections[index].input.removeFirst(start)
  }

  private func handle(_ index: Int, _ line: ArraySlice<UInt8>) {
    switch mode {
    case .echo:
      guard let seq = Self.number("seq", in: line), let pending = connections[index].pending,
        pending.seq == seq
      else {
        duplicated += 1
        return
      }
      acknowledge(index, sentAt: pending.sentAt)
      // The partner takes its turn, as the other player would.
      let partner = index ^ 1
      if !stopping, partner < connections.count {
        sendMove(partner, cell: Int(random.next() % 9))
      }
    case .game:
      handleGameFrame(index, line)
    }
  }

  private func handleGameFrame(_ index: Int, _ line: ArraySlice<UInt8>) {
    guard let type = Self.string("type", in: line) else { return }
    switch type {
    case "session":
      let phase = Self.string("phase", in: line)
      if phase == "playing", let game = Self.string("game", in: line),
        let you = Self.string("you", in: line), game != connections[index].game
      {
        connections[index].game = game
        connections[index].me = you.utf8.first ?? 0
        connections[index].board = [UInt8](repeating: 0x2E, count: 9)
        connections[index].movesSeen = 0
        connections[index].turn = 0
        connections[index].ackedInGame = 0
        connections[index].acked = [:]
        connections[index].waitingForLobby = false
      } else if phase == "lobby", connections[index].waitingForLobby {
        connections[index].waitingForLobby = false
        if !stopping, !oneGameEach { write(index, #"{"type":"join"}"# + "\n") }
      }
    case "state":
      handleState(index, line)
    case "seat":
      connections[index].token = Self.string("token", in: line) ?? ""
    case "redirect":
      follow(index, game: Self.string("game", in: line), to: Self.string("address", in: line))
    case "error":
      switch Self.string("code", in: line) {
      case "moved":
        // The shard stopped serving the game's partition; it closes the connection next.
        connections[index].moved = true
        return
      case "no-owner" where connections[index].rejoins < 100:
        // The partition's new owner is not there yet: the rejoin again, shortly.
        connections[index].rejoinAt = now() + 100_000_000
        return
      default: break
      }
      errors += 1
      if firstError == nil { firstError = String(decoding: line, as: UTF8.self) }
      connections[index].pending = nil
    default:
      break
    }
  }

  private func handleState(_ index: Int, _ line: ArraySlice<UInt8>) {
    let resend = connections[index].resendPending
    connections[index].resendPending = false
    handleView(index, line)
    // The first view after a rejoin did not acknowledge the move in flight: send it again,
    // the same cell and seq (answered with its original acknowledgement if it was played).
    if resend, connections[index].isOpen, let pending = connections[index].pending {
      let cell = connections[index].pendingCell
      let game = connections[index].game
      write(
        index, #"{"type":"move","game":"\#(game)","cell":\#(cell),"seq":\#(pending.seq)}"# + "\n")
    }
  }

  private func handleView(_ index: Int, _ line: ArraySlice<UInt8>) {
    guard let board = Self.string("board", in: line), board.utf8.count == 9,
      let moveCount = Self.number("moves", in: line),
      let status = Self.string("status", in: line)
    else { return }
    var connection = connections[index]
    // A retried move's answer is the view just after it, older than one seen already when the
    // opponent moved since (a rejoin's `state` shows that): it only acknowledges, and the newer
    // board and turn stay (taken, the client would wait for a turn it already has).
    let older = moveCount < connection.movesSeen
    if !older {
      connection.board = Array(board.utf8)
      connection.movesSeen = moveCount
      connection.turn = Self.string("turn", in: line)?.utf8.first ?? 0
    }
    // The last move, if it is mine, acknowledges my move in flight.
    if let lastPlayer = Self.string("player", in: line), lastPlayer.utf8.first == connection.me,
      let seq = Self.number("seq", in: line)
    {
      if let pending = connection.pending, pending.seq == seq {
        connection.pending = nil
        connection.ackedInGame += 1
        connection.acked[seq] = moveCount
        connections[index] = connection
        acknowledge(index, sentAt: pending.sentAt)
        connection = connections[index]
      } else if let at = connection.acked[seq], at != moveCount, status == "playing" {
        duplicated += 1  // The same move again, at another move count.
      }
    }
    // My marks on the board are exactly my acknowledged moves.
    let mine = connection.board.filter { $0 == connection.me }.count
    if mine > connection.ackedInGame + (connection.pending == nil ? 0 : 1) { duplicated += 1 }
    if mine < connection.ackedInGame { lost += 1 }
    connections[index] = connection
    // An older view cannot end the game: a newer one showed it on.
    if !older, status != "playing" {
      games += 1
      connections[index].pending = nil
      connections[index].waitingForLobby = true
      return
    }
    // A game on has a turn (a finished one, returned from above, has none).
    if connection.turn == connection.me, connection.pending == nil, !stopping {
      let free = connection.board.indices.filter { connection.board[$0] == 0x2E }
      guard !free.isEmpty else { return }
      sendMove(index, cell: free[Int(random.next() % UInt64(free.count))])
    }
  }

  /// Follows a `redirect`: closes the connection, opens one to `address` (`HOST:PORT`) and
  /// sends `rejoin` with the game's seat token there. A redirect the tool cannot follow (no
  /// token, an address it cannot reach) counts as a refused frame.
  private func follow(_ index: Int, game: String?, to address: String?) {
    guard let game, let address, let colon = address.lastIndex(of: ":"),
      let port = UInt16(address[address.index(after: colon)...]),
      !connections[index].token.isEmpty
    else {
      errors += 1
      if firstError == nil { firstError = "a redirect the tool cannot follow" }
      return
    }
    let host = String(address[..<colon])
    let fd: Int32
    do {
      fd = try Self.open(host: host, port: port)
    } catch {
      errors += 1
      if firstError == nil { firstError = "redirect to \(address): \(error.description)" }
      return
    }
    Glibc.close(connections[index].fd)
    redirects += 1
    connections[index].fd = fd
    connections[index].input = []
    connections[index].output = []
    connections[index].game = game
    connections[index].rejoins = 0
    sendRejoin(index)
  }

  /// Sends `rejoin` with the game's seat token; the move in flight goes again after it.
  private func sendRejoin(_ index: Int) {
    connections[index].rejoins += 1
    connections[index].resendPending = true
    let game = connections[index].game
    write(
      index, #"{"type":"rejoin","game":"\#(game)","token":"\#(connections[index].token)"}"# + "\n")
  }

  /// After a `moved` and the server's close: a new connection to the next port, and `rejoin`
  /// there (a redirect may follow). Whether it was made.
  private func reconnect(_ index: Int) -> Bool {
    guard !connections[index].token.isEmpty, !connections[index].game.isEmpty, !ports.isEmpty
    else { return false }
    let fd: Int32
    do {
      fd = try Self.open(host: host, port: ports[(index + movedRejoins + 1) % ports.count])
    } catch {
      return false
    }
    Glibc.close(connections[index].fd)
    movedRejoins += 1
    connections[index].fd = fd
    connections[index].moved = false
    connections[index].input = []
    connections[index].output = []
    connections[index].rejoins = 0
    sendRejoin(index)
    return true
  }

  private func sendMove(_ index: Int, cell: Int) {
    connections[index].seq += 1
    let seq = connections[index].seq
    let game = mode == .echo ? "g\(index / 2)" : connections[index].game
    connections[index].pending = (seq, now())
    connections[index].pendingCell = cell
    write(index, #"{"type":"move","game":"\#(game)","cell":\#(cell),"seq":\#(seq)}"# + "\n")
  }

  private func acknowledge(_ index: Int, sentAt: UInt64) {
    connections[index].pending = nil
    moves += 1
    latencies.append(now() - sentAt)
  }

  private func write(_ index: Int, _ text: String) {
    connections[index].output += Array(text.utf8)
    flush(index)
  }

  private func flush(_ index: Int) {
    while !connections[index].output.isEmpty {
      let count = connections[index].output.withUnsafeBytes {
        Glibc.send(connections[index].fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
      }
      if count <= 0 { return }
      connections[index].output.removeFirst(count)
    }
  }
}

/// Nanoseconds on the monotonic clock.
func now() -> UInt64 {
  var time = timespec()
  clock_gettime(CLOCK_MONOTONIC, &time)
  return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}
