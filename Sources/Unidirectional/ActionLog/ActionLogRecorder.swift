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
/// let recorder = try ActionLogRecorder<Counter.Action>(path: "session.jsonl", program: "counter")
/// let store = Store(
///   initialState: Counter.State(), reducer: Counter(), interceptors: [recorder.interceptor()])
/// ```
///
/// The file starts with an ``ActionLogHeader`` line (program, action type, schema version).
/// Then each action becomes one line (see ``ActionLogEntry``), written with one `write` call as
/// soon as the action is reduced, so the log survives a crash of the process up to the last
/// action. The log holds every action the store reduces, in order, including those its effects
/// fed back: replaying it needs no effects.
///
/// Logs may hold personal data, so the file is readable by its owner only (mode 0600), an
/// existing file is replaced only when asked (`overwrite: true`), and payloads wrapped in
/// ``Secret`` are written redacted.
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
    let redaction: ActionLogRedaction
  }

  private let storage: Locked<Storage>

  /// The file the log is written to.
  public let path: String

  /// The header written on the log's first line.
  public let header: ActionLogHeader

  /// Creates the log file at `path`, readable and writable by its owner only, and writes its
  /// header.
  ///
  /// - Parameters:
  ///   - path: Where to write the log.
  ///   - program: The recording program's name, which ``ActionLog`` checks on replay. Defaults
  ///     to the executable's file name.
  ///   - schemaVersion: The version of the actions' encoding, from 1 (see
  ///     ``ActionLogHeader/schemaVersion``).
  ///   - overwrite: Whether to replace a file already at `path` (emptied, and set to mode 0600).
  ///     `false` by default: an existing file is left untouched.
  /// - Throws: ``ActionLogError`` with ``ActionLogError/Reason/fileExists`` if a file exists at
  ///   `path` and `overwrite` is `false`, or ``ActionLogError/Reason/fileError(_:)`` if the file
  ///   cannot be created or its header written.
  public init(
    path: String, program: String = ActionLogHeader.currentProgram, schemaVersion: Int = 1,
    overwrite: Bool = false
  ) throws(ActionLogError) {
    let header = ActionLogHeader(
      program: program, actionType: String(reflecting: Action.self),
      schemaVersion: schemaVersion)
    let descriptor = try LogFile.create(path: path, overwrite: overwrite)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let redaction = ActionLogRedaction()
    encoder.userInfo[ActionLogRedaction.key] = redaction
    do {
      var line = try encoder.encode(header)
      line.append(0x0A)
      if let message = LogFile.writeAll(line, to: descriptor) {
        throw ActionLogError(path: path, line: 1, reason: .fileError(message))
      }
    } catch {
      close(descriptor)
      throw (error as? ActionLogError)
        ?? ActionLogError(path: path, line: 1, reason: .fileError("\(error)"))
    }
    self.path = path
    self.header = header
    self.storage = Locked(
      Storage(descriptor: descriptor, encoder: encoder, redaction: redaction))
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
      // The entry's line: the header is line 1.
      let lineNumber = entry.sequence + 1
      do {
        _ = storage.redaction.take()  // Nothing left over from a failed encoding.
        var line = try storage.encoder.encode(entry)
        line.append(0x0A)
        if let message = LogFile.writeAll(line, to: storage.descriptor) {
          storage.failure = ActionLogError(
            path: path, line: lineNumber, reason: .fileError(message))
        } else {
          storage.nextSequence += 1
        }
      } catch {
        storage.failure = ActionLogError(
          path: path, line: lineNumber,
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
}
