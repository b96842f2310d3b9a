import Foundation
import Synchronization
import Testing
import Unidirectional
import UnidirectionalTestSupport

private struct Greeting: DependencyKey {
  static let liveValue = "live hello"
  static let testValue = "test hello"
}

private struct Untested: DependencyKey {
  static let liveValue = 7
}

extension DependencyValues {
  fileprivate var greeting: String {
    get { self[Greeting.self] }
    set { self[Greeting.self] = newValue }
  }
  fileprivate var untested: Int {
    get { self[Untested.self] }
    set { self[Untested.self] = newValue }
  }
}

/// Records what the reducer and its effect saw of the dependencies.
private struct Reader: Reducer {
  @Dependency(\.greeting) var greeting
  @Dependency(\.date) var date

  func reduce(into state: inout [String], action: String) -> Effect<String> {
    switch action {
    case "read":
      state.append("reducer: \(greeting)")
      return .run { [greeting = _greeting] send in
        await send("effect: \(greeting.wrappedValue)")
      }
    case "scoped":
      // An override made inside the reducer, around the effect it returns.
      return withDependencies {
        $0.greeting = "scoped hello"
      } operation: {
        .run { send in
          @Dependency(\.greeting) var greeting
          await send("effect: \(greeting)")
        }
      }
    case "date":
      state.append("date: \(date.now.timeIntervalSince1970)")
      return .none
    default:
      state.append(action)
      return .none
    }
  }
}

@Suite struct DependencyTests {
  @Test func liveValueByDefault() {
    @Dependency(\.greeting) var greeting
    #expect(greeting == "live hello")
  }

  @Test func withDependenciesOverridesForTheScopeOnly() {
    @Dependency(\.greeting) var greeting
    withDependencies {
      $0.greeting = "outer"
    } operation: {
      #expect(greeting == "outer")
      withDependencies {
        $0.greeting = "inner"
      } operation: {
        #expect(greeting == "inner")
      }
      #expect(greeting == "outer")
    }
    #expect(greeting == "live hello")
  }

  @Test func testContextUsesTestValues() {
    @Dependency(\.greeting) var greeting
    withDependencies {
      $0.context = .test
    } operation: {
      #expect(greeting == "test hello")
    }
  }

  @Test func aMissingTestValueIsReportedNamingTheKey() {
    let reports = Log<String>()
    @Dependency(\.untested) var untested
    withDependencies {
      $0.context = .test
      $0.reportIssue = { reports.append($0) }
    } operation: {
      #expect(untested == 7)  // Falls back to the live value...
    }
    #expect(reports.values.count == 1)  // ...and says so.
    #expect(reports.values.first?.contains("Untested") == true)
  }

  @Test func aStoreUsesTheDependenciesInForceWhenItWasCreated() async {
    let store = withDependencies {
      $0.greeting = "captured"
    } operation: {
      Store(initialState: [String]()) { Reader() }
    }
    await store.send("read").finish()
    #expect(store.state == ["reducer: captured", "effect: captured"])
  }

  @Test func anOverrideInsideTheReducerReachesTheEffectCreatedThere() async {
    let store = Store(initialState: [String]()) { Reader() }
    await store.send("scoped").finish()
    #expect(store.state == ["effect: scoped hello"])
    // And a store with overridden dependencies of its own: the inner override still wins.
    let captured = withDependencies {
      $0.greeting = "captured"
    } operation: {
      Store(initialState: [String]()) { Reader() }
    }
    await captured.send("scoped").finish()
    #expect(captured.state == ["effect: scoped hello"])
  }

  @Test func aDefaultStoreIgnoresOverridesInForceWhereItIsSent() async {
    let store = Store(initialState: [String]()) { Reader() }
    await withDependencies {
      $0.greeting = "sender's"
    } operation: {
      await store.send("read").finish()
    }
    #expect(store.state == ["reducer: live hello", "effect: live hello"])
  }

  @Test func aStoreKeepsTheIssueReporterInForceWhenItWasCreated() async {
    // `reportIssue` is a plain property, not a key: overriding it alone must still make the
    // store bind its dependencies around its effects.
    let issues = Mutex<[String]>([])
    let store = withDependencies {
      $0.reportIssue = { message in issues.withLock { $0.append(message) } }
    } operation: {
      Store(initialState: 0) {
        Reduce<Int, Bool> { _, _ in
          .run { _ in DependencyValues.current.reportIssue("from the effect") }
        }
      }
    }
    await store.send(true).finish()
    #expect(issues.withLock { $0 } == ["from the effect"])
  }

  @Test func dateGenerator() {
    let store = withDependencies {
      $0.date = .constant(Date(timeIntervalSince1970: 42))
    } operation: {
      Store(initialState: [String]()) { Reader() }
    }
    store.send("date")
    #expect(store.state == ["date: 42.0"])
  }

  @Test func incrementingUUIDs() {
    let uuid = UUIDGenerator.incrementing
    #expect(uuid().uuidString == "00000000-0000-0000-0000-000000000000")
    #expect(uuid().uuidString == "00000000-0000-0000-0000-000000000001")
    let other = UUIDGenerator.incrementing
    #expect(other().uuidString == "00000000-0000-0000-0000-000000000000")
  }

  @Test func seededRandomNumbersAreReproducible() {
    struct LCG: RandomNumberGenerator, Sendable {
      var state: UInt64
      mutating func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state
      }
    }
    let first = WithRandomNumberGenerator(LCG(state: 1))
    let second = WithRandomNumberGenerator(LCG(state: 1))
    let a = (0..<5).map { _ in first { Int.random(in: 0..<1000, using: &$0) } }
    let b = (0..<5).map { _ in second { Int.random(in: 0..<1000, using: &$0) } }
    #expect(a == b)
  }
}
