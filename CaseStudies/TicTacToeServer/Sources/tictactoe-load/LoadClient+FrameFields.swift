// Reading the fields a load client needs from the frames the server writes, without a JSON
// decoder.

extension LoadClient {
  /// The string value of `"name":"…"` in a frame the server wrote (no escapes in these fields).
  static func string(_ name: String, in line: ArraySlice<UInt8>) -> String? {
    guard let start = valueStart(name, in: line), start < line.endIndex, line[start] == 0x22
    else { return nil }
    guard let end = line[(start + 1)...].firstIndex(of: 0x22) else { return nil }
    return String(decoding: line[(start + 1)..<end], as: UTF8.self)
  }

  /// The integer value of `"name":123` in a frame.
  static func number(_ name: String, in line: ArraySlice<UInt8>) -> Int? {
    guard var index = valueStart(name, in: line) else { return nil }
    var value = 0
    var negative = false
    if index < line.endIndex, line[index] == 0x2D {
      negative = true
      index += 1
    }
    let first = index
    while index < line.endIndex, (0x30...0x39).contains(line[index]) {
      // A number too big for an `Int` is not one the tool can use: no field, rather than a trap.
      let (times10, overflowed) = value.multipliedReportingOverflow(by: 10)
      let (sum, overflowedAgain) = times10.addingReportingOverflow(Int(line[index] - 0x30))
      guard !overflowed, !overflowedAgain else { return nil }
      value = sum
      index += 1
    }
    return index > first ? (negative ? -value : value) : nil
  }

  private static func valueStart(_ name: String, in line: ArraySlice<UInt8>) -> Int? {
    let key = Array("\"\(name)\":".utf8)
    var index = line.startIndex
    while index + key.count <= line.endIndex {
      if line[index] == key[0], line[index..<(index + key.count)].elementsEqual(key) {
        return index + key.count
      }
      index += 1
    }
    return nil
  }
}
