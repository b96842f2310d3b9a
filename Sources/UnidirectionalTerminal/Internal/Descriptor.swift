#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Raw reads and writes on file descriptors, bypassing C's `FILE` streams.
///
/// Why not stdio: glibc's `fflush(nil)` takes the lock of every `FILE`, standard input's
/// included, and `readLine()` (`getline` on `stdin`) holds that lock for as long as it waits
/// for a line. A thread printing an effect's output would then wait for the user's next line.
/// Writing with `write(2)` and reading with `read(2)` shares no lock with anything: output from
/// any thread reaches the terminal at once, whatever the main thread is blocked in.
enum Descriptor {
  /// Writes all of `text` to `descriptor`, retrying after interruptions and short writes.
  ///
  /// - Returns: 0, or the `errno` of the write that failed (the rest of `text` is dropped:
  ///   output that cannot be written has nowhere else to go).
  @discardableResult
  static func write(_ text: String, to descriptor: Int32) -> Int32 {
    var text = text
    return text.withUTF8 { bytes in
      guard let base = bytes.baseAddress else { return 0 }
      var offset = 0
      while offset < bytes.count {
        #if canImport(Glibc)
          let written = Glibc.write(descriptor, base + offset, bytes.count - offset)
        #elseif canImport(Musl)
          let written = Musl.write(descriptor, base + offset, bytes.count - offset)
        #else
          let written = Darwin.write(descriptor, base + offset, bytes.count - offset)
        #endif
        if written < 0 {
          if errno == EINTR { continue }
          return errno
        }
        offset += written
      }
      return 0
    }
  }

  /// Reads up to `buffer.count` bytes: the number read, 0 at the end of input, or -1 after an
  /// error other than an interruption.
  static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
    while true {
      #if canImport(Glibc)
        let count = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
      #elseif canImport(Musl)
        let count = Musl.read(descriptor, buffer.baseAddress, buffer.count)
      #else
        let count = Darwin.read(descriptor, buffer.baseAddress, buffer.count)
      #endif
      if count < 0, errno == EINTR { continue }
      return count
    }
  }

  /// Whether `descriptor` is a terminal.
  static func isTerminal(_ descriptor: Int32) -> Bool {
    isatty(descriptor) == 1
  }
}
