import Testing
import TicTacToeServerCore
import UnidirectionalTestSupport

/// The fast path for client frames gives what `JSONDecoder` gives, or leaves the frame to it.
@Suite struct FlatJSONTests {
  @Test func theCommonFramesTakeTheFastPath() throws {
    for frame in [
      #"{"type":"move","game":"g12","cell":4,"seq":17}"#, #"{"type":"hello","name":"Ann"}"#,
      #"{"type":"join"}"#, #"{"type":"move","game":"g1","cell":-1,"seq":0}"#,
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
      #"{"type":"move","cell":1234567890123456789}"#, "{\"type\":\"\u{1}\"}", "{}", "",
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
          // A whole number at a boundary, where a digit was.
          let number = Self.boundaryNumbers[Int(random.next() % UInt64(Self.boundaryNumbers.count))]
          bytes.insert(contentsOf: Array(number.utf8), at: index)
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

  /// Numbers at every boundary, in both numeric fields: neither parser may trap on one, and
  /// when the fast path answers, Foundation agrees. (A 19-digit `seq` once overflowed the fast
  /// path's arithmetic and stopped the server.)
  @Test(arguments: ["cell", "seq"])
  func boundaryNumbersNeverStopTheParsers(field: String) {
    for number in Self.boundaryNumbers {
      let fields = field == "cell" ? #""cell":\#(number),"seq":1"# : #""cell":4,"seq":\#(number)"#
      let bytes = Array(#"{"type":"move","game":"g1",\#(fields)}"#.utf8)
      let fast = FlatJSON.fields(bytes)
      if let fast {
        #expect(fast == (try? ClientFrame.decodeWithFoundation(bytes)), "\(number)")
      }
      // The full decode answers with a frame or an error, whichever parser reads it.
      _ = try? ClientFrame.decode(bytes)
    }
  }

  /// Numbers a fuzzer of numeric fields must produce: digit counts around what an `Int` holds
  /// (18, 19, 20), 2^63 and its neighbours, signs, zeros, fractions, exponents, non-ASCII digits.
  static let boundaryNumbers = [
    "0", "-0", "00", "01", "-01", "8", "9", "-1", "+1",
    "123456789012345678", "-123456789012345678",
    "999999999999999999", "1000000000000000000",
    "1234567890123456789", "9999999999999999999", "99999999999999999999",
    "9223372036854775806", "9223372036854775807", "9223372036854775808",
    "-9223372036854775807", "-9223372036854775808", "-9223372036854775809",
    "18446744073709551615", "18446744073709551616", "340282366920938463463374607431768211456",
    "4.0", "4.5", "4e0", "4E0", "4e1", "1e400", "-1e400", "1e-400", "0.0", "-0.0",
    "\u{0664}", "\u{FF14}", "\"4\"", "null", "true", "[4]",
  ]
}
