import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes every action a store reduces to a file, as JSON lines, for replaying later with
/// ``ActionLog``.
///
/// ```swift
/// let recorder = try ActionLogRecorder<Counter.Action>(path: "session.jsonl")
/// let store = Store(
///   initialState: Counter.State(), reducer: Counter(), interceptors: [recorder.interceptor()])
/// ```
///
/// Each action becomes one line (see ``ActionLogEntry``), written with one `write` call as soon
/// as the action is reduced, so the log survives a crash of the process up to the last action.
/// The log holds every action the store reduces, in order, including those its effects fed
/// back: replaying it needs no effects.
///
/// If writing fails (a full disk, say), recording stops: ``failure`` says why, and one line is
/// printed to standard error. The store carries on.
///
/// Thread-safe: lines are written under a lock, in the order the store reduced the actions.
public final class ActionLogRecorder<Action: Encodable & Sendable>: Sendable {
  private struct Storage {
    var descriptor: Int32
    var nextSequence = 1
    var failure: ActionLogError?
    let encoder: JSONEncoder
  }

  private let storage: Locked<Storage>

  /// The file the log is written to.
  public let path: String

  /// Creates the file at `path` (emptying it if it exists) and records into it.
  ///
  /// - Parameter path: Where to write the log.
  /// - Throws: ``ActionLogError`` with ``ActionLogError/Reason/fileError(_:)`` if the file
  ///   cannot be created.
  public init(path: String) throws(ActionLogError) {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else {
      throw ActionLogError(
        path: path, line: nil, reason: .fileError(String(cString: strerror(errno))))
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    self.path = path
    self.storage = Locked(Storage(descriptor: descriptor, encoder: encoder))
  }

  deinit {
    storage.withLock { storage in
      if storage.descriptor >= 0 { close(storage.descriptor) }
    }
  }

  /// An interceptor that records each action after the store reduced it.
  ///
  /// Give it to the store at creation. The interceptor keeps the recorder alive.
  public func interceptor<State>() -> StoreInterceptor<State, Action> {
    StoreInterceptor(didReduce: { action, _, _ in self.record(action) })
  }

  /// Appends one entry for `action`, numbered after the previous one and stamped now.
  ///
  /// The interceptor calls this; call it yourself only to record actions some other way.
  ///
  /// - Parameter action: The action to record.
  public func record(_ action: Action) {
    let failure = storage.withLock { storage -> ActionLogError? in
      guard storage.failure == nil else { return nil }
      let entry = ActionLogEntry(
        sequence: storage.nextSequence, timestamp: Date(), action: action)
      do {
        var line = try storage.encoder.encode(entry)
        line.append(0x0A)
        if let message = Self.writeAll(line, to: storage.descriptor) {
          storage.failure = ActionLogError(
            path: path, line: entry.sequence, reason: .fileError(message))
        } else {
          storage.nextSequence += 1
        }
      } catch {
        storage.failure = ActionLogError(
          path: path, line: entry.sequence,
          reason: .invalidEntry("the action could not be encoded: \(error)"))
      }
      return storage.failure
    }
    if let failure {
      writeToStandardError("Unidirectional: stopped recording the action log: \(failure)\n")
    }
  }

  /// The number of entries written so far.
  public var recordedCount: Int {
    storage.withLock { $0.nextSequence - 1 }
  }

  /// Why recording stopped, or `nil` while it goes on.
  public var failure: ActionLogError? {
    storage.withLock { $0.failure }
  }

  /// Writes all of `data`, retrying partial writes; returns an error message on failure.
  private static func writeAll(_ data: Data, to descriptor: Int32) -> String? {
    data.withUnsafeBytes { buffer -> String? in
      var offset = 0
      while offset < buffer.count {
        let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
        if written < 0 {
          if errno == EINTR { continue }
          return String(cString: strerror(errno))
        }
        offset += written
      }
      return nil
    }
  }
}
