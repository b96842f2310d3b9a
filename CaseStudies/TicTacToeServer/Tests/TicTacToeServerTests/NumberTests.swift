import Testing
import TicTacToeServerCore
import UnidirectionalTestSupport

/// The numbers of the protocol (issue 34): the README's table, run through the fast parser
/// (`FlatJSON`), the full decoder (`decodeWithFoundation`) and the two together
/// (`ClientFrame.decode`, what the server runs). A 19-digit `seq` once overflowed the fast
/// parser's arithmetic and stopped the server.
@Suite struct NumberTests {
  /// What the full decoder alone gives for `line`.
  static func full(_ line: [UInt8]) throws(FrameError) -> ClientFrame {
    try ClientFrame.frame(from: ClientFrame.decodeWithFoundation(line))
  }

  /// Checks one value of one field against `expected`, with every parser.
  static func check(_ text: String, in field: String, expected: NumberTable.Outcome) {
    let line = NumberTable.move(field, text)
    let full = NumberTable.outcome(of: field) { () throws(FrameError) in try Self.full(line) }
    #expect(full == expected, "full decoder, \(field): \(text)")
    let both = NumberTable.outcome(of: field) { () throws(FrameError) in
      try ClientFrame.decode(line)
    }
    #expect(both == expected, "ClientFrame.decode, \(field): \(text)")
    // The fast parser answers every accepted number spelled with digits alone, and never
    // accepts a refused one: it leaves those to the full decoder, which words the error.
    let fast = FlatJSON.fields(line)
    switch expected {
    case .value where text.utf8.allSatisfy({ (0x30...0x39).contains($0) }):
      let answer = fast.flatMap { fields in
        NumberTable.outcome(of: field) { () throws(FrameError) in
          try ClientFrame.frame(from: fields)
        }
      }
      #expect(answer == expected, "fast parser, \(field): \(text)")
    case .value: break  // Whitespace: outside the fast parser's subset.
    case .refused: #expect(fast == nil, "fast parser, \(field): \(text)")
    }
  }

  @Test(arguments: NumberTable.rows, ["cell", "seq"])
  func theTableHoldsForBothParsers(row: NumberTable.Row, field: String) {
    // The table follows the grammar the README states.
    #expect(row.outcome == BoundaryNumbers.expected(row.text), "\(row.text)")
    Self.check(row.text, in: field, expected: row.outcome)
  }

  /// Random numbers at every boundary: both parsers agree with the grammar, worked out by the
  /// test on its own, and the generator reaches both sides of each boundary.
  @Test func randomBoundaryNumbersAgreeWithTheGrammar() {
    var random = SplitMix64(seed: 34)
    var accepted: Set<Int> = []  // Digit counts of accepted numbers.
    var refused: Set<Int> = []  // Digit counts of numbers refused with digits alone.
    for _ in 0..<5_000 {
      let text = BoundaryNumbers.random(&random)
      let expected = BoundaryNumbers.expected(text)
      Self.check(text, in: random.next() % 2 == 0 ? "cell" : "seq", expected: expected)
      if text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
        if case .value = expected {
          accepted.insert(text.count)
        } else {
          refused.insert(text.count)
        }
      }
    }
    #expect(accepted.isSuperset(of: [1, 8, 9, 10, 17, 18, 19]))
    #expect(refused.isSuperset(of: [2, 19, 20, 21]))
  }

  /// A bad number is `bad-field` only in a frame that is otherwise one JSON object; a line
  /// that is not JSON is `bad-json`, whatever its numbers. The numbers are checked in every
  /// frame, keys spelled with escapes included.
  @Test func aBadNumberIsBadFieldOnlyInJSON() {
    let cases = [
      (#"{"type":"move","game":"g1","cell":-1,"#, "bad-json"),
      (#"{"type":"move","game":"g1","cell":04,"seq":1,}"#, "bad-json"),
      (#"{"type":"move","game":"g1","cell":4.0,"seq":1"#, "bad-json"),
      (#"{"type":"move","game":"g1","cell":4,"seq":1}x"#, "bad-json"),
      (#"{"type":"ping","seq":-1}"#, "bad-field"),
      (#"{"type":"move","game":"g1","c\u0065ll":-1,"seq":1}"#, "bad-field"),
      (#"{ "type" : "move" , "cell" : 9223372036854775808 , "seq" : 1 }"#, "bad-field"),
      (#"{"type":"move","cell":1,"seq":2,"x":{"cell":-1,"y":["}"]}}"#, "missing-field"),
    ]
    for (text, code) in cases {
      let line = Array(text.utf8)
      for fullOnly in [true, false] {
        do throws(FrameError) {
          let frame = try fullOnly ? Self.full(line) : ClientFrame.decode(line)
          Issue.record("\(text) decoded to \(frame)")
        } catch {
          #expect(error.code.name == code, "\(text), full decoder only: \(fullOnly)")
        }
      }
    }
  }
}
