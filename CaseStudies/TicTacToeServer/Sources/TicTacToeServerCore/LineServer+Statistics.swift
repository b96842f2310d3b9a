extension LineServer {
  /// What a line server holds now: its connections and their buffers.
  public struct Statistics: Equatable, Sendable {
    /// Connections open (registered with the loop, lingering ones included).
    public var connections: Int
    /// Connection objects alive: more than ``connections`` only while one that ended is still
    /// held (by the session it served, until the session lets it go).
    public var connectionObjects: Int
    /// The capacity of the connections' input buffers (partial lines) and output buffers
    /// (frames not yet written; up to 16 KiB each is kept for reuse), in bytes. The loop's own
    /// 64 KiB read buffer is not counted.
    public var bufferBytes: Int
  }

  /// What the server holds now.
  public var statistics: Statistics {
    Statistics(
      connections: loop.connectionCount.load(ordering: .relaxed),
      connectionObjects: loop.liveConnections.value,
      bufferBytes: loop.bufferBytes.load(ordering: .relaxed))
  }
}
