import Foundation
import Testing
import TicTacToeServerCore
import Unidirectional
import UnidirectionalTestSupport

/// The server over real loopback connections: a game, bad input of every kind, limits.
@Suite struct LoopbackTests {
  @Test(arguments: ServerKind.allCases) func aGameOverSockets(_ kind: ServerKind) throws {
    let server = try LoopbackServer(kind)
    let (ann, bob, game) = try server.pair()
    let moves: [(TestClient, Int)] = [(ann, 0), (bob, 4), (ann, 1), (bob, 8), (ann, 2)]
    for (seq, (client, cell)) in moves.enumerated() {
      client.send(#"{"type":"move","game":"\#(game)","cell":\#(cell),"seq":\#(seq)}"#)
      for reader in [ann, bob] {
        let state = try reader.expectFrame()
        #expect(state["type"] as? String == "state")
        #expect(state["moves"] as? Int == seq + 1)
        #expect((state["last"] as? [String: Any])?["seq"] as? Int == seq)
        // Whose turn it is while the game is on; the frame of the finished game has no turn.
        let isOver = seq == moves.count - 1
        #expect(state["status"] as? String == (isOver ? "won" : "playing"))
        #expect(state["turn"] as? String == (isOver ? nil : seq % 2 == 0 ? "O" : "X"))
      }
    }
    // X won; both are told, then are back in the lobby.
    for client in [ann, bob] {
      #expect(try client.skip(to: "session")["phase"] as? String == "lobby")
    }
    #expect(try ann.expectNothingPending() && bob.expectNothingPending())
  }

  @Test(arguments: ServerKind.allCases) func badInputIsAnsweredToItsSenderAndHurtsNoGame(
    _ kind: ServerKind
  ) throws {
    let server = try LoopbackServer(kind)
    let (ann, bob, game) = try server.pair()
    let bad: [(TestClient, String, String)] = [
      (ann, "{oops", "bad-json"),
      (ann, "\u{FF}\u{FE}", "bad-json"),
      (ann, #"{"type":42}"#, "bad-field"),
      (ann, #"{"type":"teleport"}"#, "unknown-type"),
      (bob, #"{"type":"move","game":"\#(game)","cell":4,"seq":1}"#, "not-your-turn"),
      (ann, #"{"type":"move","game":"\#(game)","cell":12,"seq":1}"#, "bad-cell"),
      (ann, #"{"type":"move","game":"g999","cell":4,"seq":1}"#, "unknown-game"),
      (ann, #"{"type":"hello","name":"Again"}"#, "wrong-phase"),
    ]
    for (client, frame, code) in bad {
      client.send(frame)
      let reply = try client.expectFrame()
      #expect(reply["type"] as? String == "error", "\(frame)")
      #expect(reply["code"] as? String == code, "\(frame)")
      let other = client === ann ? bob : ann
      #expect(try other.expectNothingPending(), "\(frame)")
    }
    // The game is intact.
    ann.send(#"{"type":"move","game":"\#(game)","cell":4,"seq":1}"#)
    #expect(try ann.expectFrame()["board"] as? String == "....X....")
    #expect(try bob.expectFrame()["board"] as? String == "....X....")
    ann.send(#"{"type":"move","game":"\#(game)","cell":0,"seq":2}"#)
    #expect(try ann.expectFrame()["code"] as? String == "not-your-turn")
    #expect(try bob.expectNothingPending())
  }

  /// Issue 34: a number too big for an integer, from a client that has not said hello, once
  /// stopped the process (an overflow) and every game with it. Now it is an error frame; the
  /// connection goes on, and so do the other connections' games.
  @Test(arguments: ServerKind.allCases)
  func aNumberTooBigForAnIntegerIsAnErrorAndEveryConnectionGoesOn(_ kind: ServerKind) throws {
    let server = try LoopbackServer(kind)
    let (ann, bob, game) = try server.pair()
    let eve = try TestClient(port: server.port)
    #expect(try eve.expectFrame()["phase"] as? String == "connected")
    for line in [
      #"{"type":"move","game":"g1","cell":4,"seq":9999999999999999999}"#,
      #"{"type":"move","game":"g1","cell":9999999999999999999,"seq":1}"#,
      #"{"type":"move","game":"\#(game)","cell":4,"seq":18446744073709551616}"#,
    ] {
      eve.send(line)
      let reply = try eve.expectFrame()
      #expect(reply["type"] as? String == "error", "\(line)")
      #expect(reply["code"] as? String == "bad-field", "\(line)")
    }
    // The same connection: its next valid frames get their normal answers.
    eve.send(#"{"type":"ping"}"#)
    #expect(try eve.expectFrame()["type"] as? String == "pong")
    eve.send(#"{"type":"hello","name":"Eve"}"#)
    #expect(try eve.skip(to: "session")["phase"] as? String == "lobby")
    // The game of the other connections was never told anything, and goes on.
    #expect(try ann.expectNothingPending() && bob.expectNothingPending())
    ann.send(#"{"type":"move","game":"\#(game)","cell":4,"seq":9223372036854775807}"#)
    for client in [ann, bob] {
      let state = try client.expectFrame()
      #expect(state["board"] as? String == "....X....")
      #expect((state["last"] as? [String: Any])?["seq"] as? Int == Int.max)
    }
  }

  @Test(arguments: ServerKind.allCases)
  func aFrameOverTheCapIsAnsweredThenDisconnectedAndItsGameForfeited(_ kind: ServerKind) throws {
    var limits = LineServer.Limits()
    limits.maximumFrameBytes = 256
    let server = try LoopbackServer(kind, limits: limits)
    let (ann, bob, _) = try server.pair()
    // Half a frame that never ends, longer than the cap.
    ann.write(Array(#"{"type":"hello","name":""#.utf8) + Array(repeating: 0x61, count: 300))
    let frames = try ann.readToEnd()
    #expect(frames.last?["type"] as? String == "bye")
    #expect(frames.last?["reason"] as? String == "frame-too-large")
    let end = try bob.expectFrame()
    #expect(end["status"] as? String == "forfeit" && end["winner"] as? String == "O")
    #expect(try bob.skip(to: "session")["phase"] as? String == "lobby")
  }

  /// Half a frame, then silence: the idle timeout (on the server's clock, a test clock here)
  /// closes the connection; the bytes of an unfinished frame are not activity.
  @Test(arguments: ServerKind.allCases) func halfAFrameThenAStallTimesOut(_ kind: ServerKind)
    async throws
  {
    let clock = TestClock()
    let executor = TestExecutor()
    let server = try withDependencies {
      $0.continuousClock = clock
    } operation: {
      try LoopbackServer(
        kind,
        configuration: GameServer.Configuration(
          idleTimeout: .seconds(5), effectExecutor: executor))
    }
    let client = try TestClient(port: server.port)
    #expect(try client.expectFrame()["phase"] as? String == "connected")
    client.write(Array(#"{"type":"hel"#.utf8))
    // The session's idle timer started as it connected: run it to its first sleep.
    executor.drain()
    #expect(clock.sleeperCount == 1)
    await clock.advance(by: .milliseconds(6250))
    let frames = try client.readToEnd()
    #expect(frames.map { $0["type"] as? String } == ["bye"])
    #expect(frames.first?["reason"] as? String == "idle")
  }

  @Test(arguments: ServerKind.allCases)
  func aClientThatDoesNotReadIsDisconnectedAtTheOutputCap(_ kind: ServerKind) throws {
    var limits = LineServer.Limits()
    limits.maximumOutputBytes = 16 * 1024
    let logs = Locked<[String]>([])
    let server = try LoopbackServer(
      kind, limits: limits,
      configuration: GameServer.Configuration(log: { line in logs.withLock { $0.append(line) } }))
    let greedy = try TestClient(port: server.port)
    // Pings, never reading the pongs: the kernel's buffers fill, then the server's 16 KiB cap.
    let pings = Array(String(repeating: #"{"type":"ping"}"# + "\n", count: 4096).utf8)
    var written = 0
    while written < 512 * 1024 * 1024, greedy.writeAll(pings) {
      written += pings.count
    }
    #expect(written < 512 * 1024 * 1024, "the server never dropped the client")
    // Others are served as before (and by then the loop has logged the drop).
    let (ann, bob, game) = try server.pair()
    ann.send(#"{"type":"move","game":"\#(game)","cell":4,"seq":1}"#)
    #expect(try bob.expectFrame()["board"] as? String == "....X....")
    #expect(logs.withLock { $0.contains { $0.hasSuffix("closed (slow-reader)") } })
  }
}

extension TestClient {
  /// Writes all of `bytes`; `false` once the server has closed the connection.
  func writeAll(_ bytes: [UInt8]) -> Bool {
    var sent = 0
    while sent < bytes.count {
      let count = bytes.withUnsafeBytes {
        Glibc.send(fd, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
      }
      if count <= 0 { return false }
      sent += count
    }
    return true
  }
}

extension LoopbackTests {
  /// `::1` works as well as `127.0.0.1`; other hosts are refused.
  @Test func ipv6LoopbackServesAndOtherHostsAreRefused() throws {
    let game = GameServer()
    let server = try LineServer(host: "::1", port: 0, handler: game.lineHandler)
    server.start()
    // wall-clock: the server's grace period for its connections as it stops, not a wait for a result.
    defer { server.stop(timeout: .milliseconds(200)) { game.shutdown() } }
    #expect(server.address == "[::1]:\(server.port)")
    let fd = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in6()
    address.sin6_family = sa_family_t(AF_INET6)
    address.sin6_port = server.port.bigEndian
    address.sin6_addr = in6addr_loopback
    let status = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
      }
    }
    #expect(status == 0)
    var timeout = timeval(tv_sec: 10, tv_usec: 0)  // A hang becomes a failure.
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var buffer = [UInt8](repeating: 0, count: 256)
    let count = recv(fd, &buffer, buffer.count, 0)
    #expect(
      count > 0
        && String(decoding: buffer[0..<count], as: UTF8.self)
          == #"{"type":"session","phase":"connected"}"# + "\n"
    )
    #expect(throws: LineServer.SocketError.self) {
      try LineServer(host: "0.0.0.0", port: 0, handler: game.lineHandler)
    }
  }
}
