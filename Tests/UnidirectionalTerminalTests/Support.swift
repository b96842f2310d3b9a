import Foundation
import Testing

#if canImport(Glibc)
  import Glibc

  /// A pipe whose ends are closed when it is released.
  final class TestPipe {
    let reading: Int32
    let writing: Int32
    private var writingIsOpen = true

    init() {
      var descriptors: [Int32] = [0, 0]
      precondition(pipe(&descriptors) == 0, "pipe() failed")
      (reading, writing) = (descriptors[0], descriptors[1])
    }

    deinit {
      close(reading)
      closeWriting()
    }

    func write(_ text: String) {
      let bytes = Array(text.utf8)
      write(bytes)
    }

    func write(_ bytes: [UInt8]) {
      var offset = 0
      while offset < bytes.count {
        let count = bytes[offset...].withUnsafeBytes {
          Glibc.write(writing, $0.baseAddress, $0.count)
        }
        precondition(count > 0, "write failed")
        offset += count
      }
    }

    func closeWriting() {
      if writingIsOpen { close(writing) }
      writingIsOpen = false
    }

    /// Everything written until the writing end is closed.
    func readToEnd() -> String {
      closeWriting()
      var data = [UInt8]()
      var buffer = [UInt8](repeating: 0, count: 4096)
      while true {
        let count = Glibc.read(reading, &buffer, buffer.count)
        guard count > 0 else { break }
        data += buffer[..<count]
      }
      return String(decoding: data, as: UTF8.self)
    }

    /// What is available now, waiting up to `seconds` for the first bytes.
    func readAvailable(seconds: Int32) -> String {
      var descriptor = pollfd(fd: reading, events: Int16(POLLIN), revents: 0)
      guard poll(&descriptor, 1, seconds * 1000) > 0 else { return "" }
      var buffer = [UInt8](repeating: 0, count: 4096)
      let count = Glibc.read(reading, &buffer, buffer.count)
      return String(decoding: buffer[..<max(0, count)], as: UTF8.self)
    }
  }

  /// A pseudo-terminal: `secondary` is a terminal for `isatty`.
  final class TestPseudoTerminal {
    let primary: Int32
    let secondary: Int32

    init() throws {
      var primary: Int32 = 0
      var secondary: Int32 = 0
      guard openpty(&primary, &secondary, nil, nil, nil) == 0 else {
        throw POSIXError(.init(rawValue: errno) ?? .EIO)
      }
      (self.primary, self.secondary) = (primary, secondary)
    }

    deinit {
      close(primary)
      close(secondary)
    }

    /// What the terminal shows now, waiting up to `seconds` for the first bytes.
    func readAvailable(seconds: Int32) -> String {
      var descriptor = pollfd(fd: primary, events: Int16(POLLIN), revents: 0)
      guard poll(&descriptor, 1, seconds * 1000) > 0 else { return "" }
      var buffer = [UInt8](repeating: 0, count: 4096)
      let count = Glibc.read(primary, &buffer, buffer.count)
      return String(decoding: buffer[..<max(0, count)], as: UTF8.self)
    }
  }
#endif
