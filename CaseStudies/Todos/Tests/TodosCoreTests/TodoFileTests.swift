import Foundation
import Testing
import Unidirectional

@testable import TodosCore

/// The file between runs: what is saved is what loads, saves are atomic, and a file that is not
/// a list is reported by name and never changed.
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

  @Test func aSavedListLoadsBackTheSame() throws {
    let (directory, file) = try Self.temporaryFile()
    defer { try? FileManager.default.removeItem(at: directory) }
    try file.save(Self.sample)
    #expect(try file.load() == Self.sample)
    // Saving again replaces the list.
    try file.save([Self.sample[1]])
    #expect(try file.load() == [Self.sample[1]])
    // Only the file is left in the directory: no temporary file.
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["todos.json"])
  }

  @Test func aSaveThroughASymbolicLinkReplacesTheFileItPointsTo() throws {
    let (directory, file) = try Self.temporaryFile()
    defer { try? FileManager.default.removeItem(at: directory) }
    try file.save(Self.sample)
    let link = directory.appendingPathComponent("link.json").path
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: file.path)
    try TodoFile(path: link).save([Self.sample[0]])
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == file.path)
    #expect(try file.load() == [Self.sample[0]])
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
    #expect(try file.load().isEmpty)
  }

  @Test(arguments: [TodoFile.Fault.writingTemporaryFile, .renaming])
  func aSaveThatFailsMidwayLeavesTheOldFileIntact(fault: TodoFile.Fault) throws {
    let (directory, file) = try Self.temporaryFile()
    defer { try? FileManager.default.removeItem(at: directory) }
    try file.save(Self.sample)
    let before = try Data(contentsOf: URL(fileURLWithPath: file.path))

    var failing = file
    failing.fault = fault
    #expect(throws: TodoFileError.self) {
      try failing.save([Todo(id: uuid(9), title: "New")])
    }
    #expect(try Data(contentsOf: URL(fileURLWithPath: file.path)) == before)
    #expect(try file.load() == Self.sample)
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["todos.json"])
  }

  @Test func aFileThatCannotBeReadIsReportedWithTheReason() throws {
    let (directory, _) = try Self.temporaryFile()
    defer { try? FileManager.default.removeItem(at: directory) }
    #expect(
      throws: TodoFileError.unreadable(
        path: directory.path, reason: "it is a directory, not a file")
    ) {
      try TodoFile(path: directory.path).load()
    }
    let missing = directory.appendingPathComponent("missing/todos.json").path
    #expect(
      throws: TodoFileError.unwritable(
        path: missing,
        reason: "the directory \(directory.path)/missing does not exist; create it first")
    ) {
      try TodoFile(path: missing).load()
    }
  }

  @Test func aSaveIntoAMissingDirectoryFailsWithTheStep() throws {
    let file = TodoFile(path: "/nonexistent-\(UUID().uuidString)/todos.json")
    do {
      try file.save(Self.sample)
      Issue.record("the save succeeded")
    } catch {
      #expect("\(error)".hasPrefix("cannot save \(file.path): cannot create the temporary file"))
      #expect("\(error)".hasSuffix("No such file or directory"))
    }
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
  func aCorruptFileIsReportedByNameAndLeftUntouched(contents: String, problem: String) throws {
    let (directory, file) = try Self.temporaryFile()
    defer { try? FileManager.default.removeItem(at: directory) }
    try Data(contents.utf8).write(to: URL(fileURLWithPath: file.path))
    do {
      _ = try file.load()
      Issue.record("a corrupt file loaded")
    } catch {
      guard case .corrupt(let path, let reason) = error else {
        Issue.record("not reported as corrupt: \(error)")
        return
      }
      #expect(path == file.path)
      #expect(reason.contains(problem), "\(reason)")
      #expect("\(error)".hasPrefix("\(file.path) is not a valid to-do list: "))
      #expect(error.advice.contains("left untouched"))
    }
    #expect(try Data(contentsOf: URL(fileURLWithPath: file.path)) == Data(contents.utf8))
  }

  @Test func thePathComesFromTheOptionThenTheEnvironmentThenHome() {
    #expect(
      TodoFile.resolvedPath(option: "a.json", environment: ["TODOS_FILE": "b.json"]) == "a.json")
    #expect(TodoFile.resolvedPath(option: nil, environment: ["TODOS_FILE": "b.json"]) == "b.json")
    #expect(
      TodoFile.resolvedPath(option: nil, environment: ["TODOS_FILE": "", "HOME": "/home/ann"])
        == "/home/ann/.todos.json")
  }

  @Test func theFileStorageSavesTheNewestListLast() async throws {
    let (directory, file) = try Self.temporaryFile()
    defer { try? FileManager.default.removeItem(at: directory) }
    let storage = TodoStorage.file(file)
    try await storage.save(Self.sample)
    #expect(try file.load() == Self.sample)
    // A save whose effect was cancelled before it began writes nothing.
    let cancelled = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      try await storage.save([])
    }
    try await cancelled.value
    #expect(try file.load() == Self.sample)
  }
}
