import Dispatch
import Foundation
import Synchronization
import Unidirectional

#if canImport(Glibc)
  import Glibc
#endif

/// The loop of a ``LineServer``: one thread around `poll(2)`.
///
/// `poll`, not `epoll`: the toolchain's Glibc module does not map `sys/epoll.h`, and this case
/// study uses no C shims. `poll` costs a pass over every descriptor per wake-up; each wake-up
/// handles every ready connection, so under load the pass is shared by many frames. Wake-ups
/// from other threads go through a pipe.
///
/// ## Threads
///
/// Everything marked `nonisolated(unsafe)` here and in ``LineConnection`` belongs to the loop
/// thread: only code that runs on it (the loop, and the handlers it calls) touches it. Other
/// threads reach the loop through `pending`, under its lock, and wake it through the pipe.
///
/// ## A connection's life
///
/// accepted (registered, `open` called) → reading lines (`line` per line) → one of: the peer
/// closes or fails (`end(.peerClosed)`, closed at once); its output passes the cap
/// (`end(.slowReader)`, closed at once); a line passes the frame cap (`end(.frameTooLarge)`,
/// reading stops, the handler closes it); `close()` is called (output flushed, then the write
/// side is shut and the loop waits up to two seconds for the client's end of file, so the client
/// reads the last frames before the socket goes away).
final class EventLoop: Sendable {
  struct Pending {
    var flushes: [LineConnection] = []
    var stop: (timeout: Duration, drain: @Sendable () -> Void)?
  }

  /// The pipe that wakes the loop: read end, write end.
  let wakeFDs: (read: Int32, write: Int32)
  let limits: LineServer.Limits
  let log: @Sendable (String) -> Void
  let handler: LineServer.Handler
  let pending = Locked(Pending())
  let connectionCount = Atomic<Int>(0)
  /// Connection objects alive, registered or not (a session may hold one a moment longer).
  let liveConnections = LiveCount()
  /// The capacity of the connections' input and output buffers, in bytes.
  let bufferBytes = Atomic<Int>(0)
  /// The loop thread, for `isOnLoop`.
  let loopThread = Atomic<UInt>(0)
  let finished = DispatchSemaphore(value: 0)

  // The loop thread's own (see above).
  nonisolated(unsafe) var listenerFD: Int32
  nonisolated(unsafe) var connections: [ObjectIdentifier: LineConnection] = [:]
  /// What `poll` watches: the wake pipe, the listener (if accepting), then `polled`.
  nonisolated(unsafe) var pollFDs: [pollfd] = []
  nonisolated(unsafe) var polled: [LineConnection] = []
  /// `pollFDs` must be rebuilt: a connection came or went, or its write interest changed.
  nonisolated(unsafe) var needsRebuild = true
  nonisolated(unsafe) var localFlushes: [LineConnection] = []
  /// The flushes being made, while new ones go to `localFlushes`.
  nonisolated(unsafe) var flushing: [LineConnection] = []
  /// Connections half-closed by the server, waiting for their client's end of file.
  nonisolated(unsafe) var lingering: [ObjectIdentifier: LineConnection] = [:]
  nonisolated(unsafe) var acceptPausedUntil: UInt64?
  nonisolated(unsafe) var readBuffer = [UInt8](repeating: 0, count: 65536)

  /// How long a closed connection waits for its client's end of file.
  static let lingerNanoseconds: UInt64 = 2_000_000_000

  init(
    listener: Int32, limits: LineServer.Limits, log: @escaping @Sendable (String) -> Void,
    handler: LineServer.Handler
  ) {
    self.listenerFD = listener
    self.limits = limits
    self.log = log
    self.handler = handler
    var fds: [Int32] = [0, 0]
    let status = pipe(&fds)
    precondition(status == 0, "pipe: \(errorText())")
    for fd in fds {
      _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
      _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }
    self.wakeFDs = (fds[0], fds[1])
  }

  deinit {
    Glibc.close(wakeFDs.read)
    Glibc.close(wakeFDs.write)
  }

  func start() {
    let thread = Thread { self.run() }
    thread.name = "tictactoe-server loop"
    thread.start()
  }

  var isOnLoop: Bool { loopThread.load(ordering: .relaxed) == UInt(pthread_self()) }

  func scheduleFlush(_ connection: LineConnection) {
    if isOnLoop {
      localFlushes.append(connection)
    } else {
      // One wake-up per batch: if flushes were pending already, their wake-up is on its way
      // (the loop drains the pipe before it takes the pending work, so none is lost).
      let isFirst = pending.withLock { pending in
        pending.flushes.append(connection)
        return pending.flushes.count == 1
      }
      if isFirst { wake() }
    }
  }

  func stop(timeout: Duration, drain: @escaping @Sendable () -> Void) {
    pending.withLock { $0.stop = (timeout, drain) }
    wake()
    finished.wait()
  }

  private func wake() {
    var one: UInt8 = 1
    _ = Glibc.write(wakeFDs.write, &one, 1)  // A full pipe already wakes the loop.
  }

  private func rebuild() {
    needsRebuild = false
    pollFDs.removeAll(keepingCapacity: true)
    polled.removeAll(keepingCapacity: true)
    pollFDs.append(pollfd(fd: wakeFDs.read, events: Int16(POLLIN), revents: 0))
    let accepting = listenerFD >= 0 && acceptPausedUntil == nil
    pollFDs.append(pollfd(fd: accepting ? listenerFD : -1, events: Int16(POLLIN), revents: 0))
    for connection in connections.values {
      var events = Int16(POLLIN)
      if connection.wantsWrite { events |= Int16(POLLOUT) }
      pollFDs.append(pollfd(fd: connection.id, events: events, revents: 0))
      polled.append(connection)
    }
  }

  // MARK: The loop

  private func run() {
    loopThread.store(UInt(pthread_self()), ordering: .relaxed)
    var stopDeadline: UInt64?
    while true {
      if needsRebuild { rebuild() }
      let timeout: Int32 =
        !localFlushes.isEmpty
        ? 0 : (stopDeadline != nil || acceptPausedUntil != nil || !lingering.isEmpty) ? 50 : -1
      let count = pollFDs.withUnsafeMutableBufferPointer {
        poll($0.baseAddress, nfds_t($0.count), timeout)
      }
      if count < 0 && errno != EINTR {
        log("poll failed: \(errorText())")
        break
      }
      if count > 0 {
        if pollFDs[0].revents != 0 {
          var drained = [UInt8](repeating: 0, count: 256)
          while Glibc.read(wakeFDs.read, &drained, drained.count) > 0 {}
        }
        if pollFDs[1].revents != 0 { acceptAll() }
        for index in polled.indices {
          let revents = pollFDs[index + 2].revents
          guard revents != 0 else { continue }
          let connection = polled[index]
          if revents & Int16(POLLIN | POLLHUP | POLLERR) != 0, !connection.hasEnded {
            read(connection)
          }
          if revents & Int16(POLLOUT) != 0, !connection.hasEnded { flush(connection) }
        }
      }

      let (flushes, stop) = pending.withLock { pending in
        defer {
          pending.flushes = []
          pending.stop = nil
        }
        return (pending.flushes, pending.stop)
      }
      if let stop {
        // Stop accepting, and handle every frame that reached the server before the stop: what
        // the kernel holds for each connection is read now, so no move already sent is lost.
        for connection in Array(connections.values) where !connection.hasEnded {
          read(connection)
        }
        if listenerFD >= 0 {
          Glibc.close(listenerFD)
          listenerFD = -1
          needsRebuild = true
        }
        stop.drain()
        let (seconds, attoseconds) = stop.timeout.components
        stopDeadline =
          now() + UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
      }
      flushAll(flushes)
      let time = now()
      if let paused = acceptPausedUntil, time >= paused {
        acceptPausedUntil = nil
        needsRebuild = true
      }
      for connection in Array(lingering.values) {
        if let deadline = connection.lingerDeadline, time >= deadline {
          end(connection, .peerClosed)
        }
      }
      // Stopping: done once every connection's output is written and its write side shut (the
      // kernel delivers what it holds after close), or at the deadline.
      if let stopDeadline,
        time >= stopDeadline || connections.values.allSatisfy({ $0.lingerDeadline != nil })
      {
        for connection in Array(connections.values) { end(connection, .peerClosed) }
        break
      }
    }
    finished.signal()
  }

  private func flushAll(_ flushes: [LineConnection]) {
    for connection in flushes where !connection.hasEnded { flush(connection) }
    // A flush can schedule more (a connection that ends closes a session, whose opponent is
    // told): swap buffers until none is left, without a new array per round.
    while !localFlushes.isEmpty {
      swap(&localFlushes, &flushing)
      for connection in flushing where !connection.hasEnded { flush(connection) }
      flushing.removeAll(keepingCapacity: true)
    }
  }

  private func acceptAll() {
    while listenerFD >= 0 {
      let fd = accept(listenerFD, nil, nil)
      if fd < 0 {
        switch errno {
        case EAGAIN, EWOULDBLOCK: return
        case EINTR, ECONNABORTED: continue
        case EMFILE, ENFILE:
          // Out of descriptors: stop accepting for 100 ms rather than spin on the listener.
          log("accept: \(errorText()); pausing accepts for 100 ms")
          acceptPausedUntil = now() + 100_000_000
          needsRebuild = true
          return
        default:
          log("accept: \(errorText())")
          return
        }
      }
      guard connections.count < limits.maximumConnections else {
        log("connection refused: \(limits.maximumConnections) connections open")
        Glibc.close(fd)
        continue
      }
      _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
      _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
      var one: Int32 = 1
      setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
      let connection = LineConnection(fd: fd, loop: self)
      connections[ObjectIdentifier(connection)] = connection
      needsRebuild = true
      connectionCount.add(1, ordering: .relaxed)
      handler.open(connection)
    }
  }

  /// Nanoseconds on the monotonic clock (loop thread; internal for `EventLoop+Connections`).
  func now() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
  }
}
