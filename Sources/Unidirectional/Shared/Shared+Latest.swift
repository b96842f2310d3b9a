extension Shared {
  /// The one value now, which can be newer than this state's copy, ``value``: read under the
  /// value's lock, without changing it (no new version, no store is told).
  ///
  /// Read it outside reducers, where the value is wanted as it is now rather than as a store
  /// received it: a server answering a request for the value, for example. A reducer reads
  /// ``value``, its copy, so that a replay of the store's actions reads what the store read.
  public var latestValue: Value {
    reference.current.value
  }
}
