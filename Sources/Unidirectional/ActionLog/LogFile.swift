import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The file operations of action logs: creating a log file safely, writing whole buffers.
enum LogFile {
  /// Opens a new log file at `path` for writing, with mode 0600, and returns its descriptor.
  ///
  /// Without `overwrite`, an existing file (or symbolic link) at `path` is an error and is left
  /// untouched (`O_EXCL`). With it, an existing file is emptied and its mode set to 0600; a
  /// symbolic link is still refused, so a log never lands where a link points.
  static func create(path: String, overwrite: Bool) throws(ActionLogError) -> Int32 {
    let flags =
      O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | (overwrite ? O_TRUNC : O_EXCL)
    let descriptor = open(path, flags, 0o600)
    guard descriptor >= 0 else {
      let code = errno
      let reason: ActionLogError.Reason =
        switch code {
        case EEXIST: .fileExists
        case ELOOP: .fileError("is a symbolic link; a log is not written through a link")
        default: .fileError(String(cString: strerror(code)))
        }
      throw ActionLogError(path: path, line: nil, reason: reason)
    }
    // The umask may have removed bits from 0600 for a new file, and an overwritten file keeps
    // its old mode: set exactly 0600 either way.
    guard fchmod(descriptor, 0o600) == 0 else {
      let message = String(cString: strerror(errno))
      close(descriptor)
      throw ActionLogError(
        path: path, line: nil, reason: .fileError("cannot set mode 0600: \(message)"))
    }
    return descriptor
  }

  /// The text of the current `errno`.
  static var lastError: String { String(cString: strerror(errno)) }

  /// Replaces the file at `path` with `data` atomically and durably: a reader, or a recovery
  /// after a crash, finds the old file or the new one, whole, even while another log writes the
  /// same file (a log closed and opened again on one path, whose old committer is still writing).
  ///
  /// A symbolic link at `path` is replaced by the file, never written through. See
  /// `AtomicFile.replace(_:with:followingLinks:fault:)` for the steps; recovery removes the
  /// temporary files a killed process left (`AtomicFile.removeStaleTemporaries(of:)`).
  static func replaceAtomically(_ path: String, with data: Data) throws(ActionLogError) {
    do throws(SharedStorageError) {
      try AtomicFile.replace(path, with: data, followingLinks: false)
    } catch {
      let reason =
        switch error {
        case .unwritable(_, let reason): reason
        default: error.description
        }
      throw ActionLogError(path: path, line: nil, reason: .fileError(reason))
    }
  }

  /// Removes `<path>.tmp` if it is a regular file: the temporary of every snapshot before they
  /// had one each, left by a process killed while it wrote one.
  static func removeLegacyTemporary(of path: String) {
    var status = stat()
    let legacy = path + ".tmp"
    if lstat(legacy, &status) == 0, status.st_mode & S_IFMT == S_IFREG { unlink(legacy) }
  }

  /// `fsync`s the directory holding `path`, so that a file created or renamed there survives a
  /// crash.
  static func syncDirectory(of path: String) throws(ActionLogError) {
    let fail = { (message: String) in
      ActionLogError(path: path, line: nil, reason: .fileError(message))
    }
    let slash = path.lastIndex(of: "/")
    let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
    let directoryDescriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard directoryDescriptor >= 0 else { throw fail("open \(directory): \(lastError)") }
    defer { close(directoryDescriptor) }
    guard fsync(directoryDescriptor) == 0 else { throw fail("fsync \(directory): \(lastError)") }
  }

  /// Copies `bytes` into a new file beside `path`, `<path>.quarantine-N` (mode 0600, N the
  /// first number from 1 not taken), durably (the file and its directory `fsync`ed), and
  /// returns its path. Recovery calls it before it cuts those bytes off the log: they move,
  /// they are never destroyed.
  static func quarantine(_ bytes: Data, beside path: String) throws(ActionLogError) -> String {
    var number = 1
    while true {
      let candidate = "\(path).quarantine-\(number)"
      let descriptor: Int32
      do {
        descriptor = try create(path: candidate, overwrite: false)
      } catch  where error.reason == .fileExists {
        number += 1
        continue
      }
      let message: String? =
        writeAll(bytes, to: descriptor) ?? (fsync(descriptor) == 0 ? nil : "fsync: \(lastError)")
      close(descriptor)
      if let message {
        throw ActionLogError(path: candidate, line: nil, reason: .fileError(message))
      }
      try syncDirectory(of: candidate)
      return candidate
    }
  }

  /// Writes all of `data`, retrying partial writes; returns an error message on failure.
  static func writeAll(_ data: Data, to descriptor: Int32) -> String? {
    data.withUnsafeBytes { buffer -> String? in
      var offset = 0
      while offset < buffer.count {
        let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
        if written < 0 {
          if errno == EINTR { continue }
          return String(cString: strerror(errno))
        }
        offset += written
      }
      return nil
    }
  }
}
