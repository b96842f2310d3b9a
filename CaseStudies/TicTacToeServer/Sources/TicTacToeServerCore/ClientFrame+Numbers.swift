import Foundation

/// The numbers of the protocol, as the full decoder checks them.
///
/// `cell` and `seq` hold a JSON integer with no sign, fraction, exponent or leading zero, at
/// most 2^63 - 1 (`Int.max`); the README's table of numbers lists what is refused, and with
/// which code. `JSONDecoder` cannot check this alone: it reads `4.0`, `4e0` and `-0` as 4 and
/// 0, and calls a number it cannot hold (2^63) invalid JSON. So the full decoder reads the
/// spelling of each top-level `cell` and `seq` value itself.
extension ClientFrame {
  /// The keys whose values are numbers of the protocol.
  static let numericKeys: Set<String> = ["cell", "seq"]

  /// Whether `text` is a number of the protocol: ASCII digits, no leading zero, and at most
  /// `Int.max`, compared digit by digit (no arithmetic, so nothing can overflow).
  static func isProtocolNumber(_ text: ArraySlice<UInt8>) -> Bool {
    let maximum = Array(String(Int.max).utf8)
    guard !text.isEmpty, text.allSatisfy({ (0x30...0x39).contains($0) }),
      text.count == 1 || text.first != 0x30, text.count <= maximum.count
    else { return false }
    // Of equal length, digit strings compare as their numbers do.
    return text.count < maximum.count || !maximum.lexicographicallyPrecedes(text)
  }

  /// The first top-level `cell` or `seq` whose value is not a number of the protocol, in a
  /// frame that is otherwise one JSON object.
  ///
  /// - Returns: The key, or `nil` when every numeric value is well spelled, or when the line is
  ///   not a JSON object (its error is `bad-json`, whatever its numbers).
  static func badNumericField(in line: [UInt8]) -> String? {
    guard let values = numericValues(in: line),
      let bad = values.first(where: { !isProtocolNumber(line[$0.range]) })
    else { return nil }
    // The rest of the frame must be JSON: the same line with every numeric value 0 decodes.
    var patched = line
    for value in values.reversed() { patched.replaceSubrange(value.range, with: [0x30]) }
    do {
      _ = try JSONDecoder().decode(Fields.self, from: Data(patched))
    } catch DecodingError.keyNotFound {
      // A missing field: still JSON.
    } catch DecodingError.typeMismatch(_, let context) where !context.codingPath.isEmpty {
      // Another field of the wrong type: still JSON.
    } catch {
      return nil
    }
    return bad.key
  }

  /// The top-level values of `cell` and `seq`, each with its key and the range of its bytes
  /// (JSON whitespace around it excluded), or `nil` if the line is not an object this scan can
  /// follow.
  ///
  /// A scalar value runs to the next comma, brace, bracket or whitespace, whatever it holds
  /// (`-1`, `4.0`, `04`, `٤`, nothing); strings, arrays and objects are skipped whole. Keys
  /// spelled with escapes (`"c\u0065ll"`) are decoded.
  static func numericValues(in line: [UInt8]) -> [(key: String, range: Range<Int>)]? {
    var index = 0
    func skipSpace() {
      while index < line.count, [0x20, 0x09, 0x0A, 0x0D].contains(line[index]) { index += 1 }
    }
    /// Skips a string, its opening quote at `index`.
    func skipString() -> Bool {
      index += 1
      while index < line.count {
        switch line[index] {
        case 0x5C: index += 2
        case 0x22:
          index += 1
          return true
        default: index += 1
        }
      }
      return false
    }
    func skipValue() -> Bool {
      guard index < line.count else { return false }
      switch line[index] {
      case 0x22: return skipString()
      case 0x7B, 0x5B:
        var depth = 0
        while index < line.count {
          switch line[index] {
          case 0x22:
            guard skipString() else { return false }
            continue
          case 0x7B, 0x5B: depth += 1
          case 0x7D, 0x5D: depth -= 1
          default: break
          }
          index += 1
          if depth == 0 { return true }
        }
        return false
      default:
        let delimiters: [UInt8] = [0x2C, 0x7D, 0x5D, 0x20, 0x09, 0x0A, 0x0D]
        while index < line.count, !delimiters.contains(line[index]) { index += 1 }
        return true
      }
    }

    var values: [(key: String, range: Range<Int>)] = []
    skipSpace()
    guard index < line.count, line[index] == 0x7B else { return nil }
    index += 1
    skipSpace()
    if index < line.count, line[index] == 0x7D { return values }
    while true {
      let keyStart = index
      guard index < line.count, line[index] == 0x22, skipString() else { return nil }
      let quoted = line[keyStart..<index]
      let key =
        quoted.contains(0x5C)
        ? (try? JSONDecoder().decode(String.self, from: Data(quoted)))
        : String(decoding: quoted.dropFirst().dropLast(), as: UTF8.self)
      skipSpace()
      guard index < line.count, line[index] == 0x3A else { return nil }
      index += 1
      skipSpace()
      let valueStart = index
      guard skipValue() else { return nil }
      if let key, numericKeys.contains(key) { values.append((key, valueStart..<index)) }
      skipSpace()
      guard index < line.count else { return nil }
      switch line[index] {
      case 0x2C:
        index += 1
        skipSpace()
      case 0x7D: return values
      default: return nil
      }
    }
  }
}
