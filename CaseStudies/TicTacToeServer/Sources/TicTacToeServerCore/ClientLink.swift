/// How the server reaches one client: the transport gives one to ``GameServer/connect(_:)``.
///
/// Both closures may be called from any thread, and after the connection is gone (they then do
/// nothing).
public struct ClientLink: Sendable {
  /// Queues a frame for the client.
  public var deliver: @Sendable (ServerFrame) -> Void
  /// Closes the connection once the frames queued before are written.
  public var close: @Sendable () -> Void
  /// Queues a frame already encoded, newline included, if the transport takes bytes: the
  /// server then encodes a frame that several clients see once.
  var deliverBytes: (@Sendable ([UInt8]) -> Void)?

  /// Creates a link.
  ///
  /// - Parameters:
  ///   - deliver: Queues a frame for the client.
  ///   - close: Closes the connection after the frames already queued.
  public init(
    deliver: @escaping @Sendable (ServerFrame) -> Void, close: @escaping @Sendable () -> Void
  ) {
    self.deliver = deliver
    self.close = close
  }

  /// Creates a link that also takes encoded frames.
  init(
    deliver: @escaping @Sendable (ServerFrame) -> Void,
    deliverBytes: @escaping @Sendable ([UInt8]) -> Void, close: @escaping @Sendable () -> Void
  ) {
    self.deliver = deliver
    self.deliverBytes = deliverBytes
    self.close = close
  }
}
