import Foundation
import Testing
import Unidirectional
import UnidirectionalTestSupport
import UnidirectionalTesting

// The code of the article "Dependencies" (Unidirectional.docc/Dependencies.md), compiled and run.
// Every ```swift block of the article appears here line for line (up to indentation);
// `DocumentationSnippetTests` checks it. Change both together.

struct Quotes: Sendable {
  var random: @Sendable () async throws -> String
}

extension Quotes: DependencyKey {
  static let liveValue = Quotes {
    ["Less is more.", "Make it work, make it right, make it fast."].randomElement()!
  }
  static let testValue = Quotes { "Test quote." }
}

extension DependencyValues {
  var quotes: Quotes {
    get { self[Quotes.self] }
    set { self[Quotes.self] = newValue }
  }
}

/// The article's names, kept apart from other tests' features.
enum DependenciesArticle {
  /// What the article's `print` calls write in the current test.
  @TaskLocal static var output: Log<String>?

  /// Stands for `Swift.print` in the article's code: the line goes to the test's `output`.
  static func print(_ items: Any...) {
    output?.append(items.map { "\($0)" }.joined(separator: " "))
  }

  struct Journal: Reducer {
    struct Entry: Equatable, Sendable, Identifiable {
      let id: UUID
      var text: String
      var date: Date
    }

    struct State: Equatable, Sendable {
      var entries: IdentifiedArray<Entry> = []
      var quote: String?
    }

    enum Action: Equatable, Sendable {
      case addTapped(String)
      case quoteRequested
      case quoteLoaded(String)
    }

    @Dependency(\.uuid) var uuid
    @Dependency(\.date) var date
    @Dependency(\.quotes) var quotes

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .addTapped(let text):
        state.entries.append(Entry(id: uuid(), text: text, date: date.now))
        return .none
      case .quoteRequested:
        return .run { send in
          await send(.quoteLoaded(try await quotes.random()))
        }
      case .quoteLoaded(let quote):
        state.quote = quote
        return .none
      }
    }
  }
}

extension DependenciesArticle {
  @Suite struct Tests {
    @Test func aStoreKeepsTheDependenciesOfItsCreation() async {
      let output = Log<String>()
      await DependenciesArticle.$output.withValue(output) {
        let store = withDependencies {
          $0.uuid = .incrementing
          $0.date = .constant(Date(timeIntervalSince1970: 0))
          $0.quotes = Quotes { "Stay a while." }
        } operation: {
          Store(initialState: Journal.State()) { Journal() }
        }
        store.send(.addTapped("First day"))
        print(store.entries[0].id)  // 00000000-0000-0000-0000-000000000000
        await store.send(.quoteRequested).finish()
        print(store.quote ?? "")  // Stay a while.
        #expect(store.entries[0].date == Date(timeIntervalSince1970: 0))
      }
      #expect(output.values == ["00000000-0000-0000-0000-000000000000", "Stay a while."])
    }

    @Test func aReducerCanChangeADependencyForItself() async {
      let calm = Journal()
        .dependency(\.quotes, Quotes { "Breathe." })
      let dated = Journal()
        .transformDependency(\.date) { date in
          date = .constant(Date(timeIntervalSince1970: 86_400))
        }

      let calmStore = Store(initialState: Journal.State()) { calm }
      await calmStore.send(.quoteRequested).finish()
      #expect(calmStore.quote == "Breathe.")

      let datedStore = withDependencies {
        $0.uuid = .incrementing
      } operation: {
        Store(initialState: Journal.State()) { dated }
      }
      datedStore.send(.addTapped("Tomorrow"))
      #expect(datedStore.entries.elementsArray.map(\.date) == [Date(timeIntervalSince1970: 86_400)])
    }

    @Test func addingAnEntryAndAQuote() async {
      let store = TestStore(initialState: Journal.State()) {
        Journal()
      } withDependencies: {
        $0.uuid = .incrementing
        $0.date = .constant(Date(timeIntervalSince1970: 0))
      }

      await store.send(.addTapped("First day")) {
        $0.entries.append(
          Journal.Entry(
            id: UUID(uuidString: "00000000-0000-0000-0000-000000000000")!,
            text: "First day", date: Date(timeIntervalSince1970: 0)))
      }
      await store.send(.quoteRequested)
      await store.receive(.quoteLoaded("Test quote.")) { $0.quote = "Test quote." }
      await store.finish()
    }

    @Test func aBuiltInWithoutATestValueFailsTheTestNamingIt() async {
      let failures = await recordedFailures {
        let store = TestStore(initialState: Journal.State()) { Journal() }
        await store.send(.addTapped("No uuid set")) {
          $0.entries = store.state.entries
        }
      }
      #expect(failures.contains { $0.message.contains("'UUIDGeneratorKey'") })
    }
  }
}
