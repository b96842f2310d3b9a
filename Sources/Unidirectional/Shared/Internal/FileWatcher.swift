import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Hears of changes to one file through `inotify` on its directory: the file renamed into place
/// (an atomic save, by this process or another), or closed after writing in place.
///
/// The directory is watched rather than the file: an atomic save replaces the file's inode, and
/// a watch on the old inode would hear nothing more. One thread per watch waits in `poll` on
/// the `inotify` descriptor and on a pipe whose writing end stopping the watch closes.
enum FileWatcher {
  /// Calls `onChange` on the watch's thread after each change to the file at `path` (through a
  /// symbolic link, to the file it points to), until the token is cancelled or released.
  ///
  /// - Returns: The token, or `nil` if `inotify` is unavailable or the directory cannot be
  ///   watched (the value then does not follow changes from other processes).
  static func watch(_ path: String, onChange: @escaping @Sendable () -> Void) -> ObservationToken? {
    #if canImport(Glibc) || canImport(Musl)
      let url = URL(fileURLWithPath: path).resolvingSymlinksInPath()
      let directory = url.deletingLastPathComponent().path
      let name = Array(url.lastPathComponent.utf8)
      let notifications = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
      guard notifications >= 0 else { return nil }
      let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO)
      guard inotify_add_watch(notifications, directory, mask) >= 0 else {
        close(notifications)
        return nil
      }
      var stopPipe: [Int32] = [0, 0]
      guard pipe(&stopPipe) == 0 else {
        close(notifications)
        return nil
      }
      let (stop, signal) = (stopPipe[0], stopPipe[1])
      _ = fcntl(stop, F_SETFD, FD_CLOEXEC)
      _ = fcntl(signal, F_SETFD, FD_CLOEXEC)
      let thread = Thread {
        run(notifications: notifications, stop: stop, name: name, onChange: onChange)
      }
      thread.name = "Unidirectional.FileWatcher"
      thread.start()
      return ObservationToken {
        // The thread closes the other descriptors once it sees this end closed.
        close(signal)
      }
    #else
      return nil
    #endif
  }

  #if canImport(Glibc) || canImport(Musl)
    /// The watch's thread: reads events until `stop` (a pipe's reading end) is closed at the
    /// other end, then closes both descriptors.
    private static func run(
      notifications: Int32, stop: Int32, name: [UInt8], onChange: @Sendable () -> Void
    ) {
      defer {
        close(notifications)
        close(stop)
      }
      var descriptors = [
        pollfd(fd: notifications, events: Int16(POLLIN), revents: 0),
        pollfd(fd: stop, events: Int16(POLLIN), revents: 0),
      ]
      var buffer = [UInt8](repeating: 0, count: 16 * 1024)
      // The fixed part of `struct inotify_event`: wd, mask, cookie, len (the name follows).
      let header = MemoryLayout<inotify_event>.size
      while true {
        descriptors[0].revents = 0
        descriptors[1].revents = 0
        guard poll(&descriptors, 2, -1) >= 0 || errno == EINTR else { return }
        if descriptors[1].revents != 0 { return }
        guard descriptors[0].revents != 0 else { continue }
        let count = read(notifications, &buffer, buffer.count)
        guard count > 0 else { continue }
        var offset = 0
        var matched = false
        while offset + header <= count {
          let length = buffer.withUnsafeBytes {
            Int($0.load(fromByteOffset: offset + 12, as: UInt32.self))
          }
          // The name is padded with NULs to `length`.
          let nameBytes = buffer[(offset + header)..<min(offset + header + length, count)]
          if nameBytes.prefix(while: { $0 != 0 }).elementsEqual(name) { matched = true }
          offset += header + length
        }
        // One read may hold several events for the file: it is read once.
        if matched { onChange() }
      }
    }
  #endif
}
