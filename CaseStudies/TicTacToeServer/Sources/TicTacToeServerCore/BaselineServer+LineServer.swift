extension BaselineServer {
  /// The handler that serves the baseline on a ``LineServer``, as ``GameServer/lineHandler``
  /// serves the game server: a session per connection, a frame per line.
  public var lineHandler: LineServer.Handler {
    LineServer.Handler(
      open: { [self] connection in
        let id = connect(
          ClientLink(
            deliver: { frame in connection.send(bytes: frame.bytes) },
            deliverBytes: { bytes in connection.send(bytes: bytes) },
            close: { connection.close() }))
        connection.context.store(id, ordering: .relaxed)
      },
      line: { [self] connection, line in
        receive(line, from: connection.context.load(ordering: .relaxed))
      },
      end: { [self] connection, cause in
        let reason: CloseReason =
          switch cause {
          case .peerClosed: .disconnected
          case .frameTooLarge: .frameTooLarge
          case .slowReader: .slowReader
          }
        disconnect(connection.context.load(ordering: .relaxed), reason: reason)
      })
  }
}
