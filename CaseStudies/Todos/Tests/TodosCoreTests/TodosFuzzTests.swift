import Foundation
import Testing
import TodosCore
import Unidirectional
import UnidirectionalTestSupport

/// Random lines, as the program handles them: nothing crashes, every refused line gets one
/// short message and changes nothing, and the list stays valid.
@Suite struct TodosFuzzTests {
  static let vocabulary = [
    "add Buy milk", "add Call Ann", "add", "add   ", "add " + String(repeating: "x", count: 81),
    "done 1", "done 2", "done 9", "done", "done x", "reopen 1", "reopen 2", "delete 1",
    "delete 2", "delete 0", "undo", "undo 1", "move 1 2", "move 2 1", "move 1", "move 1 1",
    "move a b", "filter all", "filter active", "filter completed", "filter", "filter done",
    "show", "help", "", "  ", "back", "quit", "frobnicate",
    // The editor and the modes.
    "edit 1", "edit 2", "edit", "open 1", "open 2", "open", "tags", "tag home", "tag Work",
    "tag bad_tag", "tag", "untag home", "untag", "title New title", "title", "title  ",
    "title " + String(repeating: "y", count: 90), "save", "cancel", "done", "reopen", "delete",
    "back", "back", "back",
  ]

  /// A random line: mostly from the vocabulary, sometimes noise.
  static func line(using random: inout SplitMix64) -> String {
    switch Int.random(in: 0..<10, using: &random) {
    case 0:
      let alphabet = Array("adonemvfilt 0123456789-\t\u{0}é\u{FFFD}🙂")
      let length = Int.random(in: 0..<40, using: &random)
      return String((0..<length).map { _ in alphabet.randomElement(using: &random)! })
    default:
      return vocabulary.randomElement(using: &random)!
    }
  }

  @Test func fiveThousandRandomLines() async {
    var random = SplitMix64(seed: 14)
    let clock = TestClock()
    let storage = SharedStorage()
    let store = withDependencies {
      $0.continuousClock = clock
      $0.uuid = .incrementing
      $0.sharedStorage = storage
    } operation: {
      // On a test executor the clock drains: an undo window that ends is reduced before
      // `advance` returns, never while a later line is checked.
      Store(initialState: stateWithFile([]), effectExecutor: TestExecutor()) { Todos() }
    }
    var refused = 0
    for step in 0..<5_000 {
      // Time passes now and then, so undos expire.
      if Int.random(in: 0..<20, using: &random) == 0 { await clock.advance(by: .seconds(3)) }
      let line = Self.line(using: &random)
      let before = store.state
      switch TodosCommand(line, state: before) {
      case .send(let action):
        // As in the program: a delete's undo timer runs on (the clock moves it).
        let task = store.send(action)
        if case .deleteTapped = action {} else { await task.finish() }
      case .invalid(let message):
        refused += 1
        #expect(!message.isEmpty && !message.contains("\n") && message.count < 300, "\(message)")
        #expect(store.state == before, "line \(step) \(line.debugDescription) changed the state")
      case .show, .help, .quit, .nothing:
        break
      }
      let state = store.state
      if let bad = state.todos.first(where: { Title.problem(with: $0.title) != nil }) {
        Issue.record("step \(step), line \(line.debugDescription): invalid item \(bad)")
        return
      }
      // Modes and the editor are about items that exist.
      if !state.path.allSatisfy({ state.todos.contains(id: $0.todoID) })
        || state.editor.map({ !state.todos.contains(id: $0.id) }) == true
      {
        Issue.record("step \(step), line \(line.debugDescription): a mode outlived its item")
        return
      }
    }
    #expect(refused > 1_000)
    // Every save was of a valid list, and the last one is the list.
    await store.send(.exiting).finish()
    if let last = await savedList(in: storage) { #expect(last == store.state.todos) }
  }

  @Test func theExecutablePrintsOneErrorLinePerRefusedLine() async throws {
    var random = SplitMix64(seed: 2026)
    // Without 'quit', so that the program reads every line.
    let lines = (0..<300).map { _ in Self.line(using: &random) }.filter { $0 != "quit" }
    // The same lines through the parser and a store with a clock that never moves (the program
    // reads them in well under the undo window), to count the lines it must refuse.
    let store = withDependencies {
      $0.continuousClock = TestClock()
      $0.uuid = .incrementing
      $0.sharedStorage = SharedStorage()
    } operation: {
      Store(initialState: Todos.State()) { Todos() }
    }
    var refused = 0
    lines: for line in lines {
      switch TodosCommand(line, state: store.state) {
      case .send(let action):
        // As in the program: every effect but a delete's undo timer ends before the next line.
        let task = store.send(action)
        if case .deleteTapped = action {} else { await task.finish() }
      case .invalid: refused += 1
      case .quit: break lines
      case .show, .help, .nothing: break
      }
    }

    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("todos-fuzz-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let output = try Program.run(
      "todos", input: Data((lines.joined(separator: "\n") + "\n").utf8),
      arguments: ["--file", directory.appendingPathComponent("t.json").path])
    let errors = output.standardError.split(separator: "\n", omittingEmptySubsequences: false)
      .dropLast()
    #expect(errors.count == refused)
    #expect(errors.allSatisfy { $0.hasPrefix("error: ") })
    #expect(output.status == (refused > 0 ? 1 : 0))
  }
}
