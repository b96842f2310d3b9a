/// Appends JSON to a byte buffer: the server's frames, without string interpolation.
///
/// Keys and fixed text are `StaticString`s and values are appended from their UTF-8 storage:
/// appending a `String`'s `utf8` view goes through the generic sequence path, byte by byte.
///
/// The bytes go to a buffer of its own, copied into an array once at the end: a frame is some
/// thirty pieces, and each `Array.append(contentsOf:)` costs its uniqueness and capacity checks
/// and a generic copy, which made a `state` frame cost more than a store action.
struct FrameWriter: ~Copyable {
  private var base: UnsafeMutablePointer<UInt8>
  private var capacity: Int
  private var count = 0

  init() {
    capacity = 256  // Room for every frame but an error or a session with long names.
    base = .allocate(capacity: capacity)
  }

  deinit {
    base.deallocate()
  }

  /// The bytes written, as an array.
  consuming func finish() -> [UInt8] {
    Array(UnsafeBufferPointer(start: base, count: count))
  }

  /// Makes room for `extra` more bytes.
  private mutating func reserve(_ extra: Int) {
    guard count + extra > capacity else { return }
    let grown = max(capacity * 2, count + extra)
    let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
    moved.initialize(from: base, count: count)
    base.deallocate()
    base = moved
    capacity = grown
  }

  /// Appends one byte.
  mutating func append(_ byte: UInt8) {
    reserve(1)
    base[count] = byte
    count += 1
  }

  /// Appends bytes as they are.
  mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
    guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
    reserve(bytes.count)
    (base + count).initialize(from: source, count: bytes.count)
    count += bytes.count
  }

  /// Appends fixed text as it is.
  mutating func raw(_ text: StaticString) {
    append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
  }

  /// Appends text as it is.
  mutating func text(_ text: String) {
    var text = text
    text.withUTF8 { append($0) }
  }

  /// Appends `,"key":`.
  private mutating func key(_ key: StaticString) {
    reserve(key.utf8CodeUnitCount + 4)
    base[count] = 0x2C
    base[count + 1] = 0x22
    count += 2
    raw(key)
    base[count] = 0x22
    base[count + 1] = 0x3A
    count += 2
  }

  /// Appends `,"key":"value"`, the value escaped.
  mutating func field(_ key: StaticString, _ value: String) {
    self.key(key)
    string(value)
  }

  /// Appends `"value"`, escaped.
  mutating func string(_ value: String) {
    var value = value
    let isPlain = value.withUTF8 { utf8 -> Bool in
      guard utf8.allSatisfy({ $0 >= 0x20 && $0 != 0x22 && $0 != 0x5C }) else { return false }
      append(0x22)
      append(utf8)
      append(0x22)
      return true
    }
    if !isPlain { text(ServerFrame.quoted(value)) }
  }

  /// Appends `,"key":"value"` for a value known to need no escape (a word of the protocol).
  mutating func field(_ key: StaticString, word value: StaticString) {
    self.key(key)
    append(0x22)
    raw(value)
    append(0x22)
  }

  /// Appends `,"key":value`.
  mutating func field(_ key: StaticString, _ value: Int) {
    self.key(key)
    // At most 20 characters: a sign and 19 digits.
    reserve(20)
    if value < 0 {
      base[count] = 0x2D
      count += 1
    }
    // The digits are written last first, then reversed in place: no array per number.
    let start = count
    var magnitude = value.magnitude
    repeat {
      base[count] = UInt8(magnitude % 10) + 0x30
      count += 1
      magnitude /= 10
    } while magnitude > 0
    var digits = UnsafeMutableBufferPointer(start: base + start, count: count - start)
    digits.reverse()
  }
}
