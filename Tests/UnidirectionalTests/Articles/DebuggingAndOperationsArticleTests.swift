import Foundation
import Testing
import Unidirectional
import UnidirectionalTestSupport

// The code of the article "Debugging and operations"
// (Unidirectional.docc/DebuggingAndOperations.md), compiled and run. Every ```swift block of the
// article appears here line for line (up to indentation); `DocumentationSnippetTests` checks
// it. Change both together.

/// The article's names, kept apart from other tests' features.
enum DebuggingArticle {
  struct Counter: Reducer {
    struct State: Equatable, Sendable {
      var count = 0
    }
    enum Action: Codable, Equatable, Sendable {
      case increment, decrement
    }
    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .increment: state.count += 1
      case .decrement: state.count -= 1
      }
      return .none
    }
  }

  struct Editor: Reducer {
    struct State: Equatable, Sendable {
      var text = ""
      var isSaved = true
    }
    enum Action: Equatable, Sendable {
      case edit(String), save
    }
    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .edit(let text):
        state.text = text
        state.isSaved = false
      case .save:
        state.isSaved = true
      }
      return .none
    }
  }

  /// Stands for the article's database: it keeps what it was asked to save.
  final class Database: Sendable {
    let saved = Log<Editor.State>()
    func save(_ state: Editor.State) { saved.append(state) }
  }
}

extension DebuggingArticle {
  @Suite struct Tests {
    @Test func printChangesWrapsTheReducer() {
      // The article's store prints to standard error; it is made, and sent nothing, so that the
      // test output stays clean. The same reducer printing to a closure shows the format.
      let store = Store(initialState: Counter.State()) {
        Counter().printChanges()
      }
      #expect(store.count == 0)

      let printed = Log<String>()
      let printing = Store(initialState: Counter.State()) {
        Counter().printChanges(to: { printed.append($0) })
      }
      printing.send(.increment)
      #expect(printed.values.count == 1)
      #expect(printed.values.first?.hasPrefix("received action:\n") == true)
      #expect(printed.values.first?.contains("−   count: 0") == true)
      #expect(printed.values.first?.contains("+   count: 1") == true)
    }

    @Test func anInterceptorSeesEveryActionWithTheStatesAround() {
      let database = Database()
      let store = Store(
        initialState: Editor.State(), reducer: Editor(),
        interceptors: [
          StoreInterceptor(didReduce: { action, old, new in
            if old.isSaved != new.isSaved { database.save(new) }
          })
        ])
      store.send(.edit("Hello"))
      store.send(.edit("Hello, world"))
      store.send(.save)
      #expect(
        database.saved.values == [
          Editor.State(text: "Hello", isSaved: false),
          Editor.State(text: "Hello, world", isSaved: true),
        ])
    }

    @Test func aRecordedSessionReplaysToTheSameState() throws {
      let folder = FileManager.default.temporaryDirectory
        .appendingPathComponent("debugging-article-\(UUID().uuidString)")
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      defer { try? FileManager.default.removeItem(at: folder) }
      let path = folder.appendingPathComponent("session.jsonl").path

      let recorder = try ActionLogRecorder<Counter.Action>(path: path)
      let store = Store(
        initialState: Counter.State(), reducer: Counter(),
        interceptors: [recorder.interceptor()])
      store.send(.increment)
      store.send(.increment)

      // Later, or on another machine:
      let log = try ActionLog<Counter.Action>(path: path)
      let replay = Store(initialState: Counter.State()) { Counter().ignoringEffects() }
      log.replay(into: replay)

      #expect(recorder.recordedCount == 2)
      #expect(log.error == nil)
      #expect(log.entries.map(\.action) == [.increment, .increment])
      #expect(replay.state == store.state)
      #expect(replay.count == 2)
    }
  }
}
