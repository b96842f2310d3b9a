import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// An ``ActionLogSink`` that appends to a local file and makes it durable with `fsync`.
///
/// The file is created readable and writable by its owner only (mode 0600), like
/// ``ActionLogRecorder``'s.
public final class ActionLogFileSink: ActionLogSink {
  /// The file's descriptor, open for writing at its end; `-1` once closed.
  private let descriptor: Int32

  /// The file written.
  public let path: String

  /// Creates the file at `path`.
  ///
  /// - Parameters:
  ///   - path: Where to write the log.
  ///   - overwrite: Whether to replace a file already at `path`. `false` by default: an
  ///     existing file is left untouched and the sink is not created.
  /// - Throws: ``ActionLogError`` with ``ActionLogError/Reason/fileExists`` if a file exists at
  ///   `path` and `overwrite` is `false`, or ``ActionLogError/Reason/fileError(_:)``.
  public init(path: String, overwrite: Bool = false) throws(ActionLogError) {
    self.path = path
    self.descriptor = try LogFile.create(path: path, overwrite: overwrite)
  }

  /// Opens the existing file at `path` to append after its first `length` bytes, cutting off
  /// anything after them (a torn last line), durably.
  init(appendingTo path: String, at length: Int) throws(ActionLogError) {
    let descriptor = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW)
    guard descriptor >= 0 else {
      throw ActionLogError(path: path, line: nil, reason: .fileError(LogFile.lastError))
    }
    guard ftruncate(descriptor, off_t(length)) == 0, lseek(descriptor, 0, SEEK_END) >= 0,
      fsync(descriptor) == 0
    else {
      let message = LogFile.lastError
      close(descriptor)
      throw ActionLogError(path: path, line: nil, reason: .fileError(message))
    }
    self.path = path
    self.descriptor = descriptor
  }

  deinit {
    close(descriptor)
  }

  /// Appends `lines` to the file (to the kernel's cache: not yet durable).
  ///
  /// - Parameter lines: Whole lines.
  /// - Throws: ``ActionLogError`` with ``ActionLogError/Reason/fileError(_:)``.
  public func write(_ lines: Data) throws(ActionLogError) {
    if let message = LogFile.writeAll(lines, to: descriptor) {
      throw ActionLogError(path: path, line: nil, reason: .fileError(message))
    }
  }

  /// Waits until the file's contents are on disk (`fsync`).
  ///
  /// - Throws: ``ActionLogError`` with ``ActionLogError/Reason/fileError(_:)``.
  public func flush() throws(ActionLogError) {
    while fsync(descriptor) != 0 {
      if errno == EINTR { continue }
      throw ActionLogError(path: path, line: nil, reason: .fileError("fsync: \(LogFile.lastError)"))
    }
  }
}
