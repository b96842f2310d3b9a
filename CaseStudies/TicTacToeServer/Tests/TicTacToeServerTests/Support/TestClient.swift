import Foundation
import TicTacToeServerCore

#if canImport(Glibc)
  import Glibc
#endif

/// A blocking loopback client for tests: writes raw bytes, reads frames as JSON objects.
///
/// Reads wait for data with a long receive timeout (10 s) that only turns a hang into a failure;
/// tests never wait for time to pass, they wait for the frame they expect.
final class TestClient {
  let fd: Int32
  private var buffer: [UInt8] = []

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
      let reason = String(cString: strerror(errno))
      close(fd)
      throw ClientError("connect: \(reason)")
    }
    self.fd = fd
    var timeout = timeval(tv_sec: 10, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var one: Int32 = 1
    setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
  }

  deinit { Glibc.close(fd) }

  struct ClientError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
  }

  /// Writes bytes as they are (no newline added).
  func write(_ bytes: [UInt8]) {
    var sent = 0
    while sent < bytes.count {
      let count = bytes.withUnsafeBytes {
        Glibc.send(fd, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
      }
      if count <= 0 { return }  // The server closed: the next read tells.
      sent += count
    }
  }

  /// Writes one frame and its newline.
  func send(_ json: String) {
    write(Array((json + "\n").utf8))
  }

  /// The next frame, or `nil` at end of file.
  func next() throws -> [String: Any]? {
    while true {
      if let newline = buffer.firstIndex(of: 0x0A) {
        let line = Array(buffer[..<newline])
        buffer.removeFirst(newline + 1)
        guard let object = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any]
        else { throw ClientError("not an object: \(String(decoding: line, as: UTF8.self))") }
        return object
      }
      var chunk = [UInt8](repeating: 0, count: 65536)
      let count = recv(fd, &chunk, chunk.count, 0)
      if count == 0 { return nil }
      if count < 0 {
        if errno == EINTR { continue }
        if errno == ECONNRESET { return nil }
        throw ClientError("recv: \(String(cString: strerror(errno)))")
      }
      buffer += chunk[0..<count]
    }
  }

  /// The next frame; fails if the connection closed.
  func expectFrame() throws -> [String: Any] {
    guard let frame = try next() else { throw ClientError("the server closed the connection") }
    return frame
  }

  /// Reads frames until one of `type` (returning it), failing at end of file.
  @discardableResult
  func skip(to type: String) throws -> [String: Any] {
    while true {
      let frame = try expectFrame()
      if frame["type"] as? String == type { return frame }
    }
  }

  /// Reads frames until a `session` frame in `phase` (returning it); fails on another session
  /// phase that is not on the way to it, or at end of file.
  @discardableResult
  func skip(toPhase phase: String) throws -> [String: Any] {
    while true {
      let frame = try skip(to: "session")
      let got = frame["phase"] as? String ?? ""
      if got == phase { return frame }
      guard ["connected", "lobby", "queued"].contains(got) else {
        throw ClientError("expected phase \(phase), got \(frame)")
      }
    }
  }

  /// Reads frames until the server closes; returns them.
  func readToEnd() throws -> [[String: Any]] {
    var frames: [[String: Any]] = []
    while let frame = try next() { frames.append(frame) }
    return frames
  }

  /// Proves nothing is queued for this client: a ping's answer is the very next frame.
  func expectNothingPending() throws -> Bool {
    send(#"{"type":"ping"}"#)
    return try expectFrame()["type"] as? String == "pong"
  }
}

/// A `GameServer` (or its baseline) on a `LineServer` on a free loopback port, in this process.
final class LoopbackServer {
  let game: any FrameServing
  let line: LineServer
  var port: UInt16 { line.port }

  init(
    _ kind: ServerKind = .server,
    limits: LineServer.Limits = LineServer.Limits(),
    configuration: GameServer.Configuration = GameServer.Configuration()
  ) throws {
    let game = kind.make(configuration)
    self.game = game
    self.line = try LineServer(
      port: 0, limits: limits,
      handler: game.lineHandler)
    line.start()
  }

  deinit {
    // wall-clock: the server's grace period for its connections as it stops, not a wait for a result.
    line.stop(timeout: .milliseconds(200)) { [game] in game.shutdown() }
  }

  /// Two clients, Ann (X) and Bob (O), in a new game; returns them and the game's id.
  func pair(_ x: String = "Ann", _ o: String = "Bob") throws -> (TestClient, TestClient, String) {
    let ann = try TestClient(port: port)
    let bob = try TestClient(port: port)
    ann.send(#"{"type":"hello","name":"\#(x)"}"#)
    ann.send(#"{"type":"join"}"#)
    // Ann must be first in the queue, so that Bob is paired with her.
    try ann.skip(toPhase: "queued")
    bob.send(#"{"type":"hello","name":"\#(o)"}"#)
    bob.send(#"{"type":"join"}"#)
    let started = try ann.skip(toPhase: "playing")
    guard let game = started["game"] as? String,
      try bob.skip(toPhase: "playing")["game"] as? String == game
    else { throw TestClient.ClientError("not paired together: \(started)") }
    try ann.skip(to: "state")
    try bob.skip(to: "state")
    return (ann, bob, game)
  }
}
