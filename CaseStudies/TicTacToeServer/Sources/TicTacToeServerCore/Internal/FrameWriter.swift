/// Appends JSON to a byte buffer: the server's frames, without string interpolation.
///
/// Keys and fixed text are `StaticString`s and values are appended from their UTF-8 storage:
/// appending a `String`'s `utf8` view goes through the generic sequence path, byte by byte.
struct FrameWriter {
  var bytes: [UInt8] = []

  init() {
    bytes.reserveCapacity(192)
  }

  /// Appends fixed text as it is.
  mutating func raw(_ text: StaticString) {
    text.withUTF8Buffer { bytes.append(contentsOf: $0) }
  }

  /// Appends text as it is.
  mutating func text(_ text: String) {
    var text = text
    text.withUTF8 { bytes.append(contentsOf: $0) }
  }

  /// Appends `,"key":`.
  private mutating func key(_ key: StaticString) {
    bytes.append(0x2C)
    bytes.append(0x22)
    raw(key)
    bytes.append(0x22)
    bytes.append(0x3A)
  }

  /// Appends `,"key":"value"`, the value escaped.
  mutating func field(_ key: StaticString, _ value: String) {
    self.key(key)
    var value = value
    let isPlain = value.withUTF8 { utf8 -> Bool in
      guard utf8.allSatisfy({ $0 >= 0x20 && $0 != 0x22 && $0 != 0x5C }) else { return false }
      bytes.append(0x22)
      bytes.append(contentsOf: utf8)
      bytes.append(0x22)
      return true
    }
    if !isPlain { text(ServerFrame.quoted(value)) }
  }

  /// Appends `,"key":value`.
  mutating func field(_ key: StaticString, _ value: Int) {
    self.key(key)
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
