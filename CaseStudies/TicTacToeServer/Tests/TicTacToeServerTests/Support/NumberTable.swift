import Testing
import TicTacToeServerCore
import UnidirectionalTestSupport

/// The README's table of numbers, written once as data: how the value of a numeric field
/// (`cell`, `seq`) is spelled in a frame, and what decoding that frame gives.
///
/// Both parsers (`FlatJSON` and the full decoder) are run over it; see `NumberTests`.
enum NumberTable {
  /// What decoding a frame gives for one numeric value.
  enum Outcome: Equatable, CustomStringConvertible {
    /// The frame decodes, and the field holds this value.
    case value(Int)
    /// The frame is refused with an `error` frame of this code.
    case refused(String)

    var description: String {
      switch self {
      case .value(let value): "value \(value)"
      case .refused(let code): "refused (\(code))"
      }
    }
  }

  /// One row: a value as it is spelled, and its outcome in either numeric field.
  struct Row: CustomTestStringConvertible, Sendable {
    var text: String
    var outcome: Outcome
    var testDescription: String { "\(text) → \(outcome)" }
  }

  /// The refusal of a badly spelled or out-of-range number.
  static let badField = Outcome.refused("bad-field")

  /// The rows, in the README's order.
  static let rows: [Row] = [
    // Accepted: ASCII digits, no sign, fraction, exponent or leading zero, at most 2^63 - 1.
    Row(text: "0", outcome: .value(0)),
    Row(text: "4", outcome: .value(4)),
    Row(text: "8", outcome: .value(8)),
    Row(text: "9", outcome: .value(9)),
    Row(text: "10", outcome: .value(10)),
    Row(text: "99999999", outcome: .value(99_999_999)),
    Row(text: "999999999999999999", outcome: .value(999_999_999_999_999_999)),
    Row(text: "1000000000000000000", outcome: .value(1_000_000_000_000_000_000)),
    Row(text: "9223372036854775806", outcome: .value(Int.max - 1)),
    Row(text: "9223372036854775807", outcome: .value(Int.max)),
    // JSON whitespace around the value is JSON's, not the number's.
    Row(text: " 4 ", outcome: .value(4)),
    // Too large: 2^63, 19 and 20 digits past it, UInt64.max, 2^64, 39 digits.
    Row(text: "9223372036854775808", outcome: badField),
    Row(text: "9999999999999999999", outcome: badField),
    Row(text: "10000000000000000000", outcome: badField),
    Row(text: "18446744073709551615", outcome: badField),
    Row(text: "18446744073709551616", outcome: badField),
    Row(text: "99999999999999999999", outcome: badField),
    Row(text: "340282366920938463463374607431768211456", outcome: badField),
    // Signs.
    Row(text: "-1", outcome: badField),
    Row(text: "-0", outcome: badField),
    Row(text: "-9223372036854775808", outcome: badField),
    Row(text: "-9223372036854775809", outcome: badField),
    Row(text: "+4", outcome: badField),
    Row(text: "-", outcome: badField),
    // Fractions and exponents, even when the value is a whole number.
    Row(text: "4.0", outcome: badField),
    Row(text: "4.5", outcome: badField),
    Row(text: "0.0", outcome: badField),
    Row(text: "-0.0", outcome: badField),
    Row(text: "4.", outcome: badField),
    Row(text: ".5", outcome: badField),
    Row(text: "4e0", outcome: badField),
    Row(text: "4E0", outcome: badField),
    Row(text: "4e+0", outcome: badField),
    Row(text: "1e400", outcome: badField),
    Row(text: "1e-400", outcome: badField),
    // Leading zeros.
    Row(text: "04", outcome: badField),
    Row(text: "00", outcome: badField),
    Row(text: "0004", outcome: badField),
    // Digits that are not ASCII: Arabic-Indic four, fullwidth four, Devanagari four.
    Row(text: "\u{0664}", outcome: badField),
    Row(text: "\u{FF14}", outcome: badField),
    Row(text: "\u{096A}", outcome: badField),
    // Not numbers.
    Row(text: "", outcome: badField),
    Row(text: "\"4\"", outcome: badField),
    Row(text: "\"\"", outcome: badField),
    Row(text: "true", outcome: badField),
    Row(text: "false", outcome: badField),
    Row(text: "null", outcome: badField),
    Row(text: "[4]", outcome: badField),
    Row(text: "{}", outcome: badField),
    Row(text: "0x4", outcome: badField),
    Row(text: "4_000", outcome: badField),
    Row(text: "Infinity", outcome: badField),
    Row(text: "NaN", outcome: badField),
  ]

  /// A move frame with `text` as the value of `field` (`cell` or `seq`); the other field is
  /// valid.
  static func move(_ field: String, _ text: String) -> [UInt8] {
    let fields = field == "cell" ? #""cell":\#(text),"seq":1"# : #""cell":4,"seq":\#(text)"#
    return Array(#"{"type":"move","game":"g1",\#(fields)}"#.utf8)
  }

  /// What a decoder gives for the value of `field` in `line`.
  static func outcome(
    of field: String, _ decode: () throws(FrameError) -> ClientFrame
  ) -> Outcome? {
    do {
      guard case .move(_, let cell, let seq) = try decode() else { return nil }
      return .value(field == "cell" ? cell : seq)
    } catch {
      return .refused(error.code.name)
    }
  }
}

/// Numbers at every boundary, for fuzzers of numeric fields: digit counts around what an `Int`
/// holds, 2^63 and 2^64 and their neighbours, signs, fractions, exponents, leading zeros,
/// non-ASCII digits.
enum BoundaryNumbers {
  /// Fixed numbers at the boundaries.
  static let fixed = [
    "0", "8", "9", "10", "9223372036854775807", "9223372036854775808", "9223372036854775806",
    "18446744073709551615", "18446744073709551616", "-9223372036854775808",
    "-9223372036854775809", "-0", "-1", "+1", "00", "01",
  ]

  /// A random number text at a boundary: a fixed one, or a random one of 1, 8, 9, 10, 17, 18,
  /// 19, 20 or 21 digits, perhaps signed, with a fraction or exponent, leading zeros, or a
  /// non-ASCII digit.
  static func random(_ random: inout SplitMix64) -> String {
    if random.next() % 3 == 0 {
      return fixed[Int(random.next() % UInt64(fixed.count))]
    }
    let lengths = [1, 8, 9, 10, 17, 18, 19, 20, 21]
    let length = lengths[Int(random.next() % UInt64(lengths.count))]
    var digits = (0..<length).map { _ in Character(String(random.next() % 10)) }
    // Mostly without a leading zero, and often all nines: the top of each digit count.
    if random.next() % 2 == 0 { digits = Array(repeating: "9", count: length) }
    if digits.count > 1, digits[0] == "0", random.next() % 4 != 0 { digits[0] = "1" }
    var text = String(digits)
    switch random.next() % 8 {
    case 0: text = "-" + text
    case 1: text += ".0"
    case 2: text += "e0"
    case 3: text = "0" + text
    case 4:
      // A non-ASCII digit in place of one digit.
      let odd = ["\u{0664}", "\u{FF14}", "\u{096A}"][Int(random.next() % 3)]
      let at = text.index(text.startIndex, offsetBy: Int(random.next() % UInt64(text.count)))
      text.replaceSubrange(at...at, with: odd)
    default: break
    }
    return text
  }

  /// What the protocol's grammar says `text` decodes to, worked out independently of both
  /// parsers: digits only with no leading zero (a regular expression), at most `Int.max`
  /// (the standard library's `Int(_:)`).
  static func expected(_ text: String) -> NumberTable.Outcome {
    let trimmed = text.trimmingJSONWhitespace()
    guard trimmed.wholeMatch(of: /0|[1-9][0-9]*/) != nil, let value = Int(trimmed) else {
      return NumberTable.badField
    }
    return .value(value)
  }
}

extension String {
  /// The string without JSON whitespace (space, tab, newline, return) at either end.
  fileprivate func trimmingJSONWhitespace() -> String {
    let isSpace: (Character) -> Bool = { " \t\n\r".contains($0) }
    return String(drop(while: isSpace).reversed().drop(while: isSpace).reversed())
  }
}
