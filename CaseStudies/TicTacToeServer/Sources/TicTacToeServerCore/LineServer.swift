#if canImport(Glibc)
  import Glibc
#endif

/// A TCP server of newline-delimited frames on loopback, on one `poll` thread, with nothing but
/// Glibc.
///
/// ```swift
/// let server = try LineServer(port: 0, handler: handler)
/// print("listening on \(server.address)")
/// server.start()
/// ```
///
/// One thread runs the loop: it accepts, reads, splits lines, calls the ``Handler`` for each,
/// and writes the connections' buffered output. Handlers run on that thread, one at a time;
/// ``LineConnection/send(_:)`` and ``LineConnection/close()`` may be called from any thread.
///
/// ## Limits
///
/// - A line longer than ``Limits/maximumFrameBytes`` (without a newline in that many bytes,
///   which covers half a frame that never ends): reading stops and the handler is told
///   (``LineConnection/Cause/frameTooLarge``); it should say why and close.
/// - Output not read by the client past ``Limits/maximumOutputBytes``: the connection is
///   closed at once (``LineConnection/Cause/slowReader``); its unread output is dropped.
/// - More than ``Limits/maximumConnections`` clients: new ones are closed on accept.
public final class LineServer: Sendable {
  /// The caps that bound a server's memory.
  public struct Limits: Sendable {
    /// The longest frame, newline excluded. 4 KiB by default.
    public var maximumFrameBytes = 4096
    /// The most output a connection may have waiting. 256 KiB by default.
    public var maximumOutputBytes = 256 * 1024
    /// The most connections open at once. 20,000 by default.
    public var maximumConnections = 20_000

    /// Creates the default limits.
    public init() {}
  }

  /// What the server calls, on its loop thread.
  public struct Handler: Sendable {
    /// A client connected.
    public var open: @Sendable (LineConnection) -> Void
    /// A client sent a line (its bytes, without the newline, valid during the call).
    public var line: @Sendable (LineConnection, UnsafeBufferPointer<UInt8>) -> Void
    /// A connection ended, or must end (see ``LineConnection/Cause``). Called once.
    public var end: @Sendable (LineConnection, LineConnection.Cause) -> Void

    /// Creates a handler.
    ///
    /// - Parameters:
    ///   - open: Called when a client connects.
    ///   - line: Called for each line a client sends.
    ///   - end: Called once when a connection ends or must end.
    public init(
      open: @escaping @Sendable (LineConnection) -> Void,
      line: @escaping @Sendable (LineConnection, UnsafeBufferPointer<UInt8>) -> Void,
      end: @escaping @Sendable (LineConnection, LineConnection.Cause) -> Void
    ) {
      self.open = open
      self.line = line
      self.end = end
    }
  }

  /// A socket call failed.
  public struct SocketError: Error, CustomStringConvertible, Sendable {
    /// What failed, with the system's reason.
    public var description: String
  }

  let loop: EventLoop
  /// The address the server listens on, `HOST:PORT`.
  public let address: String
  /// The port the server listens on (the one picked, when created with port 0).
  public let port: UInt16

  /// Binds and listens; call ``start()`` to serve.
  ///
  /// - Parameters:
  ///   - host: A loopback address: `127.0.0.1` (default) or `::1`.
  ///   - port: The port; 0 picks a free one (read it from ``port``).
  ///   - limits: The caps (see ``Limits``).
  ///   - log: Receives log lines from the loop (accept failures, connection limits).
  ///   - handler: What to do with connections and lines.
  /// - Throws: ``SocketError`` if the address is not loopback or a socket call fails.
  public init(
    host: String = "127.0.0.1", port: UInt16, limits: Limits = Limits(),
    log: @escaping @Sendable (String) -> Void = { _ in }, handler: Handler
  ) throws(SocketError) {
    let listener = try Self.listen(host: host, port: port)
    self.port = listener.port
    self.address = host.contains(":") ? "[\(host)]:\(listener.port)" : "\(host):\(listener.port)"
    self.loop = EventLoop(listener: listener.fd, limits: limits, log: log, handler: handler)
  }

  /// Starts the loop on its own thread.
  public func start() {
    loop.start()
  }

  /// Stops: closes the listener, runs `drain` on the loop thread (say goodbye, close
  /// connections), writes what is buffered for up to `timeout`, closes what is left, and
  /// returns once the loop thread has ended.
  ///
  /// - Parameters:
  ///   - timeout: How long to keep writing buffered output after `drain`.
  ///   - drain: Runs on the loop thread after the listener is closed, after every line already
  ///     read was handled.
  public func stop(timeout: Duration = .seconds(2), drain: @escaping @Sendable () -> Void) {
    loop.stop(timeout: timeout, drain: drain)
  }

  /// Connections open now.
  public var connectionCount: Int { loop.connectionCount.load(ordering: .relaxed) }

  private static func listen(host: String, port: UInt16) throws(SocketError) -> (
    fd: Int32, port: UInt16
  ) {
    let isV6 = host.contains(":")
    guard host == "127.0.0.1" || host == "::1" || host == "localhost" else {
      throw SocketError(description: "\(host) is not loopback: use 127.0.0.1 or ::1")
    }
    let fd = socket(
      isV6 ? AF_INET6 : AF_INET,
      Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw SocketError(description: "socket: \(errorText())") }
    var one: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
    var status: Int32
    if isV6 {
      var address = sockaddr_in6()
      address.sin6_family = sa_family_t(AF_INET6)
      address.sin6_port = port.bigEndian
      address.sin6_addr = in6addr_loopback
      status = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
        }
      }
    } else {
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_port = port.bigEndian
      address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
      status = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
      }
    }
    guard status == 0 else {
      let text = errorText()
      Glibc.close(fd)
      throw SocketError(description: "bind \(host):\(port): \(text)")
    }
    guard Glibc.listen(fd, 4096) == 0 else {
      let text = errorText()
      Glibc.close(fd)
      throw SocketError(description: "listen: \(text)")
    }
    var storage = sockaddr_storage()
    var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
    _ = withUnsafeMutablePointer(to: &storage) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    let bound = withUnsafePointer(to: &storage) { pointer -> UInt16 in
      if isV6 {
        pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
          UInt16(bigEndian: $0.pointee.sin6_port)
        }
      } else {
        pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
          UInt16(bigEndian: $0.pointee.sin_port)
        }
      }
    }
    return (fd, bound)
  }
}

/// The text of `errno`.
func errorText(_ code: Int32 = errno) -> String {
  String(cString: strerror(code))
}
