import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reads a file whole, and replaces it atomically: the disk side of a ``FileKey``, and how a
/// durable action log writes its snapshot.
///
/// A save writes a temporary file beside the file (same directory, so the rename cannot cross
/// file systems), created with mode 0600, `fsync`s it, renames it over the file and `fsync`s the
/// directory. A crash at any moment leaves the old file or the new one, never a mix or nothing.
/// Through a symbolic link, the file it points to is replaced and the link kept (unless the
/// caller asks to replace the link itself).
///
/// Every save has a temporary file of its own, so that saves of one file from several threads
/// or processes at once never write into each other's: each reader sees one save whole.
enum AtomicFile {
  /// A save step to fail on purpose, for tests of atomicity: the save stops there with an error,
  /// as a crash or a full disk would stop it.
  enum Fault: Sendable, Equatable {
    /// Write half of the temporary file, then fail.
    case writingTemporaryFile
    /// Fail just before renaming the temporary file over the file.
    case renaming
  }

  /// The contents of the file at `path`, or `nil` if there is no file there and its directory
  /// exists (the first save creates it).
  ///
  /// - Throws: `SharedStorageError` (`unreadable`) naming the path and the reason: the file
  ///   exists but cannot be read, is a directory, or its directory does not exist.
  static func contents(of path: String) throws(SharedStorageError) -> Data? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else {
      let code = errno
      guard code == ENOENT else {
        throw .unreadable(path: path, reason: String(cString: strerror(code)))
      }
      let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory),
        isDirectory.boolValue
      else {
        throw .unreadable(
          path: path, reason: "the directory \(directory) does not exist; create it first")
      }
      return nil
    }
    defer { close(descriptor) }
    var status = stat()
    if fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
      throw .unreadable(path: path, reason: "it is a directory, not a file")
    }
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
      let count = read(descriptor, &buffer, buffer.count)
      if count < 0 {
        if errno == EINTR { continue }
        throw .unreadable(path: path, reason: String(cString: strerror(errno)))
      }
      if count == 0 { break }
      data.append(contentsOf: buffer[..<count])
    }
    return data
  }

  /// Replaces the file at `path` with `data`, atomically (see the type's documentation). If any
  /// step fails, the temporary file is removed and the file is left as it was.
  ///
  /// - Parameters:
  ///   - followingLinks: Whether a symbolic link at `path` is kept and its target replaced
  ///     (`true`), or the link itself is replaced by the new file (`false`), so that nothing is
  ///     written where a link points.
  /// - Throws: `SharedStorageError` (`unwritable`) naming the step that failed.
  static func replace(
    _ path: String, with data: Data, followingLinks: Bool = true, fault: Fault? = nil
  ) throws(SharedStorageError) {
    let url =
      followingLinks
      ? URL(fileURLWithPath: path).resolvingSymlinksInPath() : URL(fileURLWithPath: path)
    let target = url.path
    let directory = url.deletingLastPathComponent().path
    // Unique per save: two threads of one process may save two keys of one file name.
    let temporary =
      url.deletingLastPathComponent()
      .appendingPathComponent(
        ".\(url.lastPathComponent).\(getpid()).\(temporaryNumbers.add(1, ordering: .relaxed).oldValue).tmp"
      ).path

    func failure(_ step: String, _ code: Int32 = errno) -> SharedStorageError {
      .unwritable(path: path, reason: "\(step): \(String(cString: strerror(code)))")
    }

    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else {
      throw failure("cannot create the temporary file \(temporary)")
    }
    var isTemporaryInPlace = true
    defer { if isTemporaryInPlace { unlink(temporary) } }
    do {
      defer { close(descriptor) }
      let count = fault == .writingTemporaryFile ? data.count / 2 : data.count
      let writeError = data.prefix(count).withUnsafeBytes { bytes -> Int32? in
        var offset = 0
        while offset < bytes.count {
          let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
          if written < 0 {
            if errno == EINTR { continue }
            return errno
          }
          offset += written
        }
        return nil
      }
      if let writeError {
        throw failure("cannot write the temporary file \(temporary)", writeError)
      }
      if fault == .writingTemporaryFile {
        throw failure("cannot write the temporary file \(temporary)", ENOSPC)
      }
      guard fsync(descriptor) == 0 else {
        throw failure("cannot flush the temporary file \(temporary)")
      }
    }
    if fault == .renaming { throw failure("cannot rename \(temporary)", EIO) }
    guard rename(temporary, target) == 0 else {
      throw failure("cannot rename \(temporary) to \(target)")
    }
    isTemporaryInPlace = false
    // Makes the rename itself durable. A directory that cannot be opened or flushed (some file
    // systems refuse) leaves the new file in place: saved as far as this process can tell.
    let directoryDescriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if directoryDescriptor >= 0 {
      _ = fsync(directoryDescriptor)
      close(directoryDescriptor)
    }
  }

  /// Removes the temporary files that saves of processes no longer running left beside the file
  /// at `path`, and returns their names.
  ///
  /// A process killed while saving (`kill -9`, a power cut) leaves its temporary file,
  /// `.NAME.PID.N.tmp`, beside the file: the file itself is whole (the old save or the new one).
  /// Nothing else would ever remove it, so the first load of the file removes those whose
  /// process is gone. A temporary of a running process (this one, or another saving now) is
  /// kept. The check is by process id on this machine: a process of another machine or another
  /// PID namespace that saves into the same directory at that moment could have its temporary
  /// removed, and would report that save as failed (the file stays whole, and its next change
  /// saves again).
  ///
  /// - Parameter followingLinks: As the saves were made: beside a symbolic link's target
  ///   (`true`), or beside `path` itself (`false`).
  @discardableResult
  static func removeStaleTemporaries(of path: String, followingLinks: Bool = true) -> [String] {
    let url =
      followingLinks
      ? URL(fileURLWithPath: path).resolvingSymlinksInPath() : URL(fileURLWithPath: path)
    let directory = url.deletingLastPathComponent().path
    let prefix = ".\(url.lastPathComponent)."
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
      return []
    }
    var removed: [String] = []
    for name in names where name.hasPrefix(prefix) && name.hasSuffix(".tmp") {
      let parts = name.dropFirst(prefix.count).dropLast(".tmp".count).split(
        separator: ".", omittingEmptySubsequences: false)
      guard parts.count == 2, let pid = pid_t(parts[0]), pid > 0, UInt64(parts[1]) != nil
      else { continue }
      // EPERM: the process exists, under another user.
      guard pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
      if unlink(directory + "/" + name) == 0 { removed.append(name) }
    }
    return removed
  }

  /// Numbers the temporary files of this process, from a random number: a process given the id
  /// of one killed while saving (PID 1 in a container, after a restart) does not meet the
  /// leftover's name, which stays until a process of another id loads the file.
  private static let temporaryNumbers = Atomic<UInt64>(UInt64.random(in: 0..<(1 << 48)))
}
