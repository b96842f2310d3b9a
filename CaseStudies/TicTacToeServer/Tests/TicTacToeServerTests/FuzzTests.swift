import Foundation
import Testing
import TicTacToeServerCore
import UnidirectionalTestSupport

/// 10,000 random frames over real connections, with a fixed seed: every reply is a well-formed
/// frame, every game any client sees is consistent, and afterwards the server plays a normal
/// game.
@Suite struct FuzzTests {
  /// A random frame: valid ones of every type, near misses, and garbage.
  static func randomFrame(_ random: inout SplitMix64, games: [String]) -> [UInt8] {
    let game =
      games.isEmpty || random.next() % 4 == 0
      ? "g\(random.next() % 50)" : games.randomElement(using: &random)!
    let cell = Int(random.next() % 12) - 1
    let seq = Int(random.next() % 1000)
    let text: String
    switch random.next() % 16 {
    case 0: text = #"{"type":"hello","name":"p\#(random.next() % 100)"}"#
    case 1: text = #"{"type":"join"}"#
    case 2: text = #"{"type":"leave"}"#
    case 3, 4, 5, 6: text = #"{"type":"move","game":"\#(game)","cell":\#(cell),"seq":\#(seq)}"#
    case 7: text = #"{"type":"move","game":"\#(game)","cell":"\#(cell)"}"#
    case 8: text = #"{"type":"\#(["dance", "", "MOVE", "hello "].randomElement(using: &random)!)"}"#
    case 9:
      text =
        #"{"type":"hello","name":"\#(String(repeating: "n", count: Int(random.next() % 40)))"}"#
    case 10: text = "[\(seq)]"
    case 11: text = #"{"type":"hello","name":"\u0000\u0007"}"#
    case 12:
      // Numbers at every boundary (2^63, 20 digits, signs, fractions, non-ASCII digits…).
      let cell = BoundaryNumbers.random(&random)
      let seq = BoundaryNumbers.random(&random)
      text = #"{"type":"move","game":"\#(game)","cell":\#(cell),"seq":\#(seq)}"#
    case 13: text = seq % 2 == 0 ? #"{"type":"ping"}"# : #"{"type":"leaders"}"#
    case 14:
      // Random bytes, newlines excluded (a newline would split the frame).
      return (0..<(random.next() % 64)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        .map { $0 == 0x0A ? 0x20 : $0 }
    default:
      text = #"{"type":"move","game":"\#(game)","cell":\#(cell),"seq":\#(seq),"x":{"y":[1,2,{}]}}"#
    }
    return Array(text.utf8)
  }

  /// Checks one frame the server sent: a known type, and a consistent board in `state` frames.
  static func check(_ frame: [String: Any], games: inout Set<String>) {
    guard let type = frame["type"] as? String else {
      Issue.record("a frame without a type: \(frame)")
      return
    }
    switch type {
    case "session":
      if let game = frame["game"] as? String { games.insert(game) }
    case "state":
      guard let board = frame["board"] as? String, let moves = frame["moves"] as? Int else {
        Issue.record("a state without board or moves: \(frame)")
        return
      }
      let xs = board.filter { $0 == "X" }.count
      let os = board.filter { $0 == "O" }.count
      #expect(board.count == 9 && xs + os == moves && (xs == os || xs == os + 1), "\(frame)")
      if frame["status"] as? String != "playing" { games.remove(frame["game"] as? String ?? "") }
    case "error":
      #expect(frame["code"] is String && frame["message"] is String, "\(frame)")
    case "leaders":
      let entries = frame["leaders"] as? [[String: Any]]
      let board = (entries ?? []).compactMap { entry -> (String, Int)? in
        guard let name = entry["name"] as? String, let wins = entry["wins"] as? Int else {
          return nil
        }
        return (name, wins)
      }
      // At most ten, each with a win, most wins first, then by name.
      let isSorted = zip(board, board.dropFirst()).allSatisfy { a, b in
        a.1 > b.1 || (a.1 == b.1 && a.0 < b.0)
      }
      #expect(
        entries?.count == board.count && board.count <= 10 && board.allSatisfy { $0.1 > 0 }
          && isSorted, "\(frame)")
    case "pong", "bye": break
    default: Issue.record("an unknown frame type: \(frame)")
    }
  }

  @Test(arguments: ServerKind.allCases, [UInt64(1), 2])
  func tenThousandRandomFrames(_ kind: ServerKind, seed: UInt64) throws {
    let server = try LoopbackServer(kind)
    var random = SplitMix64(seed: seed)
    var clients = try (0..<6).map { _ in try TestClient(port: server.port) }
    var games: Set<String> = []
    let total = 10_000 / 2  // Two seeds: 10,000 frames in all.
    // Pings each client sent that are not answered yet. Random frames include pings: a read up
    // to "the next pong" could stop at the answer to one of those, while the server still
    // works through the frames sent after it (the closing game was then paired with a fuzz
    // client whose `join` the server had not reached yet).
    let ping = Array(#"{"type":"ping"}"#.utf8)
    var unanswered = [Int](repeating: 0, count: clients.count)
    /// Pings client `slot` and reads its frames, checking each, until every ping it sent is
    /// answered: everything it sent before has been handled.
    func catchUp(_ slot: Int) throws {
      clients[slot].send(#"{"type":"ping"}"#)
      unanswered[slot] += 1
      while let frame = try clients[slot].next() {
        Self.check(frame, games: &games)
        if frame["type"] as? String == "pong" {
          unanswered[slot] -= 1
          if unanswered[slot] == 0 { return }
        }
      }
    }

    for index in 0..<total {
      let slot = Int(random.next() % UInt64(clients.count))
      var bytes = Self.randomFrame(&random, games: Array(games).sorted())
      if bytes == ping { unanswered[slot] += 1 }
      bytes.append(0x0A)
      clients[slot].write(bytes)
      // Every so often, and always after garbage, catch up with every client: every reply is
      // checked, and no client ever has an unread backlog.
      if index % 8 == 0 || slot == 0 {
        for slot in clients.indices { try catchUp(slot) }
        // A client the server closed (it sent `quit`-like input or over-size data) is replaced.
        for (slot, client) in clients.enumerated() where !client.isOpen {
          clients[slot] = try TestClient(port: server.port)
          unanswered[slot] = 0
        }
      }
    }
    // No fuzz client stays queued (so the next two are paired together); every reply checked.
    for slot in clients.indices {
      clients[slot].send(#"{"type":"leave"}"#)
      try catchUp(slot)
    }
    // The server still plays a normal game, start to end.
    let (ann, bob, game) = try server.pair("Fuzz survivor X", "Fuzz survivor O")
    for (seq, (client, cell)) in [(ann, 0), (bob, 3), (ann, 1), (bob, 4), (ann, 2)].enumerated() {
      client.send(#"{"type":"move","game":"\#(game)","cell":\#(cell),"seq":\#(seq)}"#)
      let state = try bob.skip(to: "state")
      #expect(state["moves"] as? Int == seq + 1)
      try ann.skip(to: "state")
    }
    #expect(try ann.skip(to: "session")["phase"] as? String == "lobby")
  }
}

extension TestClient {
  /// Whether the connection is still open: a ping is answered.
  var isOpen: Bool {
    send(#"{"type":"ping"}"#)
    while let frame = try? next() {
      if frame["type"] as? String == "pong" { return true }
    }
    return false
  }
}
