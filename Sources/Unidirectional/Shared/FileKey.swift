import Foundation

/// A shared value kept in a file: loaded at first use, saved atomically after changes, and
/// picked up when another process changes the file.
///
/// ```swift
/// var settings = Shared(.file("/home/ada/.counter.json"), default: Settings())
/// ```
///
/// - **Saving** writes a temporary file beside the file with mode 0600, `fsync`s it, renames it
///   over the file and `fsync`s the directory, on a background queue: a crash at any moment
///   leaves the old file or the new one. A burst of changes is saved once, with the newest
///   value. Through a symbolic link, the file it points to is replaced and the link kept. A
///   process killed while saving leaves its temporary file (`.NAME.PID.N.tmp`); the next load of
///   the file removes those of processes no longer running.
/// - **Changes from other processes** are noticed through `inotify` on the file's directory (a
///   file renamed into place, or closed after writing), within milliseconds; the file is read
///   again, and the value changes if its bytes differ from the last ones this storage read or
///   wrote. Across processes the last completed save wins: two processes that change the value
///   at once each save their own result, and the file ends with whichever rename came last.
///   Nothing locks the file across processes, so changes are lost: the other process's, and a
///   process's own made after the other's save that it then takes. Two processes that each
///   increment a count 20,000 times from 0 can end with any count from 1 to 40,000, below
///   20,000 too.
/// - **A file that cannot be loaded** (unreadable, or not a value of the format) is reported,
///   with its path and what to do, and never overwritten: the value starts from its default,
///   changes stay in memory, and saving resumes once the file loads (repaired or removed).
///
/// In an isolated ``SharedStorage`` (a test's), the file lives in memory unless the storage was
/// made with `filesOnDisk: true`.
public struct FileKey<Value: Sendable>: SharedKey {
  /// The path of the file, as given.
  public let path: String
  /// How the value is written in the file.
  public let format: SharedFileFormat<Value>

  /// A key for the file at `path`.
  ///
  /// - Parameters:
  ///   - path: The file. A relative path is relative to the current directory when the key is
  ///     made.
  ///   - format: How the value is written in the file.
  public init(path: String, format: SharedFileFormat<Value>) {
    self.path = Self.normalized(path)
    self.format = format
  }

  /// The absolute, standardized path: two spellings of one path share one value.
  public var id: String { path }

  /// Reads and decodes the file; `nil` if there is no file yet.
  ///
  /// - Parameter storage: The storage the value is made in (on disk, or its in-memory files).
  /// - Throws: ``SharedStorageError/unreadable(path:reason:)`` or
  ///   ``SharedStorageError/corrupt(path:reason:)``.
  public func load(from storage: SharedStorage) throws -> Value? {
    let data: Data?
    if storage.filesOnDisk {
      // A save killed midway left its temporary file; the file is whole.
      AtomicFile.removeStaleTemporaries(of: path)
      data = try AtomicFile.contents(of: path)
    } else {
      data = storage.memoryFiles.withLock { $0.contents[path] }
    }
    guard let data else { return nil }
    storage.noteFileContents(data, at: path, isOwnWrite: false)
    return try decode(data)
  }

  /// Encodes `value` and replaces the file with it, atomically.
  ///
  /// - Parameters:
  ///   - value: The newest value.
  ///   - storage: The storage the value lives in.
  /// - Throws: ``SharedStorageError/unwritable(path:reason:)`` naming the step that failed.
  public func save(_ value: Value, to storage: SharedStorage) throws {
    let data: Data
    do {
      data = try format.encode(value)
    } catch {
      throw SharedStorageError.unwritable(
        path: path, reason: "the value could not be encoded: \(error)")
    }
    // Noted first: the watch may hear of the rename before this returns.
    storage.noteFileContents(data, at: path, isOwnWrite: true)
    if storage.filesOnDisk {
      try AtomicFile.replace(path, with: data)
    } else {
      storage.memoryFiles.withLock { $0.contents[path] = data }
    }
  }

  /// Watches the file: through `inotify` on disk, through ``SharedStorage/setFile(_:to:)`` in
  /// memory. A removed file is no change (the value stays; the next save writes it again).
  ///
  /// - Parameters:
  ///   - storage: The storage the value lives in.
  ///   - onChange: Called with the value in the changed file, or with why it cannot be read.
  /// - Returns: A token that stops watching.
  public func watch(
    in storage: SharedStorage, onChange: @escaping @Sendable (Result<Value, any Error>) -> Void
  ) -> ObservationToken? {
    let path = path
    let changed: @Sendable (Data?) -> Void = { [weak storage] data in
      // Bytes this storage read or wrote last are its own save, or no change.
      guard let data, let storage, storage.isChangeFromOutside(data, at: path) else { return }
      onChange(Result { try decode(data) })
    }
    if storage.filesOnDisk {
      return FileWatcher.watch(path) {
        do {
          changed(try AtomicFile.contents(of: path))
        } catch {
          onChange(.failure(error))
        }
      }
    }
    let number = storage.memoryFiles.withLock { files in
      defer { files.nextWatcher += 1 }
      files.watchers[path, default: [:]][files.nextWatcher] = changed
      return files.nextWatcher
    }
    return ObservationToken { [weak storage] in
      storage?.memoryFiles.withLock { _ = $0.watchers[path]?.removeValue(forKey: number) }
    }
  }

  private func decode(_ data: Data) throws(SharedStorageError) -> Value {
    do {
      return try format.decode(data)
    } catch {
      throw .corrupt(path: path, reason: Self.describe(error))
    }
  }

  /// `path` made absolute (against the current directory) and standardized.
  static func normalized(_ path: String) -> String {
    URL(fileURLWithPath: path).standardizedFileURL.path
  }

  /// A decoding error in a sentence: what is wrong, and where in the value.
  private static func describe(_ error: any Error) -> String {
    func at(_ context: DecodingError.Context) -> String {
      let path = context.codingPath.map { key in
        key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)"
      }
      .joined()
      return path.isEmpty ? "" : " at \(path)"
    }
    switch error {
    case DecodingError.dataCorrupted(let context):
      return
        "not valid JSON or not a value of this type (\(context.debugDescription)\(at(context)))"
    case DecodingError.keyNotFound(let key, let context):
      return "'\(key.stringValue)' is missing\(at(context))"
    case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
      return "\(context.debugDescription)\(at(context))"
    default:
      return "\(error)"
    }
  }
}

extension SharedKey {
  /// A shared value kept in the file at `path`, as JSON (see ``FileKey``).
  ///
  /// - Parameter path: The file.
  public static func file<Value: Codable & Sendable>(_ path: String) -> Self
  where Self == FileKey<Value> {
    FileKey(path: path, format: .json)
  }

  /// A shared value kept in the file at `path`, in `format` (see ``FileKey``).
  ///
  /// - Parameters:
  ///   - path: The file.
  ///   - format: How the value is written in the file.
  public static func file<Value>(_ path: String, format: SharedFileFormat<Value>) -> Self
  where Self == FileKey<Value> {
    FileKey(path: path, format: format)
  }
}
