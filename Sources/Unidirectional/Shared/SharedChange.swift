/// The action payload that tells a store a shared value it holds was changed elsewhere: by
/// another store, an effect, or another process.
///
/// Give your feature's action a case that carries it, and name that case where the store's
/// reducer receives the value (see ``Reducer/receivingShared(_:action:)``):
///
/// ```swift
/// enum Action {
///   case settingsChanged(SharedChange<Settings>)
///   // …
/// }
/// ```
///
/// It is an action like any other: reduced (the state's copy of the value takes ``value``),
/// observed, logged, and received in tests. Replaying it sets the copy again; it writes nothing
/// to the value's storage.
public struct SharedChange<Value: Sendable>: Sendable {
  /// The value after the change.
  public let value: Value
  /// The change's place among the changes of the value in its storage: a store's copy takes
  /// only a change newer than the one it holds, so a change that arrives late is no change.
  public let version: UInt64

  /// A change to `value`, at `version`.
  ///
  /// - Parameters:
  ///   - value: The value after the change.
  ///   - version: Its version in the value's storage.
  public init(value: Value, version: UInt64) {
    self.value = value
    self.version = version
  }
}

extension SharedChange: Equatable where Value: Equatable {}

extension SharedChange: Hashable where Value: Hashable {}

extension SharedChange: Codable where Value: Codable {}
