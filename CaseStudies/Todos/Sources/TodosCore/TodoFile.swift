import Foundation
import Unidirectional

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The file the to-do list lives in between runs: a shared value (``sharedList(default:)``),
/// kept by the library's `FileKey` in this format.
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
/// The library saves it atomically after every change of the list (a temporary file, `fsync`,
/// rename, `fsync` of the directory, mode 0600), so a crash at any moment leaves either the old
/// list or the new one. A file that is not such a list is reported and left as it is.
public struct TodoFile: Sendable, Equatable {
  /// The path of the file.
  public let path: String

  /// The format version this program writes and reads.
  public static let formatVersion = 1

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

  /// The list kept in this file, shared by every `Todos` state that holds it (and followed
  /// when another process changes the file).
  ///
  /// - Parameter list: The list while the file does not exist.
  public func sharedList(default list: IdentifiedArray<Todo> = []) -> Shared<IdentifiedArray<Todo>>
  {
    Shared(.file(path, format: Self.format), default: list)
  }

  /// How the list is written in the file, for the library's `FileKey`: ``encode(_:)``, and a
  /// decoding that refuses anything this program would never have written.
  public static let format = SharedFileFormat<IdentifiedArray<Todo>>(
    encode: { encode($0) },
    decode: { data in
      let contents = try JSONDecoder().decode(Contents.self, from: data)
      if let problem = problem(with: contents) { throw FormatProblem(description: problem) }
      return contents.todos
    })

  /// Why a file's contents are not a list: its description is the reason given.
  struct FormatProblem: Error, CustomStringConvertible {
    let description: String
  }

  // MARK: The format

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
    if let problem = problem(with: contents) { throw .corrupt(path: path, reason: problem) }
    return contents.todos
  }

  /// What makes `contents` a list this program would never have written, or `nil`.
  private static func problem(with contents: Contents) -> String? {
    guard contents.version == formatVersion else {
      return "format version \(contents.version) is not one this program reads "
        + "(it reads version \(formatVersion))"
    }
    for (offset, todo) in contents.todos.enumerated() {
      if let problem = problem(with: todo) { return "item \(offset + 1): \(problem)" }
    }
    return nil
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

  /// The error the library reported for the list's file, in this program's words.
  ///
  /// - Parameter error: What the library's `FileKey` reported.
  public init(_ error: SharedStorageError) {
    switch error {
    case .unreadable(let path, let reason): self = .unreadable(path: path, reason: reason)
    case .corrupt(let path, let reason): self = .corrupt(path: path, reason: reason)
    case .unwritable(let path, let reason): self = .unwritable(path: path, reason: reason)
    case .notOverwritten(let path):
      self = .unwritable(
        path: path, reason: "it could not be loaded when the program started, and is kept as it is")
    }
  }

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
