import Foundation
import Unidirectional

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The file the to-do list lives in between runs.
///
/// The format is JSON, written by this type only:
///
/// ```json
/// {
///   "todos" : [
///     { "id" : "…UUID…", "isComplete" : false, "tags" : [ "home" ], "title" : "Buy milk" }
///   ],
///   "version" : 1
/// }
/// ```
///
/// Saving is atomic: the list is written to a temporary file in the same directory, flushed to
/// disk (`fsync`), renamed over the file, and the directory is flushed, so a crash at any moment
/// leaves either the old list or the new one, never a mix or nothing. Loading a file that is not
/// such a list throws ``TodoFileError/corrupt(path:reason:)`` and leaves the file as it is.
public struct TodoFile: Sendable, Equatable {
  /// The path of the file.
  public let path: String

  /// The format version this program writes and reads.
  public static let formatVersion = 1

  /// A save step to fail on purpose, for tests of atomicity: the save stops there with an error,
  /// as a crash or a full disk would stop it.
  enum Fault: Sendable, Equatable {
    /// Write half of the temporary file, then fail.
    case writingTemporaryFile
    /// Fail just before renaming the temporary file over the list.
    case renaming
  }

  /// A fault to inject into every save (tests only).
  var fault: Fault?

  /// A file at `path`.
  public init(path: String) {
    self.path = path
  }

  /// The file to use: `--file PATH` if given, else `$TODOS_FILE` if set and not empty, else
  /// `~/.todos.json` (in `$HOME`).
  ///
  /// - Parameters:
  ///   - option: The value of `--file`, if given.
  ///   - environment: The process's environment.
  public static func resolvedPath(option: String?, environment: [String: String]) -> String {
    if let option { return option }
    if let path = environment["TODOS_FILE"], !path.isEmpty { return path }
    let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
    return (home as NSString).appendingPathComponent(".todos.json")
  }

  // MARK: Loading

  /// Reads the list. A file that does not exist is an empty list, if its directory exists (the
  /// file is created by the first save).
  ///
  /// - Throws: ``TodoFileError/unreadable(path:reason:)`` if the file exists but cannot be read
  ///   (or is a directory), ``TodoFileError/corrupt(path:reason:)`` if it is not a valid list,
  ///   ``TodoFileError/unwritable(path:reason:)`` if it does not exist and cannot be created
  ///   because its directory does not exist. The file is never changed.
  public func load() throws(TodoFileError) -> IdentifiedArray<Todo> {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else {
      let code = errno
      guard code == ENOENT else {
        throw .unreadable(path: path, reason: String(cString: strerror(code)))
      }
      let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory),
        isDirectory.boolValue
      else {
        throw .unwritable(
          path: path, reason: "the directory \(directory) does not exist; create it first")
      }
      return []
    }
    defer { close(descriptor) }
    var status = stat()
    if fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
      throw .unreadable(path: path, reason: "it is a directory, not a file")
    }
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
      let count = read(descriptor, &buffer, buffer.count)
      if count < 0 {
        if errno == EINTR { continue }
        throw .unreadable(path: path, reason: String(cString: strerror(errno)))
      }
      if count == 0 { break }
      data.append(contentsOf: buffer[..<count])
    }
    return try Self.decode(data, path: path)
  }

  /// Decodes the contents of a file.
  ///
  /// - Throws: ``TodoFileError/corrupt(path:reason:)`` naming what is wrong.
  public static func decode(_ data: Data, path: String) throws(TodoFileError)
    -> IdentifiedArray<Todo>
  {
    let contents: Contents
    do {
      contents = try JSONDecoder().decode(Contents.self, from: data)
    } catch {
      throw .corrupt(path: path, reason: describe(error))
    }
    guard contents.version == formatVersion else {
      throw .corrupt(
        path: path,
        reason: "format version \(contents.version) is not one this program reads "
          + "(it reads version \(formatVersion))")
    }
    for (offset, todo) in contents.todos.enumerated() {
      if let problem = problem(with: todo) {
        throw .corrupt(path: path, reason: "item \(offset + 1): \(problem)")
      }
    }
    return contents.todos
  }

  /// What makes `todo` one this program would never have written, or `nil`.
  private static func problem(with todo: Todo) -> String? {
    if todo.title != Title.normalized(todo.title) { return "the title has surrounding spaces" }
    if let problem = Title.problem(with: todo.title) { return problem }
    for tag in todo.tags {
      if tag != Tag.normalized(tag) { return "the tag '\(tag)' is not in lowercase" }
      if let problem = Tag.problem(with: tag) { return problem }
    }
    if Set(todo.tags).count != todo.tags.count { return "a tag appears twice" }
    if todo.tags.count > Tag.maximumCount {
      return "\(todo.tags.count) tags; the limit is \(Tag.maximumCount)"
    }
    return nil
  }

  /// The bytes a save writes for `todos`: pretty-printed JSON with sorted keys, ending in a
  /// newline.
  public static func encode(_ todos: IdentifiedArray<Todo>) -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    // Encoding plain strings, booleans and UUIDs cannot fail.
    var data = try! encoder.encode(Contents(version: formatVersion, todos: todos))
    data.append(0x0A)
    return data
  }

  struct Contents: Codable {
    var version: Int
    var todos: IdentifiedArray<Todo>
  }

  // MARK: Saving

  /// Replaces the file's list with `todos`, atomically.
  ///
  /// Writes a temporary file beside the file (same directory, so the rename cannot cross file
  /// systems), `fsync`s it, renames it over the file and `fsync`s the directory. If any step
  /// fails, the temporary file is removed and the old file is left as it was. If the path is a
  /// symbolic link, the file it points to is replaced and the link kept.
  ///
  /// - Throws: ``TodoFileError/unwritable(path:reason:)`` naming the step that failed.
  public func save(_ todos: IdentifiedArray<Todo>) throws(TodoFileError) {
    let data = Self.encode(todos)
    // Through a symbolic link, replace the file it points to (in that file's directory), not
    // the link.
    let url = URL(fileURLWithPath: path).resolvingSymlinksInPath()
    let target = url.path
    let directory = url.deletingLastPathComponent().path
    let temporary =
      url.deletingLastPathComponent()
      .appendingPathComponent(".\(url.lastPathComponent).\(getpid()).tmp").path

    func failure(_ step: String, _ code: Int32 = errno) -> TodoFileError {
      .unwritable(path: path, reason: "\(step): \(String(cString: strerror(code)))")
    }

    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else {
      throw failure("cannot create the temporary file \(temporary)")
    }
    var isTemporaryInPlace = true
    defer { if isTemporaryInPlace { unlink(temporary) } }
    do {
      defer { close(descriptor) }
      let count = fault == .writingTemporaryFile ? data.count / 2 : data.count
      let writeError = data.prefix(count).withUnsafeBytes { bytes -> Int32? in
        var offset = 0
        while offset < bytes.count {
          let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
          if written < 0 {
            if errno == EINTR { continue }
            return errno
          }
          offset += written
        }
        return nil
      }
      if let writeError {
        throw failure("cannot write the temporary file \(temporary)", writeError)
      }
      if fault == .writingTemporaryFile {
        throw failure("cannot write the temporary file \(temporary)", ENOSPC)
      }
      guard fsync(descriptor) == 0 else {
        throw failure("cannot flush the temporary file \(temporary)")
      }
    }
    if fault == .renaming { throw failure("cannot rename \(temporary)", EIO) }
    guard rename(temporary, target) == 0 else {
      throw failure("cannot rename \(temporary) to \(target)")
    }
    isTemporaryInPlace = false
    // Make the rename itself durable. A directory that cannot be opened or flushed (some file
    // systems refuse) leaves the new file in place; the list is saved as far as this process can
    // tell.
    let directoryDescriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if directoryDescriptor >= 0 {
      _ = fsync(directoryDescriptor)
      close(directoryDescriptor)
    }
  }

  private static func describe(_ error: any Error) -> String {
    switch error {
    case DecodingError.dataCorrupted(let context):
      return "not valid JSON or not a list of items (\(context.debugDescription)\(at(context)))"
    case DecodingError.keyNotFound(let key, let context):
      return "'\(key.stringValue)' is missing\(at(context))"
    case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
      return "\(context.debugDescription)\(at(context))"
    default:
      return "\(error)"
    }
  }

  private static func at(_ context: DecodingError.Context) -> String {
    let path = context.codingPath.map { key in
      key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)"
    }
    .joined()
    return path.isEmpty ? "" : " at \(path)"
  }
}

/// Why the to-do file could not be read or written.
public enum TodoFileError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The file exists but cannot be read (permissions, a directory…).
  case unreadable(path: String, reason: String)
  /// The file is not a valid to-do list; it has been left as it is.
  case corrupt(path: String, reason: String)
  /// The file cannot be written (a save failed, or its directory does not exist); the file is
  /// as it was.
  case unwritable(path: String, reason: String)

  /// One line naming the file and the problem.
  public var description: String {
    switch self {
    case .unreadable(let path, let reason): "cannot read \(path): \(reason)"
    case .corrupt(let path, let reason): "\(path) is not a valid to-do list: \(reason)"
    case .unwritable(let path, let reason): "cannot save \(path): \(reason)"
    }
  }

  /// What the user can do about it, in one or two sentences.
  public var advice: String {
    switch self {
    case .unreadable:
      "Check that the path names a file you can read, or use another file with --file PATH or "
        + "TODOS_FILE."
    case .corrupt:
      "The file was left untouched. Repair it, or move it away to start a new list, or use "
        + "another file with --file PATH or TODOS_FILE."
    case .unwritable:
      "The file was not changed. Check that its directory exists and can be written, and that "
        + "the disk has space, or use another file with --file PATH or TODOS_FILE."
    }
  }
}
