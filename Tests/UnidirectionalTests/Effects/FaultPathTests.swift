import Testing
import Unidirectional
import UnidirectionalTestSupport

/// The fault paths of the reliability issue, each in one place: effects that throw (in a child,
/// inside a merge, after cancellation), issue handlers and observers that send, observers that
/// cancel themselves or others, and child stores whose root is no longer referenced.
///
/// Where a fault is reported, it goes to the root store's `onIssue` handler (DESIGN.md); nothing
/// here may crash or stop the store from reducing the next action.
@Suite struct FaultPathTests {
  struct Failure: Error {}

  struct Row: Reducer {
    struct State: Identifiable, Equatable, Sendable {
      let id: Int
      var count = 0
    }
    enum Action: Equatable, Sendable {
      case increment
      case failLater
      case failAfterCancellation
      case failBesideASibling
      case siblingFinished
    }
    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .increment:
        state.count += 1
        return .none
      case .failLater:
        return .run { _ in throw Failure() }
      case .failAfterCancellation:
        return .run { send in
          await waitForCancellation()
          // Both are dropped: the error because the effect was cancelled, the action too.
          await send(.increment)
          throw Failure()
        }
        .cancellable(id: "failing")
      case .failBesideASibling:
        return .merge(
          .run { _ in throw Failure() },
          .run { send in await send(.siblingFinished) }
        )
      case .siblingFinished:
        state.count += 100
        return .none
      }
    }
  }

  struct Parent: Reducer {
    struct State: Equatable, Sendable {
      var rows: IdentifiedArray<Row.State> = [Row.State(id: 1), Row.State(id: 2)]
      var issuesSeen = 0
    }
    enum Action: Sendable {
      case row(id: Int, action: Row.Action)
      case cancelFailing
      case issueSeen
    }
    var body: some Reducer<State, Action> {
      Reduce { state, action in
        switch action {
        case .row: return .none
        case .cancelFailing: return .cancel(id: "failing")
        case .issueSeen:
          state.issuesSeen += 1
          return .none
        }
      }
      .forEach(\.rows, action: FaultPathTests.row) { Row() }
    }
  }

  static let row = CasePath<Parent.Action, (id: Int, action: Row.Action)>(Parent.Action.row) {
    if case .row(let id, let action) = $0 { (id, action) } else { nil }
  }

  let issues = Log<String>()

  func makeStore() -> Store<Parent.State, Parent.Action> {
    Store(initialState: Parent.State(), reducer: Parent()) { [issues] issue in
      issues.append(issue.description)
    }
  }

  @Test func aChildEffectThatThrowsIsReportedToTheRootAndTheStoreGoesOn() async {
    let store = makeStore()
    await store.send(.row(id: 1, action: .failLater)).finish()
    #expect(issues.values.count == 1)
    #expect(issues.values.first?.contains("FaultPathTests.swift") == true)
    #expect(issues.values.first?.contains("Failure") == true)
    store.send(.row(id: 1, action: .increment))
    #expect(store.rows[id: 1]?.count == 1)
  }

  @Test func aThrowInsideAMergeDoesNotStopItsSiblings() async {
    let store = makeStore()
    await store.send(.row(id: 2, action: .failBesideASibling)).finish()
    #expect(issues.values.count == 1)
    #expect(store.rows[id: 2]?.count == 100)
  }

  @Test(.timeLimit(.minutes(1)))
  func anEffectCancelledMidFlightDropsItsErrorAndItsActions() async {
    let store = makeStore()
    let task = store.send(.row(id: 1, action: .failAfterCancellation))
    store.send(.cancelFailing)
    await task.finish()
    #expect(issues.values.isEmpty)
    #expect(store.rows[id: 1]?.count == 0)
  }

  @Test func theIssueHandlerMaySendToTheStore() async {
    // The handler runs while the store is mid-send (for an action without state) or on an
    // effect's task (for a throw); either way its send is queued behind the current action.
    let box = Locked<Store<Parent.State, Parent.Action>?>(nil)
    let store = Store(initialState: Parent.State(), reducer: Parent()) { _ in
      box.withLock { $0 }?.send(.issueSeen)
    }
    box.withLock { $0 = store }
    defer { box.withLock { $0 = nil } }

    store.send(.row(id: 99, action: .increment))
    #expect(store.issuesSeen == 1)
    // The handler ran on the effect's task, so it has sent by the time the effect finished.
    await store.send(.row(id: 1, action: .failLater)).finish()
    #expect(store.issuesSeen == 2)
  }

  @Test func anObserverThatSendsAndThenCancelsItself() {
    let store = makeStore()
    let runs = Log<Int>()
    let token = Locked<ObservationToken?>(nil)
    token.withLock { slot in
      slot = store.observe {
        let count = store.rows[id: 1]?.count ?? 0
        runs.append(count)
        if count == 1 {
          store.send(.row(id: 1, action: .increment))
          token.withLock { $0 }?.cancel()
        }
      }
    }
    store.send(.row(id: 1, action: .increment))
    // The queued send was reduced; the cancelled observer did not see its result.
    #expect(store.rows[id: 1]?.count == 2)
    #expect(runs.values == [0, 1])
  }

  @Test func anObserverThatCancelsEveryObserverIncludingItself() {
    let store = makeStore()
    let runs = Log<String>()
    let tokens = Locked<[ObservationToken]>([])
    weak var releasedLater: Sentinel?
    do {
      let sentinel = Sentinel()
      releasedLater = sentinel
      let first = store.observe {
        runs.append("first \(store.rows[id: 1]?.count ?? 0)")
        if store.rows[id: 1]?.count == 1 {
          for token in tokens.withLock({ $0 }) { token.cancel() }
        }
      }
      let second = store.observe {
        withExtendedLifetime(sentinel) {}
        runs.append("second \(store.rows[id: 1]?.count ?? 0)")
      }
      tokens.withLock { $0 = [first, second] }
    }
    runs.removeAll()
    store.send(.row(id: 1, action: .increment))
    store.send(.row(id: 1, action: .increment))
    // The first ran and cancelled both, so the second did not run for that action, and
    // neither runs again; the cancelled closures are released though the tokens still exist.
    #expect(runs.values == ["first 1"])
    #expect(releasedLater == nil)
    withExtendedLifetime(tokens) {}
  }

  @Test func aChildStoreKeepsWorkingAfterTheRootReferenceIsDropped() throws {
    var root: Store<Parent.State, Parent.Action>? = makeStore()
    weak let weakRoot = root
    let row = try #require(root?.scope(state: \.rows, id: 1) { .row(id: 1, action: $0) })
    root = nil
    // A child store owns its path to the root: sends still reduce through the root's reducer.
    #expect(weakRoot != nil)
    row.send(.increment)
    #expect(row.count == 1)
    #expect(issues.values.isEmpty)
  }

  final class Sentinel: Sendable {}
}
