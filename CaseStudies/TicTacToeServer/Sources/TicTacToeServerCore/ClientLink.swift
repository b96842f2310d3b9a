/// How the server reaches one client: the transport gives one to ``GameServer/connect(_:)``.
///
/// Both closures may be called from any thread, and after the connection is gone (they then do
/// nothing).
public struct ClientLink: Sendable {
  /// Queues a frame for the client.
  public var deliver: @Sendable (ServerFrame) -> Void
  /// Closes the connection once the frames queued before are written.
  public var close: @Sendable () -> Void

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
}
