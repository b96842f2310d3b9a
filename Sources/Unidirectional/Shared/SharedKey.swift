/// Where a shared value lives: how it is found, loaded, saved and watched for changes made
/// elsewhere.
///
/// Two ``Shared`` values made from keys with equal ``id``s, in one ``SharedStorage``, are one
/// value. The library gives two keys, ``InMemoryKey`` (`.inMemory("name")`) and ``FileKey``
/// (`.file(path)`); write your own for any other storage. A key is a small value; the storage
/// calls it:
///
/// - ``load(from:)`` once, when the first ``Shared`` of the key is made in a storage;
/// - ``save(_:to:)`` after locked mutations, on a background queue, one save at a time per key,
///   with the newest value (a burst of mutations may be saved once);
/// - ``watch(in:onChange:)`` once, after the load, to hear of changes made by other processes.
///
/// For example, a key kept in an environment variable of this process (read once, never saved):
///
/// ```swift
/// struct EnvironmentKey: SharedKey {
///   let name: String
///   var id: String { name }
///
///   func load(from storage: SharedStorage) throws -> String? {
///     ProcessInfo.processInfo.environment[name]
///   }
/// }
///
/// var region = Shared(EnvironmentKey(name: "REGION"), default: "eu")
/// ```
///
/// A key that reads or writes outside the process should consult the storage it is given, so
/// that a test's isolated ``SharedStorage`` keeps it from touching the real thing (``FileKey``
/// reads and writes the storage's in-memory files unless the storage is on disk).
public protocol SharedKey<Value>: Sendable {
  /// The type of the value.
  associatedtype Value: Sendable
  /// What identifies the value: keys with equal ids share one value in a storage.
  associatedtype ID: Hashable & Sendable

  /// What identifies the value in a storage.
  var id: ID { get }

  /// Loads the stored value, or `nil` if nothing is stored yet (the ``Shared`` then starts from
  /// its default, which a mutation saves).
  ///
  /// - Parameter storage: The storage the value is made in.
  /// - Throws: Why it could not be loaded; the value starts from its default and is not saved
  ///   (nothing readable is overwritten) until a later load or change succeeds.
  func load(from storage: SharedStorage) throws -> Value?

  /// Saves `value`. Called on a background queue, one save at a time per key.
  ///
  /// - Parameters:
  ///   - value: The newest value.
  ///   - storage: The storage the value lives in.
  /// - Throws: Why it could not be saved; reported, and the next mutation tries again.
  func save(_ value: Value, to storage: SharedStorage) throws

  /// Starts watching for changes made outside this storage (another process, a user editing a
  /// file), calling `onChange` with each new value, or with the error that reading it gave.
  ///
  /// - Parameters:
  ///   - storage: The storage the value lives in.
  ///   - onChange: Called on any thread, one call at a time.
  /// - Returns: A token that stops watching when cancelled or released, or `nil` if the key is
  ///   never changed from outside. The storage keeps it for its life.
  func watch(
    in storage: SharedStorage, onChange: @escaping @Sendable (Result<Value, any Error>) -> Void
  ) -> ObservationToken?
}

extension SharedKey {
  /// Saves nothing: a key whose value lives only in memory.
  ///
  /// - Parameters:
  ///   - value: Ignored.
  ///   - storage: Ignored.
  public func save(_ value: Value, to storage: SharedStorage) throws {}

  /// Watches nothing: a key that nothing outside the storage changes.
  ///
  /// - Parameters:
  ///   - storage: Ignored.
  ///   - onChange: Never called.
  /// - Returns: `nil`.
  public func watch(
    in storage: SharedStorage, onChange: @escaping @Sendable (Result<Value, any Error>) -> Void
  ) -> ObservationToken? {
    nil
  }
}
