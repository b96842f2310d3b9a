import Foundation
import Synchronization
import Unidirectional

#if canImport(Glibc)
  import Glibc
#endif

// What the loop does for one ready connection: read its lines, flush its output, and end it.
// Everything here runs on the loop thread only (see "Threads" in `EventLoop`'s documentation):
// these methods are internal so that `EventLoop.run` can call them, never to be called elsewhere.

extension EventLoop {
  /// Reads until a read comes back short (the socket is drained) or a budget is spent (`poll`
  /// reports what is left), handing each complete line to the handler.
  func read(_ connection: LineConnection) {
    var budget = 256 * 1024
    while !connection.hasEnded {
      let count = readBuffer.withUnsafeMutableBytes {
        Glibc.read(connection.id, $0.baseAddress, $0.count)
      }
      if count == 0 {
        end(connection, .peerClosed)
        return
      }
      if count < 0 {
        switch errno {
        case EAGAIN, EWOULDBLOCK: return
        case EINTR: continue
        default:
          end(connection, .peerClosed)
          return
        }
      }
      if connection.isReadingStopped { continue }  // Closing: discard what still arrives.
      if connection.input.isEmpty {
        // The usual case: the lines are split straight from the read buffer, and only a last
        // partial line, if any, is copied to the connection's input.
        let consumed = readBuffer.withUnsafeBufferPointer {
          splitLines(connection, UnsafeBufferPointer(rebasing: $0[0..<count]))
        }
        keep(readBuffer[consumed..<count], of: connection)
      } else {
        connection.input.append(contentsOf: readBuffer[0..<count])
        let input = connection.input
        let consumed = input.withUnsafeBufferPointer { splitLines(connection, $0) }
        keep(input[consumed...], of: connection)
      }
      budget -= count
      // A read that did not fill the buffer took all the socket held: `poll` reports the next
      // bytes, so a second `read` that would only say EAGAIN is saved.
      if budget <= 0 || count < readBuffer.count { return }
    }
  }

  /// Hands each complete line in `bytes` to the handler; returns how many bytes it consumed
  /// (all of them once reading stopped).
  private func splitLines(_ connection: LineConnection, _ bytes: UnsafeBufferPointer<UInt8>)
    -> Int
  {
    guard let base = bytes.baseAddress else { return 0 }
    var start = 0
    while start < bytes.count, !connection.isReadingStopped, !connection.hasEnded {
      guard let newline = memchr(base + start, 0x0A, bytes.count - start) else { break }
      let end = base.distance(to: newline.assumingMemoryBound(to: UInt8.self))
      var lineEnd = end
      if lineEnd > start, base[lineEnd - 1] == 0x0D { lineEnd -= 1 }  // Accept CRLF.
      if lineEnd - start > limits.maximumFrameBytes {
        tooLarge(connection)
        return bytes.count
      }
      if lineEnd > start {
        handler.line(connection, UnsafeBufferPointer(start: base + start, count: lineEnd - start))
      }
      start = end + 1
    }
    return connection.isReadingStopped || connection.hasEnded ? bytes.count : start
  }

  /// Keeps what follows the last complete line (a partial line) as the connection's input.
  private func keep(_ rest: ArraySlice<UInt8>, of connection: LineConnection) {
    if connection.isReadingStopped || connection.hasEnded {
      connection.input = []
      return
    }
    connection.input = rest.isEmpty ? [] : Array(rest)
    if connection.input.count > limits.maximumFrameBytes { tooLarge(connection) }
  }

  private func tooLarge(_ connection: LineConnection) {
    connection.isReadingStopped = true
    connection.input = []
    handler.end(connection, .frameTooLarge)
  }

  func flush(_ connection: LineConnection) {
    enum Next { case wait, blocked, overflow, failed, closeWrite }
    let next = connection.output.withLock { output -> Next in
      output.isScheduled = false
      if output.overflowed { return .overflow }
      while output.written < output.bytes.count {
        let count = output.bytes.withUnsafeBytes {
          Glibc.send(
            connection.id, $0.baseAddress! + output.written, output.bytes.count - output.written,
            Int32(MSG_NOSIGNAL))
        }
        if count < 0 {
          if errno == EINTR { continue }
          if errno == EAGAIN || errno == EWOULDBLOCK { return .blocked }
          return .failed
        }
        output.written += count
      }
      connection.withOutputCounted(&output) {
        $0.bytes.removeAll(keepingCapacity: $0.bytes.capacity <= 16384)
      }
      output.written = 0
      return output.closeRequested ? .closeWrite : .wait
    }
    let wantsWrite = next == .blocked
    if connection.wantsWrite != wantsWrite, !connection.hasEnded {
      connection.wantsWrite = wantsWrite
      needsRebuild = true
    }
    switch next {
    case .wait, .blocked: break
    case .overflow:
      log("connection \(connection.id): output over \(limits.maximumOutputBytes) bytes, closed")
      end(connection, .slowReader)
    case .failed: end(connection, .peerClosed)
    case .closeWrite:
      guard connection.lingerDeadline == nil else { return }
      shutdown(connection.id, Int32(SHUT_WR))
      connection.isReadingStopped = true
      connection.input = []
      connection.lingerDeadline = now() + Self.lingerNanoseconds
      lingering[ObjectIdentifier(connection)] = connection
    }
  }

  /// Closes a connection now and tells the handler (once).
  func end(_ connection: LineConnection, _ cause: LineConnection.Cause) {
    guard !connection.hasEnded else { return }
    connection.hasEnded = true
    connection.output.withLock { output in
      output.isClosed = true
      connection.withOutputCounted(&output) { $0.bytes = [] }
    }
    lingering[ObjectIdentifier(connection)] = nil
    connections[ObjectIdentifier(connection)] = nil
    needsRebuild = true
    Glibc.close(connection.id)
    connectionCount.subtract(1, ordering: .relaxed)
    handler.end(connection, cause)
  }
}
