extension DependencyValues {
  /// Where ``Shared`` values live: ``SharedStorage/live`` in a program; in a test context, an
  /// isolated storage whose files are in memory (a `TestStore` gives each test store its own).
  public var sharedStorage: SharedStorage {
    get { self[SharedStorageKey.self] }
    set { self[SharedStorageKey.self] = newValue }
  }
}

/// The dependency key of ``DependencyValues/sharedStorage``.
private enum SharedStorageKey: DependencyKey {
  static var liveValue: SharedStorage { .live }
  /// One isolated storage for the test context outside test stores: no file is touched.
  static let testValue = SharedStorage()
}
