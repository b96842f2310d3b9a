import Foundation
import Synchronization
import Testing
import Unidirectional
import UnidirectionalTesting

@Test func fact() async {
  let store = TestStore(initialState: Counter.State()) {
    Counter()
  } withDependencies: {
    $0.numberFact = NumberFact { "\($0) is a good number." }
  }
  store.observe("count label") { store in _ = store.count }
  store.observe("fact label") { store in _ = store.fact }

  await store.send(.increment, fires: ["count label"]) { $0.count = 1 }
  await store.send(.factButtonTapped) { $0.isFactRequestInFlight = true }
  await store.receive(.factResponse("1 is a good number."), fires: ["fact label"]) {
    $0.isFactRequestInFlight = false
    $0.fact = "1 is a good number."
  }
  await store.finish()
}

// The code of README.md, compiled and run. Every ```swift block of the README appears in this
// file line for line (up to indentation); `DocumentationSnippetTests` checks it. Change both
// together. (The README's test comes first: its imports are this file's.)

struct Counter: Reducer {
  struct State: Equatable, Sendable {
    var count = 0
    var fact: String?
    var isFactRequestInFlight = false
  }

  enum Action: Equatable, Sendable {
    case increment, decrement, factButtonTapped
    case factResponse(String)
  }

  @Dependency(\.numberFact) var numberFact

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .increment:
      state.count += 1
      return .none
    case .decrement:
      state.count -= 1
      return .none
    case .factButtonTapped:
      state.isFactRequestInFlight = true
      return .run { [count = state.count] send in
        await send(.factResponse(try await numberFact.fetch(count)))
      }
    case .factResponse(let fact):
      state.isFactRequestInFlight = false
      state.fact = fact
      return .none
    }
  }
}

// The fact comes from a dependency, so that tests can replace it.
struct NumberFact: Sendable {
  var fetch: @Sendable (Int) async throws -> String
}

extension NumberFact: DependencyKey {
  static let liveValue = NumberFact { "\($0) is \($0.isMultiple(of: 2) ? "even" : "odd")." }
}

extension DependencyValues {
  var numberFact: NumberFact {
    get { self[NumberFact.self] }
    set { self[NumberFact.self] = newValue }
  }
}

// MARK: Composition

/// A child the README's `App` scopes to.
struct Login: Reducer {
  struct State: Equatable, Sendable {
    var email = ""
  }
  enum Action: Equatable, Sendable {
    case emailChanged(String)
  }
  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .emailChanged(let email): state.email = email
    }
    return .none
  }
}

/// The README's rows.
struct Row: Reducer {
  struct State: Equatable, Sendable, Identifiable {
    let id: Int
    var isDone = false
  }
  enum Action: Equatable, Sendable {
    case toggle
  }
  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    state.isDone.toggle()
    return .none
  }
}

extension CasePath<App.Action, Login.Action> {
  static var login: Self { .case(App.Action.login) }
}

struct App: Reducer {
  struct State: Equatable, Sendable {
    var login = Login.State()
    var detail: Counter.State?
    var rows: IdentifiedArray<Row.State> = []
  }

  enum Action: Equatable, Sendable {
    case login(Login.Action)
    case detail(Counter.Action)
    case rows(IdentifiedActionOf<Row>)
    case detailTapped
  }

  var body: some Reducer<State, Action> {
    Scope(state: \.login, action: .login) { Login() }  // a child at a key path
    Reduce { state, action in
      if action == .detailTapped { state.detail = Counter.State() }
      return .none
    }
    .ifLet(\.detail, action: .case(Action.detail)) { Counter() }  // an optional child
    .forEach(\.rows, action: .case(Action.rows)) { Row() }  // an IdentifiedArray of children
  }
}

/// The README's names that would clash with the test module's.
enum READMESnippets {
  /// The lines printed in a test.
  final class Output: Sendable {
    let lines = Mutex<[String]>([])
  }

  /// What the README's `print` calls write in the current test.
  @TaskLocal static var output: Output?

  /// Stands for `Swift.print` in the README's code: the line goes to the test's `output`.
  static func print(_ items: Any...) {
    let line = items.map { "\($0)" }.joined(separator: " ")
    output?.lines.withLock { $0.append(line) }
  }
}

extension READMESnippets {
  @Suite struct Tests {
    @Test func theStoreAndItsObserver() async {
      let output = Output()
      await READMESnippets.$output.withValue(output) {
        let store = Store(initialState: Counter.State()) { Counter() }

        // Runs now, and again only when `count` changes: `fact` changing does not
        // re-run it. Keep the token: the observer stops when it goes away (`_ = token`
        // does not keep it alive in optimized builds).
        let token = store.observe {
          print("count:", store.count)
        }

        store.send(.increment)  // prints "count: 1"
        await store.send(.factButtonTapped).finish()  // waits for the effect; prints nothing
        print(store.fact ?? "")  // prints "1 is odd."
        withExtendedLifetime(token) {}
      }
      #expect(output.lines.withLock { $0 } == ["count: 0", "count: 1", "1 is odd."])
    }

    @Test func theAppRoutesToItsChildren() {
      let issues = Output()
      let store = Store(
        initialState: App.State(rows: [Row.State(id: 1), Row.State(id: 2)]), reducer: App(),
        onIssue: { issue in issues.lines.withLock { $0.append(issue.description) } })
      store.send(.login(.emailChanged("blob@example.com")))
      store.send(.detail(.increment))  // no detail yet: ignored, and reported
      store.send(.detailTapped)
      store.send(.detail(.increment))
      store.send(.rows(.element(id: 2, action: .toggle)))
      #expect(store.login.email == "blob@example.com")
      #expect(store.detail?.count == 1)
      #expect(issues.lines.withLock { $0.count } == 1)
      #expect(store.rows.elementsArray.map(\.isDone) == [false, true])

      let login = store.scope(state: \.login, action: App.Action.login)
      login.send(.emailChanged("ann@example.com"))
      #expect(store.login.email == "ann@example.com")
      let row = store.scope(state: \.rows, id: 1) { .rows(.element(id: 1, action: $0)) }
      row?.send(.toggle)
      #expect(store.rows[id: 1]?.isDone == true)
    }

    @Test func theREADMEShowsTheFailureATestGets() async throws {
      let failures = await recordedFailures {
        let store = TestStore(initialState: Counter.State(count: 1)) { Counter() }
        await store.send(.increment) { $0.count = 2 }
        await store.send(.decrement) { $0.count = 2 }
      }
      let readme = try String(
        contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
          .appendingPathComponent("../../README.md").standardizedFileURL,
        encoding: .utf8)
      #expect(failures.count == 1)
      #expect(readme.contains("```\n\(failures.first?.message ?? "?")\n```"))
    }
  }
}
