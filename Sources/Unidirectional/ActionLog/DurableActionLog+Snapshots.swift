import Foundation

extension DurableActionLog {
  /// An interceptor that appends each action to the log, and every `interval` entries (or
  /// after ``requestSnapshot()``) writes a snapshot of the state to `path`, so that recovery
  /// replays only the entries after it.
  ///
  /// A snapshot is written once the entries it covers are durable, and before they are
  /// acknowledged: when ``waitUntilDurable(_:)`` returns, the snapshot due with those entries is
  /// written (or its failure reported). It is written atomically (a temporary file of its own,
  /// `fsync`, `rename` over `path`, `fsync` of the directory): a crash leaves the previous
  /// snapshot or the new one, never a torn one, and never one ahead of the log; two logs
  /// writing it at once leave one's whole. A symbolic link at `path` is replaced, never written
  /// through. It records the sequence it covers and where the log's next entry starts, so
  /// recovery reads only the log's tail. The log itself is kept whole: it remains a full
  /// history for ``ActionLog`` replays and audits. A failed snapshot is reported on standard
  /// error and costs nothing but a longer recovery.
  ///
  /// - Parameters:
  ///   - path: The snapshot file, replaced by each snapshot.
  ///   - interval: How many entries between snapshots (at sequences `interval`, `2 * interval`,
  ///     …). Encoding and writing the state costs in proportion to its size, on the
  ///     committer's thread.
  /// - Returns: The interceptor to give the store at creation.
  public func interceptor<State: Encodable & Sendable>(
    snapshottingTo path: String, every interval: Int
  ) -> StoreInterceptor<State, Action> {
    precondition(interval > 0, "Unidirectional: a snapshot interval must be positive")
    let header = self.header
    return StoreInterceptor(didReduce: { action, _, newState in
      self.append(action) { sequence, length, isRequested in
        guard isRequested || sequence % interval == 0 else { return nil }
        let snapshot = ActionLogSnapshot(
          header: header, sequence: sequence, logLength: length, state: newState)
        return { () throws(ActionLogError) in try snapshot.write(to: path) }
      }
    })
  }
}

extension DurableActionLog {
  /// An interceptor that appends each action to the log, and every `interval` entries (or
  /// after ``requestSnapshot()``) hands an encoded snapshot of the state to `write`: for a log
  /// whose sink keeps snapshots itself, such as a database table.
  ///
  /// `write` runs on the committer's thread once the entries the snapshot covers are durable,
  /// so a snapshot is never ahead of the log, and before they are acknowledged. Keep only the
  /// latest snapshot (the one with the highest sequence) and give its bytes back to
  /// ``recover(header:snapshot:entries:continuingIn:name:program:schemaVersion:redactsSecrets:initialState:reducer:committer:)``,
  /// with the entries after its sequence. An error `write` throws is reported on standard
  /// error and costs nothing but a longer recovery.
  ///
  /// - Parameters:
  ///   - interval: How many entries between snapshots (at sequences `interval`,
  ///     `2 * interval`, …).
  ///   - write: Stores the snapshot: given the last sequence it covers and its bytes (JSON,
  ///     with the log's header).
  /// - Returns: The interceptor to give the store at creation.
  public func interceptor<State: Encodable & Sendable>(
    snapshottingEvery interval: Int,
    with write:
      @escaping @Sendable (_ sequence: Int, _ snapshot: Data) throws(ActionLogError) ->
      Void
  ) -> StoreInterceptor<State, Action> {
    precondition(interval > 0, "Unidirectional: a snapshot interval must be positive")
    let header = self.header
    let name = self.name
    return StoreInterceptor(didReduce: { action, _, newState in
      self.append(action) { sequence, length, isRequested in
        guard isRequested || sequence % interval == 0 else { return nil }
        let snapshot = ActionLogSnapshot(
          header: header, sequence: sequence, logLength: length, state: newState)
        return { () throws(ActionLogError) in
          try write(sequence, try snapshot.encoded(name: name))
        }
      }
    })
  }
}

/// A state saved with the position in the log it reflects: what recovery starts from.
struct ActionLogSnapshot<State> {
  /// The header of the log it belongs to.
  var header: ActionLogHeader
  /// The last entry reduced into `state`.
  var sequence: Int
  /// The log's length in bytes through that entry: where the entry after it starts.
  var logLength: Int
  /// The state after entry `sequence`.
  var state: State

  enum CodingKeys: String, CodingKey {
    case header, sequence, logLength, state
  }
}

extension ActionLogSnapshot: Sendable where State: Sendable {}
extension ActionLogSnapshot: Encodable where State: Encodable {}
extension ActionLogSnapshot: Decodable where State: Decodable {}

extension ActionLogSnapshot where State: Encodable {
  /// Writes the snapshot to `path`, atomically and durably.
  func write(to path: String) throws(ActionLogError) {
    try LogFile.replaceAtomically(path, with: try encoded(name: path))
  }

  /// The snapshot as JSON; `name` names the snapshot's destination in an error.
  func encoded(name: String) throws(ActionLogError) -> Data {
    do {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
      return try encoder.encode(self)
    } catch {
      throw ActionLogError(
        path: name, line: nil, reason: .invalidEntry("the state could not be encoded: \(error)"))
    }
  }
}
