import Foundation
import Testing
import Unidirectional

@testable import TodosCore

#if canImport(Glibc)
  import Glibc
#endif

/// The file between runs, kept by the library's `FileKey` in ``TodoFile/format``: what is saved
/// is what loads, through a symbolic link too, and a file that is not a list is reported by name
/// and never changed.
@Suite struct TodoFileTests {
  /// A fresh directory for one test, and the path of a to-do file in it.
  static func temporaryFile() throws -> (directory: URL, file: TodoFile) {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("todos-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return (directory, TodoFile(path: directory.appendingPathComponent("todos.json").path))
  }

  static let sample: IdentifiedArray<Todo> = [
    Todo(id: uuid(1), title: "Buy milk", tags: ["home", "errands"]),
    Todo(id: uuid(2), title: "Call “Ann” — soon ✓", isComplete: true),
  ]

  /// What a new program run would find in `file`: the list loaded by a storage of its own, and
  /// what that storage reported.
  static func load(_ file: TodoFile) -> (list: IdentifiedArray<Todo>, issues: [SharedStorageError])
  {
    let issues = Locked<[SharedStorageError]>([])
    let storage = SharedStorage(filesOnDisk: true) { issue in issues.withLock { $0.append(issue) } }
    let list = withDependencies {
      $0.sharedStorage = storage
    } operation: {
      file.sharedList()
    }
    return (list.value, issues.withLock { $0 })
  }

  /// Sets the list in `file` as the program does, and waits for the save.
  static func save(_ todos: IdentifiedArray<Todo>, in file: TodoFile) async {
    let storage = SharedStorage(filesOnDisk: true)
    var list = withDependencies {
      $0.sharedStorage = storage
    } operation: {
      file.sharedList()
    }
    list.withLock { $0 = todos }
    await storage.saved()
  }

  @Test func aSavedListLoadsBackTheSame() async throws {
    let (directory, file) = try Self.temporaryFile()
    defer { try? FileManager.default.removeItem(at: directory) }
    await Self.save(Self.sample, in: file)
    #expect(Self.load(file).list == Self.sample)
    // Saving again replaces the list.
    await Self.save([Self.sample[1]], in: file)
    #expect(Self.load(file).list == [Self.sample[1]])
    // Only the file is left in the directory, readable by its owner alone.
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["todos.json"])
    var status = stat()
    #expect(stat(file.path, &status) == 0)
    #expect(status.st_mode & 0o777 == 0o600)
  }

  @Test func aSaveThroughASymbolicLinkReplacesTheFileItPointsTo() async throws {
    let (directory, file) = try Self.temporaryFile()
    defer { try? FileManager.default.removeItem(at: directory) }
    await Self.save(Self.sample, in: file)
    let link = directory.appendingPathComponent("link.json").path
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: file.path)
    await Self.save([Self.sample[0]], in: TodoFile(path: link))
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == file.path)
    #expect(Self.load(file).list == [Self.sample[0]])
  }

  @Test func theFormatIsVersionedJSON() throws {
    let data = TodoFile.encode([Todo(id: uuid(1), title: "A", tags: ["x"])])
    #expect(
      String(decoding: data, as: UTF8.self) == """
        {
          "todos" : [
            {
              "id" : "00000000-0000-0000-0000-000000000001",
              "isComplete" : false,
              "tags" : [
                "x"
              ],
              "title" : "A"
            }
          ],
          "version" : 1
        }

        """)
  }

  @Test func aMissingFileIsAnEmptyList() throws {
    let (directory, file) = try Self.temporaryFile()
    defer { try? FileManager.default.removeItem(at: directory) }
    let loaded = Self.load(file)
    #expect(loaded.list.isEmpty)
    #expect(loaded.issues.isEmpty)
  }

  @Test func aFileThatCannotBeReadIsReportedWithTheReason() throws {
    let (directory, _) = try Self.temporaryFile()
    defer { try? FileManager.default.removeItem(at: directory) }
    #expect(
      Self.load(TodoFile(path: directory.path)).issues
        == [.unreadable(path: directory.path, reason: "it is a directory, not a file")])
    let missing = directory.appendingPathComponent("missing/todos.json").path
    #expect(
      Self.load(TodoFile(path: missing)).issues == [
        .unreadable(
          path: missing,
          reason: "the directory \(directory.path)/missing does not exist; create it first")
      ])
  }

  @Test(arguments: [
    ("{ not json", "not valid JSON"),
    (#"{"version": 1}"#, "'todos' is missing"),
    (#"{"version": 2, "todos": []}"#, "format version 2 is not one this program reads"),
    (
      #"{"version": 1, "todos": [{"id": "00000000-0000-0000-0000-000000000001", "title": "", "isComplete": false, "tags": []}]}"#,
      "item 1: the title is empty"
    ),
    (
      #"{"version": 1, "todos": [{"id": "00000000-0000-0000-0000-000000000001", "title": "A", "isComplete": false, "tags": ["Home"]}]}"#,
      "item 1: the tag 'Home' is not in lowercase"
    ),
    (
      #"{"version": 1, "todos": [{"id": "00000000-0000-0000-0000-000000000001", "title": "A", "isComplete": false, "tags": []}, {"id": "00000000-0000-0000-0000-000000000001", "title": "B", "isComplete": false, "tags": []}]}"#,
      "duplicate id"
    ),
  ])
  func aCorruptFileIsReportedByNameAndLeftUntouched(contents: String, problem: String) async throws
  {
    let (directory, file) = try Self.temporaryFile()
    defer { try? FileManager.default.removeItem(at: directory) }
    try Data(contents.utf8).write(to: URL(fileURLWithPath: file.path))
    let loaded = Self.load(file)
    #expect(loaded.list.isEmpty)
    guard case .corrupt(let path, let reason) = loaded.issues.first else {
      Issue.record("not reported as corrupt: \(loaded.issues)")
      return
    }
    #expect(path == file.path)
    #expect(reason.contains(problem), "\(reason)")
    let error = TodoFileError(loaded.issues[0])
    #expect("\(error)".hasPrefix("\(file.path) is not a valid to-do list: "))
    #expect(error.advice.contains("left untouched"))
    // A change of the list in the program that found it so is never saved over it.
    await Self.save(Self.sample, in: file)
    #expect(try Data(contentsOf: URL(fileURLWithPath: file.path)) == Data(contents.utf8))
    // The format's own check, as a test reads a file.
    #expect(throws: TodoFileError.self) {
      try TodoFile.decode(Data(contents.utf8), path: file.path)
    }
  }

  @Test func thePathComesFromTheOptionThenTheEnvironmentThenHome() {
    #expect(
      TodoFile.resolvedPath(option: "a.json", environment: ["TODOS_FILE": "b.json"]) == "a.json")
    #expect(TodoFile.resolvedPath(option: nil, environment: ["TODOS_FILE": "b.json"]) == "b.json")
    #expect(
      TodoFile.resolvedPath(option: nil, environment: ["TODOS_FILE": "", "HOME": "/home/ann"])
        == "/home/ann/.todos.json")
  }
}
