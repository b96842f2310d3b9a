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

  private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> ClientFrame.Fields? {
    var index = 0
    func next() -> UInt8? {
      guard index < bytes.count else { return nil }
      defer { index += 1 }
      return bytes[index]
    }
    /// A string without escapes or control characters, as valid UTF-8.
    func string() -> String? {
      let start = index
      while index < bytes.count {
        let byte = bytes[index]
        if byte == 0x22 {
          defer { index += 1 }
          return String(
            validating: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        }
        if byte == 0x5C || byte < 0x20 { return nil }
        index += 1
      }
      return nil
    }
    /// An integer without leading zeros or more than 18 digits.
    func integer() -> Int? {
      var negative = false
      if index < bytes.count, bytes[index] == 0x2D {
        negative = true
        index += 1
      }
      let start = index
      var value = 0
      while index < bytes.count, (0x30...0x39).contains(bytes[index]) {
        value = value * 10 + Int(bytes[index] - 0x30)
        index += 1
      }
      let digits = index - start
      guard digits > 0, digits <= 18, digits == 1 || bytes[start] != 0x30 else { return nil }
      return negative ? -value : value
    }

    guard next() == 0x7B else { return nil }
    var type: String?
    var name: String?
    var game: String?
    var cell: Int?
    var seq: Int?
    var seen: UInt8 = 0  // One bit per key: a repeated key goes to the full decoder.
    while true {
      guard next() == 0x22, let key = string(), next() == 0x3A else { return nil }
      let bit: UInt8 =
        switch key {
        case "type": 1
        case "name": 2
        case "game": 4
        case "cell": 8
        case "seq": 16
        default: 0
        }
      guard bit != 0, seen & bit == 0 else { return nil }
      seen |= bit
      switch key {
      case "type":
        guard next() == 0x22, let value = string() else { return nil }
        type = value
      case "name":
        guard next() == 0x22, let value = string() else { return nil }
        name = value
      case "game":
        guard next() == 0x22, let value = string() else { return nil }
        game = value
      case "cell":
        guard let value = integer() else { return nil }
        cell = value
      case "seq":
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
