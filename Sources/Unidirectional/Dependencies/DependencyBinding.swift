/// When a store binds its captured dependencies around its reducer and effects.
@usableFromInline
enum DependencyBinding: UInt8, Sendable {
  /// The store's dependencies are the defaults: they are bound only while some
  /// `withDependencies` scope runs somewhere, which could otherwise leak into this store.
  case whenOverridden
  /// The store's dependencies differ from the defaults: always bound.
  case always
  /// Never bound: the store uses the dependencies in force where `send` is called. A test
  /// store's store, whose dependencies the test may change between steps, and child stores,
  /// which never reduce.
  case never
}
