import Foundation
import Testing
import TodosCore
import UnidirectionalTestSupport

/// Runs the built `todos` executable end to end, as a user piping commands would, on a file in
/// a fresh directory.
@Suite struct TodosProgramTests {
  let directory: URL
  let path: String

  init() throws {
    directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("todos-program-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    path = directory.appendingPathComponent("list.json").path
  }

  func run(_ input: String, arguments: [String]? = nil) throws -> Program.Output {
    try Program.run("todos", input: Data(input.utf8), arguments: arguments ?? ["--file", path])
  }

  @Test func executableIsBuilt() {
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = Program.executable(named: "todos").path
    #expect(FileManager.default.isExecutableFile(atPath: path), "build the package first: \(path)")
  }

  @Test func aScriptedSessionAndTheListKeptForTheNextRun() throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    let first = try run(
      """
      add Buy milk
      add Call Ann
      add Water the plants
      done 1
      move 3 1
      delete 2
      undo
      filter active
      quit
      add never read

      """)
    #expect(first.standardError == "")
    #expect(first.status == 0)
    #expect(
      first.standardOutput == """
        To do: 0 items, 0 done · showing all
          (nothing yet: 'add TITLE' adds an item)
        To do: 1 item, 0 done · showing all
          1. [ ] Buy milk
        To do: 2 items, 0 done · showing all
          1. [ ] Buy milk
          2. [ ] Call Ann
        To do: 3 items, 0 done · showing all
          1. [ ] Buy milk
          2. [ ] Call Ann
          3. [ ] Water the plants
        To do: 3 items, 1 done · showing all
          1. [x] Buy milk
          2. [ ] Call Ann
          3. [ ] Water the plants
        To do: 3 items, 1 done · showing all
          1. [ ] Water the plants
          2. [x] Buy milk
          3. [ ] Call Ann
        To do: 2 items, 0 done · showing all
          1. [ ] Water the plants
          2. [ ] Call Ann
        Deleted “Buy milk”. Type 'undo' within 5 seconds to restore it.
        To do: 3 items, 1 done · showing all
          1. [ ] Water the plants
          2. [x] Buy milk
          3. [ ] Call Ann
        To do: 3 items, 1 done · showing active
          1. [ ] Water the plants
          2. [ ] Call Ann

        """)

    // The next run starts from the file (the filter is not saved).
    let second = try run("")
    #expect(second.status == 0)
    #expect(
      second.standardOutput == """
        To do: 3 items, 1 done · showing all
          1. [ ] Water the plants
          2. [x] Buy milk
          3. [ ] Call Ann

        """)
    let saved = try TodoFile.decode(Data(contentsOf: URL(fileURLWithPath: path)), path: path)
    #expect(saved.map(\.title) == ["Water the plants", "Buy milk", "Call Ann"])
  }

  /// A title with an escape sequence would be drawn with the list: a line with a control
  /// character is refused whole, quoted escaped, and nothing is saved from it.
  @Test func linesWithControlCharactersAreRefusedQuotedEscaped() throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    let output = try run("add Buy milk\nadd \u{1B}[2JCall Ann\n\u{1B}[A\ndone 1\u{9B}\n")
    #expect(output.status == 1)
    #expect(
      output.standardError == #"""
        error: the line 'add \u{1B}[2JCall Ann' contains a control character (\u{1B}); type plain text
        error: the line '\u{1B}[A' contains a control character (\u{1B}); type plain text
        error: the line 'done 1\u{9B}' contains a control character (\u{9B}); type plain text

        """#)
    #expect(
      try TodoFile.decode(Data(contentsOf: URL(fileURLWithPath: path)), path: path).map(\.title)
        == ["Buy milk"])
    #expect(!output.standardOutput.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{9B}" })
  }

  @Test func theModesAndTheEditorInAScript() throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    let output = try run(
      """
      add Buy milk
      add Call Ann
      open 2
      tags
      tag Phone
      tag urgent
      untag phone
      back
      done
      edit
      title
      save
      title   Call Ann tonight
      save
      back
      filter completed

      """)
    #expect(output.status == 1)
    #expect(
      output.standardError == """
        error: cannot save: the title is empty; write at least one character; 'title TEXT' \
        changes it, 'cancel' leaves the item as it was

        """)
    #expect(
      output.standardOutput.hasSuffix(
        """
        Item: Call Ann
          status: not done
          tags: none
        Tags of “Call Ann”: none
        Tags of “Call Ann”: #phone
        Tags of “Call Ann”: #phone #urgent
        Tags of “Call Ann”: #urgent
        Item: Call Ann
          status: not done
          tags: #urgent
        Item: Call Ann
          status: done
          tags: #urgent
        Editing “Call Ann” ('title TEXT', then 'save' or 'cancel')
          new title: Call Ann
        Editing “Call Ann” ('title TEXT', then 'save' or 'cancel')
          new title: (empty)
          problem: the title is empty; write at least one character
        Editing “Call Ann” ('title TEXT', then 'save' or 'cancel')
          new title: Call Ann tonight
        Item: Call Ann tonight
          status: done
          tags: #urgent
        To do: 2 items, 1 done · showing all
          1. [ ] Buy milk
          2. [x] Call Ann tonight  #urgent
        To do: 2 items, 1 done · showing completed
          1. [x] Call Ann tonight  #urgent

        """), "\(output.standardOutput)")
    let saved = try TodoFile.decode(Data(contentsOf: URL(fileURLWithPath: path)), path: path)
    #expect(saved.map(\.title) == ["Buy milk", "Call Ann tonight"])
    #expect(saved.map(\.tags) == [[], ["urgent"]])
    #expect(saved.map(\.isComplete) == [false, true])
  }

  @Test func refusedLinesGetOneErrorEachAndTheExitStatusIsOne() throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    var input = Data("add A\ndone 7\nfrobnicate\n".utf8)
    input.append(contentsOf: [0xFF, 0xFE, 0x0A])  // Not UTF-8.
    input.append(Data("undo\nadd B\n".utf8))
    let output = try Program.run("todos", input: input, arguments: ["--file", path])
    #expect(output.status == 1)
    #expect(
      output.standardError == """
        error: there is no item 7; valid numbers: 1-1
        error: unknown command 'frobnicate'; valid here: \(TodosCommand.usage(on: .list))
        error: unknown command '\u{FFFD}\u{FFFD}'; valid here: \(TodosCommand.usage(on: .list))
        error: nothing to undo: no item was deleted

        """)
    // The good lines still ran and were saved.
    #expect(
      try TodoFile.decode(Data(contentsOf: URL(fileURLWithPath: path)), path: path).map(\.title)
        == ["A", "B"])
  }

  @Test func aCorruptFileIsReportedAndKept() throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    let corrupt = Data(#"{"version": 1, "todos": [{"title": 3}]}"#.utf8)
    try corrupt.write(to: URL(fileURLWithPath: path))
    let output = try run("add A\n")
    #expect(output.status == 1)
    #expect(output.standardOutput == "")
    #expect(output.standardError.hasPrefix("error: \(path) is not a valid to-do list: "))
    #expect(output.standardError.contains("The file was left untouched."))
    #expect(output.standardError.contains("--file PATH or TODOS_FILE"))
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == corrupt)
  }

  @Test func theFileCanComeFromTheEnvironment() throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    let output = try Program.run(
      "todos", input: Data("add From the environment\n".utf8), arguments: [],
      environment: ["TODOS_FILE": path])
    #expect(output.status == 0)
    #expect(
      try TodoFile.decode(Data(contentsOf: URL(fileURLWithPath: path)), path: path).map(\.title)
        == ["From the environment"])
  }

  @Test func helpAndUsage() throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    let help = try run("help\n")
    #expect(help.standardOutput.contains("move N M         move item N to position M"))
    let usage = try run("", arguments: ["--help"])
    #expect(usage.status == 0)
    #expect(usage.standardOutput.hasPrefix("usage: todos [--file PATH]"))
    #expect(usage.standardOutput.contains("~/.todos.json"))
    let bad = try run("", arguments: ["--bogus"])
    #expect(bad.status == 2)
    #expect(bad.standardError == "error: unknown argument '--bogus'; try --help\n")
    #expect(!FileManager.default.fileExists(atPath: path))
  }
}
