/// A fast path for the frames clients send most: one flat JSON object whose values are plain
/// strings or integers, with no whitespace, escapes or repeated keys.
///
/// It accepts only a strict subset of JSON, and gives what `JSONDecoder` would for it; anything
/// else (including every malformed frame) returns `nil` and goes to `JSONDecoder`, which also
/// words the errors. Foundation's decoder costs several microseconds per frame, more than the
/// rest of a move.
package enum FlatJSON {
  package static func fields(_ line: some Collection<UInt8>) -> ClientFrame.Fields? {
    let done: ClientFrame.Fields?? = line.withContiguousStorageIfAvailable { bytes in
      parse(bytes)
    }
    return done ?? nil
  }

  /// The keys the fast path reads, each with its bit.
  private static let keys: [(key: StaticString, bit: UInt8)] = [
    ("type", 1), ("name", 2), ("game", 4), ("cell", 8), ("seq", 16),
  ]

  /// The bit of a key the fast path reads, or 0 for any other key.
  private static func bit(of key: UnsafeBufferPointer<UInt8>) -> UInt8 {
    for (name, bit) in keys
    where name.utf8CodeUnitCount == key.count
      && UnsafeBufferPointer(start: name.utf8Start, count: key.count).elementsEqual(key)
    {
      return bit
    }
    return 0
  }

  private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> ClientFrame.Fields? {
    var index = 0
    func next() -> UInt8? {
      guard index < bytes.count else { return nil }
      defer { index += 1 }
      return bytes[index]
    }
    /// The bytes of a string without escapes or control characters, the opening quote read;
    /// reads the closing quote.
    func stringBytes() -> UnsafeBufferPointer<UInt8>? {
      let start = index
      while index < bytes.count {
        let byte = bytes[index]
        if byte == 0x22 {
          defer { index += 1 }
          return UnsafeBufferPointer(rebasing: bytes[start..<index])
        }
        if byte == 0x5C || byte < 0x20 { return nil }
        index += 1
      }
      return nil
    }
    /// A string without escapes or control characters, as valid UTF-8.
    func string() -> String? {
      guard let raw = stringBytes() else { return nil }
      // ASCII, as ids and frame types always are, needs no validation: decoding it is exact.
      // The validating initializer is generic over the encoding and costs about a microsecond.
      if raw.allSatisfy({ $0 < 0x80 }) { return String(decoding: raw, as: UTF8.self) }
      return String(validating: raw, as: UTF8.self)
    }
    /// A number of the protocol: ASCII digits with no sign, fraction, exponent or leading zero,
    /// at most `Int.max` (the README's table of numbers). Anything else is left to the full
    /// decoder, which refuses it with `bad-field`.
    ///
    /// Each digit is added with overflow checks: a number past `Int.max` (2^63, 20 digits) ends
    /// the fast path instead of trapping (one such number once stopped the server).
    func integer() -> Int? {
      let start = index
      var value = 0
      while index < bytes.count, (0x30...0x39).contains(bytes[index]) {
        let (tens, overflowed) = value.multipliedReportingOverflow(by: 10)
        let (sum, carried) = tens.addingReportingOverflow(Int(bytes[index] &- 0x30))
        guard !overflowed, !carried else { return nil }
        value = sum
        index += 1
      }
      guard index > start, index - start == 1 || bytes[start] != 0x30 else { return nil }
      return value
    }

    guard next() == 0x7B else { return nil }
    var type: String?
    var name: String?
    var game: String?
    var cell: Int?
    var seq: Int?
    var seen: UInt8 = 0  // One bit per key: a repeated key goes to the full decoder.
    while true {
      // Keys are matched on their bytes: no string is made for them.
      guard next() == 0x22, let key = stringBytes(), next() == 0x3A else { return nil }
      let bit = Self.bit(of: key)
      guard bit != 0, seen & bit == 0 else { return nil }
      seen |= bit
      switch bit {
      case 1:
        guard next() == 0x22, let value = string() else { return nil }
        type = value
      case 2:
        guard next() == 0x22, let value = string() else { return nil }
        name = value
      case 4:
        guard next() == 0x22, let value = string() else { return nil }
        game = value
      case 8:
        guard let value = integer() else { return nil }
        cell = value
      case 16:
        guard let value = integer() else { return nil }
        seq = value
      default:
        return nil  // Other keys, and their values, are for the full decoder.
      }
      switch next() {
      case 0x2C: continue
      case 0x7D:
        guard index == bytes.count, let type else { return nil }
        return ClientFrame.Fields(type: type, name: name, game: game, cell: cell, seq: seq)
      default: return nil
      }
    }
  }
}
