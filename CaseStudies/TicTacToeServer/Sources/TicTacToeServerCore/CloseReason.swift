/// Why the server closed a connection; sent in the `bye` frame before it closes.
public enum CloseReason: String, Equatable, Sendable {
  /// The client closed its end.
  case disconnected
  /// The server waited on the client for longer than the idle timeout.
  case idle
  /// The client sent a frame longer than the frame size cap.
  case frameTooLarge = "frame-too-large"
  /// The client did not read its frames: the output buffer reached its cap.
  case slowReader = "slow-reader"
  /// The server is shutting down.
  case shutdown
  /// The client sent `quit`.
  case quit
  /// The server's journal could not be written (its database is away): what the client did
  /// since its last acknowledged frame may or may not be kept. It `rejoin`s with its seat token
  /// in a moment and is sent the game as it is.
  case unavailable
}
