/// Splits the bytes read from a descriptor into lines, keeping what follows the last newline
/// for the next call.
///
/// It reads with `read(2)` into its own buffer instead of through `stdin`'s `FILE`, so no lock
/// is held while it waits (see ``Descriptor``).
struct LineReader {
  /// Bytes read but not yet returned start at `start`.
  private var buffer: [UInt8] = []
  private var start = 0
  /// Bytes from `start` up to here hold no newline.
  private var scanned = 0
  /// Whether the descriptor reached its end (or failed).
  private var isAtEnd = false
  /// Whether the line returned last had no line ending: input ended after it (at a terminal,
  /// Ctrl-D pressed after typing it), so the screen's cursor is still on that line.
  private(set) var lastLineWasUnterminated = false

  /// The next line without its line ending (`\n` or `\r\n`), the last unterminated one at the
  /// end of input, or `nil` once input has ended. Bytes that are not UTF-8 become U+FFFD.
  mutating func nextLine(from descriptor: Int32) -> String? {
    while true {
      if let newline = buffer[scanned...].firstIndex(of: UInt8(ascii: "\n")) {
        lastLineWasUnterminated = false
        return take(upTo: newline, skipping: 1)
      }
      scanned = buffer.count
      if isAtEnd {
        lastLineWasUnterminated = start < buffer.count
        return start < buffer.count ? take(upTo: buffer.count, skipping: 0) : nil
      }
      fill(from: descriptor)
    }
  }

  private mutating func take(upTo end: Int, skipping separator: Int) -> String {
    var line = buffer[start..<end]
    if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
    let text = String(decoding: line, as: UTF8.self)
    start = end + separator
    scanned = start
    return text
  }

  private mutating func fill(from descriptor: Int32) {
    // Drop the lines already returned before growing the buffer.
    if start > 0 {
      buffer.removeFirst(start)
      scanned -= start
      start = 0
    }
    var chunk = [UInt8](repeating: 0, count: 4096)
    let count = chunk.withUnsafeMutableBytes { Descriptor.read(descriptor, into: $0) }
    if count > 0 {
      buffer.append(contentsOf: chunk[..<count])
    } else {
      isAtEnd = true
    }
  }
}
