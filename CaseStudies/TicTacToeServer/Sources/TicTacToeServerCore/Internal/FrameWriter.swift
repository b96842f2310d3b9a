/// Appends JSON to a byte buffer: the server's frames, without string interpolation.
struct FrameWriter {
  var bytes: [UInt8] = []

  init() {
    bytes.reserveCapacity(192)
  }

  /// Appends text as it is.
  mutating func raw(_ text: String) {
    bytes.append(contentsOf: text.utf8)
  }

  /// Appends `,"key":"value"`, the value escaped.
  mutating func field(_ key: String, _ value: String) {
    raw(",\"")
    raw(key)
    raw("\":")
    if value.utf8.allSatisfy({ $0 >= 0x20 && $0 != 0x22 && $0 != 0x5C }) {
      bytes.append(0x22)
      raw(value)
      bytes.append(0x22)
    } else {
      raw(ServerFrame.quoted(value))
    }
  }

  /// Appends `,"key":value`.
  mutating func field(_ key: String, _ value: Int) {
    raw(",\"")
    raw(key)
    raw("\":")
    if value < 0 { bytes.append(0x2D) }
    // The digits are appended last first, then reversed in place: no array per number.
    let start = bytes.count
    var magnitude = value.magnitude
    repeat {
      bytes.append(UInt8(magnitude % 10) + 0x30)
      magnitude /= 10
    } while magnitude > 0
    bytes[start...].reverse()
  }
}
