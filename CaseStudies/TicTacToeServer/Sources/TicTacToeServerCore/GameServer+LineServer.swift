extension GameServer {
  /// The handler that serves this game server on a ``LineServer``: a session per connection,
  /// a frame per line, and the connection's end closing the session.
  ///
  /// ```swift
  /// let server = try LineServer(port: 0, handler: gameServer.lineHandler)
  /// ```
  public var lineHandler: LineServer.Handler {
    LineServer.Handler(
      open: { [self] connection in
        let id = connect(
          ClientLink(
            // Strong references (a weak one makes every retain of the connection take the slow
            // path): the session, which holds the link, is removed when the connection ends.
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
