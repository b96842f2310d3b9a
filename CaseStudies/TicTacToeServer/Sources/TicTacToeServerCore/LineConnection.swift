import Synchronization
import Unidirectional

#if canImport(Glibc)
  import Glibc
#endif

/// One client connection of a ``LineServer``: send it lines from any thread, or close it.
///
/// Output is buffered per connection and written by the server's loop thread. The buffer is
/// capped (``LineServer/Limits/maximumOutputBytes``): a client that does not read its frames
/// while they pile up past the cap is disconnected as a slow reader, so memory stays bounded.
public final class LineConnection: Sendable {
  /// Why a connection ended.
  public enum Cause: Sendable, Equatable {
    /// The client closed its end, or the connection failed.
    case peerClosed
    /// The client sent a line longer than the frame cap. The connection is still open, so the
    /// handler can say why before it calls ``close()``.
    case frameTooLarge
    /// The output buffer passed its cap: the client does not read. Already closed.
    case slowReader
  }

  /// The state shared with other threads.
  struct Output {
    var bytes: [UInt8] = []
    /// How much of `bytes` is written already.
    var written = 0
    /// Queued on the loop for a flush.
    var isScheduled = false
    /// ``close()`` was called: close once `bytes` is written.
    var closeRequested = false
    /// No more output is accepted.
    var isClosed = false
    /// `bytes` passed the cap.
    var overflowed = false
  }

  /// A number for logs (the file descriptor, reused after close).
  public let id: Int32
  /// A value the handler keeps with the connection (the game server's session id).
  public let context = Atomic<Int>(0)
  let loop: EventLoop
  let output = Locked(Output())

  /// Counts this connection among its loop's live connection objects while it lives.
  let counted: Counted

  // Used only by the loop thread (see `EventLoop`), hence `nonisolated(unsafe)`.
  /// A partial line. Its capacity is counted in the loop's buffer bytes (a `didSet` that does
  /// not read `oldValue` still lets `append` work in place).
  nonisolated(unsafe) var input: [UInt8] = [] {
    didSet {
      let capacity = input.capacity
      if capacity != inputCapacity {
        loop.bufferBytes.add(capacity - inputCapacity, ordering: .relaxed)
        inputCapacity = capacity
      }
    }
  }
  /// The capacity of `input` the loop's buffer bytes count.
  nonisolated(unsafe) var inputCapacity = 0
  /// Reading stopped: the frame cap was passed, or the output side is closing.
  nonisolated(unsafe) var isReadingStopped = false
  /// Half-closed after a flush; waiting for the client's end of file, until this deadline.
  nonisolated(unsafe) var lingerDeadline: UInt64?
  nonisolated(unsafe) var hasEnded = false
  /// Output is waiting for the socket to accept more: `poll` watches for `POLLOUT`.
  nonisolated(unsafe) var wantsWrite = false

  init(fd: Int32, loop: EventLoop) {
    self.id = fd
    self.loop = loop
    self.counted = Counted(loop.liveConnections)
  }

  deinit {
    // What this connection's buffers still held leaves the loop's count with it.
    let held = inputCapacity + output.withLock { $0.bytes.capacity }
    if held != 0 { loop.bufferBytes.subtract(held, ordering: .relaxed) }
  }

  /// Runs `body` on the output buffer, counting the change of its capacity in the loop's
  /// buffer bytes.
  func withOutputCounted<R>(_ output: inout Output, _ body: (inout Output) -> R) -> R {
    let before = output.bytes.capacity
    let result = body(&output)
    let after = output.bytes.capacity
    if after != before { loop.bufferBytes.add(after - before, ordering: .relaxed) }
    return result
  }

  /// Queues `line` (newline included) for the client; does nothing once the connection is
  /// closing.
  ///
  /// - Parameter line: The bytes to send.
  public func send(_ line: String) {
    enqueue { $0.append(contentsOf: line.utf8) }
  }

  private func enqueue(_ append: (inout [UInt8]) -> Void) {
    let maximum = loop.limits.maximumOutputBytes
    let schedule = output.withLock { output -> Bool in
      guard !output.isClosed, !output.overflowed else { return false }
      withOutputCounted(&output) { output in
        append(&output.bytes)
        if output.bytes.count - output.written > maximum {
          // A slow reader: drop what it did not read; the loop closes it.
          output.overflowed = true
          output.bytes = []
          output.written = 0
        }
      }
      guard !output.isScheduled else { return false }
      output.isScheduled = true
      return true
    }
    if schedule { loop.scheduleFlush(self) }
  }

  /// Queues bytes for the client (newline included); does nothing once the connection is
  /// closing.
  ///
  /// - Parameter bytes: The bytes to send.
  public func send(bytes: some Collection<UInt8>) {
    enqueue { $0.append(contentsOf: bytes) }
  }

  /// Closes the connection once the lines queued before are written.
  public func close() {
    let schedule = output.withLock { output -> Bool in
      guard !output.isClosed else { return false }
      output.closeRequested = true
      output.isClosed = true
      guard !output.isScheduled else { return false }
      output.isScheduled = true
      return true
    }
    if schedule { loop.scheduleFlush(self) }
  }
}
