import Testing
import TicTacToeServerCore
import UnidirectionalTestSupport

/// The baseline (`BaselineServer`, the load test's yardstick) answers exactly as the game
/// server does: a transcript of client frames, replayed in memory against each, gets the same
/// bytes on every connection.
@Suite struct BaselineTests {
  /// The transcript: scripted games (a win, a forfeit by leave, a retried move, a disconnect, a
  /// quit) with the leaderboard asked for before and after each win, then random frames of every
  /// kind (`leaders` among them) from the fuzz test's generator with a fixed seed, spread over
  /// six clients. Each step: (client, frame), or a disconnect (`nil`).
  static func transcript(seed: UInt64) -> [(Int, [UInt8]?)] {
    var steps: [(Int, [UInt8]?)] = []
    func say(_ client: Int, _ json: String) { steps.append((client, Array(json.utf8))) }
    let leaders = #"{"type":"leaders"}"#
    say(4, leaders)
    say(0, #"{"type":"hello","name":"Ann"}"#)
    say(1, #"{"type":"hello","name":" Bob "}"#)
    say(0, #"{"type":"join"}"#)
    say(1, #"{"type":"join"}"#)
    for (seq, (client, cell)) in [(0, 0), (1, 3), (0, 1), (1, 4), (0, 2)].enumerated() {
      say(client, #"{"type":"move","game":"g1","cell":\#(cell),"seq":\#(seq)}"#)
    }
    say(1, #"{"type":"move","game":"g1","cell":5,"seq":9}"#)
    say(1, leaders)
    say(2, #"{"type":"hello","name":"Cy"}"#)
    say(2, #"{"type":"join"}"#)
    say(3, #"{"type":"hello","name":"Di"}"#)
    say(3, #"{"type":"join"}"#)
    say(2, #"{"type":"move","game":"g2","cell":4,"seq":1}"#)
    say(3, #"{"type":"leave"}"#)
    say(2, leaders)
    say(0, #"{"type":"join"}"#)
    say(1, #"{"type":"join"}"#)
    say(0, #"{"type":"move","game":"g3","cell":8,"seq":1}"#)
    // Sent again: answered with its acknowledgement; with another seq, refused.
    say(0, #"{"type":"move","game":"g3","cell":8,"seq":1}"#)
    say(0, #"{"type":"move","game":"g3","cell":8,"seq":2}"#)
    steps.append((1, nil))
    say(0, leaders)
    say(5, #"{"type":"leaders","game":"g1"}"#)
    say(2, #"{"type":"quit"}"#)
    var random = SplitMix64(seed: seed)
    var games = ["g1", "g2", "g3"]
    for _ in 0..<2_000 {
      let client = 3 + Int(random.next() % 3)
      let frame = FuzzTests.randomFrame(&random, games: games)
      steps.append((client, frame))
      if random.next() % 50 == 0 { games.append("g\(games.count + 1)") }
    }
    return steps
  }

  /// The bytes each of six clients receives when `kind` is sent the transcript.
  static func replies(_ kind: ServerKind, seed: UInt64) -> [[UInt8]] {
    let server = kind.make()
    let clients = (0..<6).map { _ in RecordingClient(server) }
    for (client, frame) in transcript(seed: seed) {
      if let frame {
        server.receive(frame, from: clients[client].id)
      } else {
        server.disconnect(clients[client].id, reason: .disconnected)
      }
    }
    // The board after the random part, in both: whatever the random games decided.
    server.receive(Array(#"{"type":"leaders"}"#.utf8), from: clients[5].id)
    server.shutdown()
    return clients.map { $0.take().flatMap(\.bytes) }
  }

  @Test(arguments: [UInt64(1), 2])
  func theBaselineRepliesByteForByteAsTheServerDoes(seed: UInt64) {
    let server = Self.replies(.server, seed: seed)
    let baseline = Self.replies(.baseline, seed: seed)
    #expect(server.allSatisfy { !$0.isEmpty })
    // The transcript did reach the leaderboard: the scripted wins, and the random games'.
    let text = String(decoding: server.joined(), as: UTF8.self)
    #expect(text.contains(#"{"type":"leaders","leaders":[{"name":"Ann","wins":1}]}"#))
    #expect(
      text.contains(
        #"{"type":"leaders","leaders":[{"name":"Ann","wins":2},{"name":"Cy","wins":1}]}"#))
    for (index, (expected, got)) in zip(server, baseline).enumerated() {
      #expect(
        got == expected,
        "client \(index): \(String(decoding: got, as: UTF8.self)) vs \(String(decoding: expected, as: UTF8.self))"
      )
    }
  }
}
