import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The real executable: its port line, its signals and its exit codes.
@Suite struct ServerProcessTests {
  @Test(arguments: [SIGTERM, SIGINT]) func aSignalLetsTheMoveInFlightFinishAndExitsZero(
    signal: Int32
  ) throws {
    let server = try ServerProcess()
    let ann = try TestClient(port: server.port)
    let bob = try TestClient(port: server.port)
    for (client, name) in [(ann, "Ann"), (bob, "Bob")] {
      client.send(#"{"type":"hello","name":"\#(name)"}"#)
      client.send(#"{"type":"join"}"#)
      try client.skip(toPhase: client === ann ? "queued" : "playing")
    }
    let game = try ann.skip(toPhase: "playing")["game"] as! String
    ann.send(#"{"type":"move","game":"\#(game)","cell":4,"seq":1}"#)
    #expect(try bob.skip(to: "state")["moves"] as? Int == 0)
    // The move was sent before the signal: it is played and pushed, then every client is told
    // goodbye.
    let (status, log) = server.stop(signal)
    #expect(status == 0)
    let frames = try bob.readToEnd()
    #expect(frames.first?["moves"] as? Int == 1)
    #expect(
      frames.last?["type"] as? String == "bye" && frames.last?["reason"] as? String == "shutdown")
    #expect(log.contains("no new connections"))
    #expect(log.contains("stopped: 1 games started"))
  }

  /// A signal that comes as soon as the server says it listens still stops it. The signals are
  /// taken by a dispatch source, which on Linux reads them from a `signalfd`: a signal any
  /// thread leaves unblocked may be delivered to that thread instead, where it is ignored, and
  /// the server ran on (one run in about 30 under parallel tests, just after start-up).
  @Test func aSignalRightAfterStartUpStopsTheServer() throws {
    for round in 0..<30 {
      let server = try ServerProcess()
      let (status, log) = server.stop(round % 2 == 0 ? SIGTERM : SIGINT, seconds: 10)
      #expect(status == 0, "round \(round): \(log)")
      if status != 0 { break }
    }
  }

  /// A port that is a number but not a port is said to be out of range, not "not a number".
  @Test func aPortOutOfRangeIsSaidToBe() throws {
    for port in ["99999", "-1", "65536"] {
      let run = try ServerProcess.run(["--port", port])
      #expect(run.status == 64)
      #expect(
        run.log.hasPrefix(
          "tictactoe-server: --port: \(port) is out of range: a port is 1 to 65535 (0 picks a "
            + "free one)\nusage:"), "\(run.log)")
    }
    #expect(
      try ServerProcess.run(["--port", "seventy"]).log.hasPrefix(
        "tictactoe-server: --port: not a number: seventy\n"))
  }

  @Test func exitCodes() throws {
    #expect(try ServerProcess.run(["--port", "seventy"]).status == 64)
    #expect(try ServerProcess.run(["--frobnicate"]).status == 64)
    #expect(try ServerProcess.run(["--host", "0.0.0.0"]).status == 71)
    let server = try ServerProcess()
    let busy = try ServerProcess.run(["--port", "\(server.port)"])
    #expect(busy.status == 71)
    #expect(busy.log.contains("Address already in use"))
    #expect(server.stop().status == 0)
  }
}
