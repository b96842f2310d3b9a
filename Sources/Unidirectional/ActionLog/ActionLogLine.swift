import Foundation

/// How an entry's JSON becomes a line of a log, and back, in each version of the layout (see
/// ``ActionLogHeader``).
///
/// Version 1: the JSON, then a newline. Version 2: the CRC-32C of the JSON as 8 lowercase
/// hexadecimal digits, one space, the JSON, then a newline. The checksum covers exactly the
/// JSON's bytes: not the prefix, not the newline. A fixed-width prefix, rather than a field
/// inside the JSON, makes those bytes unambiguous (no re-encoding, no key to remove) and lets a
/// reader verify a line before parsing it.
enum ActionLogLine {
  /// The bytes before the JSON in a version 2 line: 8 hexadecimal digits and a space.
  static let prefixLength = 9

  /// The line for an entry whose JSON is `json`, newline included.
  static func encode(_ json: Data, format: Int) -> Data {
    guard format >= ActionLogHeader.durableFormat else {
      var line = json
      line.append(0x0A)
      return line
    }
    let checksum = CRC32C.checksum(json)
    var line = Data(capacity: prefixLength + json.count + 1)
    for shift in stride(from: 28, through: 0, by: -4) {
      line.append(hexDigits[Int((checksum >> UInt32(shift)) & 0xF)])
    }
    line.append(0x20)
    line.append(json)
    line.append(0x0A)
    return line
  }

  /// The JSON of `line` (without its newline), or why it does not verify.
  static func payload(of line: some Collection<UInt8>, format: Int) -> Payload {
    let bytes = Array(line)
    guard format >= ActionLogHeader.durableFormat else { return .json(Data(bytes)) }
    guard bytes.count > prefixLength, bytes[prefixLength - 1] == 0x20 else {
      return .bad("no checksum prefix (8 hexadecimal digits and a space)")
    }
    var recorded: UInt32 = 0
    for byte in bytes[..<(prefixLength - 1)] {
      guard let digit = hexDigits.firstIndex(of: byte) else {
        return .bad("no checksum prefix (8 hexadecimal digits and a space)")
      }
      recorded = recorded << 4 | UInt32(digit)
    }
    let json = bytes[prefixLength...]
    let computed = CRC32C.checksum(json)
    guard computed == recorded else {
      return .bad(
        "checksum mismatch: the line says \(hex(recorded)), its bytes give \(hex(computed))")
    }
    return .json(Data(json))
  }

  /// A line read: its verified JSON, or what is wrong with it.
  enum Payload {
    case json(Data)
    case bad(String)

    var isValid: Bool {
      if case .json = self { true } else { false }
    }

    /// What is wrong with the line, or `nil` if it verifies.
    var problem: String? {
      if case .bad(let problem) = self { problem } else { nil }
    }
  }

  private static let hexDigits = Array("0123456789abcdef".utf8)

  private static func hex(_ value: UInt32) -> String {
    let text = String(value, radix: 16)
    return String(repeating: "0", count: 8 - text.count) + text
  }
}
