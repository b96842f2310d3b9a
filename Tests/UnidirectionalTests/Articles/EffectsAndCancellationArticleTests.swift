import Testing
import Unidirectional
import UnidirectionalTestSupport

// The code of the article "Effects and cancellation"
// (Unidirectional.docc/EffectsAndCancellation.md), compiled and run. Every ```swift block of the
// article appears here line for line (up to indentation); `DocumentationSnippetTests` checks
// it. Change both together.

/// The article's names, kept apart from other tests' features.
enum EffectsArticle {
  /// What the article's `print` calls write in the current test.
  @TaskLocal static var output: Log<String>?

  /// Stands for `Swift.print` in the article's code: the line goes to the test's `output`.
  static func print(_ items: Any...) {
    output?.append(items.map { "\($0)" }.joined(separator: " "))
  }

  struct Search: Reducer {
    struct State: Equatable, Sendable {
      var query = ""
      var results: [String] = []
      var error: String?
    }

    enum Action: Equatable, Sendable {
      case queryChanged(String)
      case resultsLoaded([String])
      case searchFailed(String)
      case cancelTapped
    }

    enum CancelID: Hashable, Sendable {
      case search
    }

    let search: @Sendable (String) async throws -> [String]
    @Dependency(\.continuousClock) var clock

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .queryChanged(let query):
        state.query = query
        return .run { send in
          await send(.resultsLoaded(try await search(query)))
        } catch: { error, send in
          await send(.searchFailed("\(error)"))
        }
        .debounce(id: CancelID.search, for: .milliseconds(300), clock: clock)

      case .resultsLoaded(let results):
        state.results = results
        state.error = nil
        return .none

      case .searchFailed(let message):
        state.error = message
        return .none

      case .cancelTapped:
        return .cancel(id: CancelID.search)
      }
    }
  }
}

extension EffectsArticle {
  @Suite struct Tests {
    @Test func aConcatenationSendsInOrderAroundItsMergedPart() async {
      enum Step: Equatable, Sendable {
        case started, uploaded(String), finished
      }

      let upload: Effect<Step> = .concatenate(
        .send(.started),
        .merge(
          .run { send in await send(.uploaded("a.txt")) },
          .run { send in await send(.uploaded("b.txt")) }
        ),
        .send(.finished)
      )

      // Any action but `nil` is recorded; `nil` starts the upload.
      let store = Store(initialState: [Step]()) {
        Reduce<[Step], Step?> { steps, step in
          guard let step else { return upload.map { $0 } }
          steps.append(step)
          return .none
        }
      }
      await store.send(nil).finish()
      let steps = store.state
      #expect(steps.count == 4)
      #expect(steps.first == .started)
      #expect(steps.last == .finished)
      #expect(Set(steps.dropFirst().dropLast().map { "\($0)" }).count == 2)
      #expect(steps.contains(.uploaded("a.txt")) && steps.contains(.uploaded("b.txt")))
    }

    @Test func finishWaitsAndCancelStops() async {
      let clock = TestClock()
      let output = Log<String>()
      // The article's store uses the live clock and the global executor; here a test clock is
      // advanced as soon as the first search sleeps, and never again, so the cancelled one
      // cannot run by accident.
      let driver = Task {
        // wall-clock: a failure bound of 10 s; a passing run stops looking once the search
        // sleeps.
        let deadline = ContinuousClock.now.advanced(by: .seconds(10))
        while clock.sleeperCount < 1, ContinuousClock.now < deadline { await Task.yield() }
        await clock.advance(by: .milliseconds(300))
      }
      await EffectsArticle.$output.withValue(output) {
        await withDependencies {
          $0.continuousClock = clock
        } operation: {
          let store = Store(initialState: Search.State()) {
            Search(search: { query in ["\(query) 1", "\(query) 2"] })
          }
          await store.send(.queryChanged("swift")).finish()
          print(store.results)  // ["swift 1", "swift 2"], 300 ms later

          let typing = store.send(.queryChanged("swif"))
          typing.cancel()  // no search for "swif"

          await typing.finish()
          await clock.advance(by: .seconds(1))
          #expect(store.query == "swif")
          #expect(store.results == ["swift 1", "swift 2"])
        }
      }
      await driver.value
      #expect(output.values == [#"["swift 1", "swift 2"]"#])
    }

    @Test func pinningEffectsToATestExecutor() async {
      let clock = TestClock()
      await withDependencies {
        $0.continuousClock = clock
      } operation: {
        let executor = TestExecutor()
        let store = Store(initialState: Search.State(), effectExecutor: executor) {
          Search(search: { query in [query] })
        }
        let typing = store.send(.queryChanged("swift"))  // the search's task is queued, not running
        executor.drain()  // it runs until it sleeps on the clock
        #expect(clock.sleeperCount == 1)
        // The clock is among the store's dependencies: it drains the executor as it advances.
        await clock.advance(by: .milliseconds(300))
        #expect(store.results == ["swift"])
        await typing.finish()
      }
    }

    @Test func cancelTappedCancelsTheSearch() async {
      let clock = TestClock()
      let searched = Log<String>()
      let store = withDependencies {
        $0.continuousClock = clock
      } operation: {
        Store(initialState: Search.State()) {
          Search(search: { query in
            searched.append(query)
            return [query]
          })
        }
      }
      store.send(.queryChanged("a"))
      store.send(.queryChanged("ab"))
      store.send(.cancelTapped)
      await clock.advance(by: .seconds(1))
      #expect(searched.values.isEmpty)
      #expect(store.results.isEmpty)
    }

    @Test func aThrownErrorGoesToTheCatchHandler() async {
      struct Offline: Error {}
      let store = withDependencies {
        $0.continuousClock = ImmediateClock()
      } operation: {
        Store(initialState: Search.State()) { Search(search: { _ in throw Offline() }) }
      }
      await store.send(.queryChanged("x")).finish()
      #expect(store.error == "Offline()")
    }

    @Test func anUncaughtErrorGoesToOnIssue() async {
      let output = Log<String>()
      await EffectsArticle.$output.withValue(output) {
        struct Offline: Error {}

        let store = Store(
          initialState: Search.State(),
          reducer: Reduce<Search.State, Search.Action> { state, action in
            .run { _ in throw Offline() }
          },
          onIssue: { issue in print("effect failed:", issue) }
        )
        await store.send(.cancelTapped).finish()
        // effect failed: Unidirectional: an effect created at … threw an error that no 'catch:'
        // handled: MyApp.Offline()
      }
      #expect(output.values.count == 1)
      #expect(
        output.values.first?.hasPrefix("effect failed: Unidirectional: an effect created at ")
          == true)
      // `String(reflecting:)` names the error with its module and context.
      #expect(output.values.first?.contains("threw an error that no 'catch:' handled: ") == true)
      #expect(output.values.first?.hasSuffix(".Offline()") == true)
    }

    @Test func aThrottledEffectRunsAtOnceTheFirstTime() async {
      let refresh = withDependencies {
        $0.continuousClock = ImmediateClock()
      } operation: {
        @Dependency(\.continuousClock) var clock
        let refresh: Effect<Search.Action> = .run { send in
          await send(.resultsLoaded(["fresh"]))
        }
        .throttle(id: "refresh", for: .seconds(10), clock: clock, latest: true)
        return refresh
      }

      let store = Store(initialState: Search.State()) {
        Reduce<Search.State, Search.Action> { state, action in
          switch action {
          case .cancelTapped: return refresh
          case .resultsLoaded(let results): state.results = results
          default: break
          }
          return .none
        }
      }
      await store.send(.cancelTapped).finish()
      #expect(store.results == ["fresh"])
    }
  }
}
