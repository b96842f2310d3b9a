import Testing
import TicTacToeServerCore
import UnidirectionalTestSupport

/// The fast path for client frames gives what `JSONDecoder` gives, or leaves the frame to it.
@Suite struct FlatJSONTests {
  @Test func theCommonFramesTakeTheFastPath() throws {
    for frame in [
      #"{"type":"move","game":"g12","cell":4,"seq":17}"#, #"{"type":"hello","name":"Ann"}"#,
      #"{"type":"join"}"#, #"{"type":"move","game":"g1","cell":0,"seq":0}"#,
      #"{"type":"move","game":"g1","cell":9,"seq":9223372036854775807}"#,
    ] {
      let fast = FlatJSON.fields(Array(frame.utf8))
      #expect(fast != nil, "\(frame)")
      #expect(fast == (try ClientFrame.decodeWithFoundation(Array(frame.utf8))), "\(frame)")
    }
  }

  @Test func everythingElseIsLeftToFoundation() {
    for frame in [
      #"{"type":"move","cell":01}"#, #"{"type":"a\"b"}"#, #"{"type":"x","type":"y"}"#,
      #"{ "type":"join"}"#, #"{"type":"join"} "#, #"{"type":"join","x":1}"#,
      #"{"type":"move","cell":1.5}"#, #"{"type":"move","cell":1e3}"#, #"{"name":"Ann"}"#,
      #"{"type":"move","cell":9223372036854775808}"#,
      #"{"type":"move","cell":-1}"#, #"{"type":"move","cell":-0}"#, "{\"type\":\"\u{1}\"}", "{}",
      "",
    ] {
      #expect(FlatJSON.fields(Array(frame.utf8)) == nil, "\(frame)")
    }
    #expect(FlatJSON.fields([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D]) == nil)
  }

  /// Random mutations of valid frames: whenever the fast path answers, Foundation agrees.
  @Test func randomFramesAgreeWithFoundation() {
    var random = SplitMix64(seed: 42)
    let seeds = [
      #"{"type":"move","game":"g12","cell":4,"seq":17}"#, #"{"type":"hello","name":"Ann"}"#,
    ].map { Array($0.utf8) }
    var fastPaths = 0
    for _ in 0..<20_000 {
      var bytes = seeds[Int(random.next() % 2)]
      for _ in 0..<(1 + random.next() % 3) {
        let index = Int(random.next() % UInt64(bytes.count))
        switch random.next() % 4 {
        case 3:
          // A whole number at a boundary (see `BoundaryNumbers`).
          bytes.insert(contentsOf: Array(BoundaryNumbers.random(&random).utf8), at: index)
        case 0: bytes[index] = UInt8(truncatingIfNeeded: random.next())
        case 1: bytes.remove(at: index)
        default:
          let alphabet = Array("{}[]\",:-0123456789 \\e.a".utf8)
          bytes.insert(alphabet[Int(random.next() % UInt64(alphabet.count))], at: index)
        }
      }
      guard let fast = FlatJSON.fields(bytes) else { continue }
      fastPaths += 1
      #expect(
        fast == (try? ClientFrame.decodeWithFoundation(bytes)),
        "\(String(decoding: bytes, as: UTF8.self))")
    }
    #expect(fastPaths > 1000)
  }
}
