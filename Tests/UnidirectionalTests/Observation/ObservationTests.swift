import Testing
import Unidirectional
import UnidirectionalTestSupport

struct Board: Reducer {
  struct State: Sendable {
    var title = "Board"
    var cells = Array(repeating: 0, count: 9)
    var flag = false
    var model = Model(name: "first")
    var opaque = Opaque(value: 0)
    var nested = Nested()
  }
  struct Nested: Equatable, Sendable {
    var a = 0
    var b = 0
  }
  enum Action: Sendable {
    case setCell(Int, Int)
    case setTitle(String)
    case setFlag(Bool)
    case replaceModel(Model)
    case setOpaque(Int)
    case setA(Int)
    case setB(Int)
    case noop
  }
  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .setCell(let index, let value): state.cells[index] = value
    case .setTitle(let title): state.title = title
    case .setFlag(let flag): state.flag = flag
    case .replaceModel(let model): state.model = model
    case .setOpaque(let value): state.opaque.value = value
    case .setA(let value): state.nested.a = value
    case .setB(let value): state.nested.b = value
    case .noop: break
    }
    return .none
  }
}

@Suite struct ObservationTests {
  let store = Store(initialState: Board.State()) { Board() }

  @Test func runsOnceNowAndAgainOnlyWhenAReadValueChanges() {
    let runs = Log<String>()
    let token = store.observe { runs.append(store.title) }
    #expect(runs.values == ["Board"])
    store.send(.setFlag(true))
    store.send(.setCell(0, 1))
    store.send(.noop)
    #expect(runs.values == ["Board"])
    store.send(.setTitle("New"))
    #expect(runs.values == ["Board", "New"])
    store.send(.setTitle("New"))  // Equal value: not a change.
    #expect(runs.values == ["Board", "New"])
    withExtendedLifetime(token) {}
  }

  @Test func elementPrecision() {
    let cell4 = Log<Int>()
    let cell3 = Log<Int>()
    let token4 = store.observe { cell4.append(store[\.cells[4]]) }
    let token3 = store.observe(\.cells[3]) { cell3.append($0) }
    store.send(.setCell(3, 1))
    store.send(.setCell(3, 2))
    #expect(cell4.values == [0])
    #expect(cell3.values == [0, 1, 2])
    store.send(.setCell(4, 9))
    #expect(cell4.values == [0, 9])
    #expect(cell3.values == [0, 1, 2])
    withExtendedLifetime((token3, token4)) {}
  }

  @Test func nestedStoredFieldPrecision() {
    let runs = Log<Int>()
    let token = store.observe(\.nested.a) { runs.append($0) }
    store.send(.setB(5))
    store.send(.setA(1))
    #expect(runs.values == [0, 1])
    withExtendedLifetime(token) {}
  }

  @Test func classValuesFireOnIdentityChangeOnly() {
    let names = Log<String>()
    let token = store.observe { names.append(store.model.name) }
    let same = store.model
    store.send(.replaceModel(same))
    #expect(names.values == ["first"])
    store.send(.replaceModel(Model(name: "first")))  // Same name, new instance.
    #expect(names.values == ["first", "first"])
    withExtendedLifetime(token) {}
  }

  @Test func nonEquatableValuesFireOnEveryAction() {
    let runs = Log<Int>()
    let token = store.observe { runs.append(store.opaque.value) }
    store.send(.noop)
    store.send(.setTitle("x"))
    #expect(runs.values == [0, 0, 0])
    withExtendedLifetime(token) {}
  }

  @Test func conditionalReadsAreRetrackedEveryRun() {
    let runs = Log<String>()
    let token = store.observe {
      if store.flag {
        runs.append("title \(store.title)")
      } else {
        runs.append("off")
      }
    }
    store.send(.setTitle("ignored while off"))
    #expect(runs.values == ["off"])
    store.send(.setFlag(true))
    store.send(.setTitle("seen"))
    #expect(runs.values == ["off", "title ignored while off", "title seen"])
    store.send(.setFlag(false))
    store.send(.setTitle("ignored again"))
    #expect(runs.values == ["off", "title ignored while off", "title seen", "off"])
    withExtendedLifetime(token) {}
  }

  @Test func firesAtMostOncePerActionAndSeesTheCommittedState() {
    let both = Store(initialState: Board.State()) {
      Reduce<Board.State, Board.Action> { state, _ in
        state.nested.a += 1
        state.nested.b += 1
        state.title = "changed"
        return .none
      }
    }
    let bothRuns = Log<String>()
    let bothToken = both.observe {
      bothRuns.append("\(both.nested.a) \(both.nested.b) \(both.title)")
    }
    both.send(.noop)
    #expect(bothRuns.values == ["0 0 Board", "1 1 changed"])
    withExtendedLifetime(bothToken) {}
  }

  @Test func firesInRegistrationOrder() {
    let order = Log<String>()
    let tokens = ["a", "b", "c", "d"].map { name in
      store.observe {
        // Observers read different subsets: order must still be registration order.
        if name == "b" || name == "d" { _ = store.title }
        if name != "b" { _ = store.cells }
        order.append(name)
      }
    }
    order.removeAll()
    store.send(.setCell(1, 1))
    #expect(order.values == ["a", "c", "d"])
    order.removeAll()
    store.send(.setTitle("t"))
    #expect(order.values == ["b", "d"])
    withExtendedLifetime(tokens) {}
  }

  @Test func observersRunOutsideTheLock() {
    // Reading and sending from an observer would deadlock if it ran under the lock.
    let seen = Log<Int>()
    let token = store.observe {
      let value = store[\.cells[0]]
      seen.append(value)
      if value == 1 { store.send(.setCell(0, 2)) }
    }
    store.send(.setCell(0, 1))
    #expect(seen.values == [0, 1, 2])
    withExtendedLifetime(token) {}
  }

  @Test func cancelStopsAtOnceAndReleasesTheClosure() {
    weak var weakCapture: Model?
    let runs = Log<Int>()
    var token: ObservationToken?
    do {
      let capture = Model(name: "captured")
      weakCapture = capture
      token = store.observe {
        _ = capture
        runs.append(store[\.cells[0]])
      }
    }
    #expect(weakCapture != nil)
    token?.cancel()
    #expect(token?.isCancelled == true)
    #expect(weakCapture == nil)
    store.send(.setCell(0, 1))
    #expect(runs.values == [0])
    token = nil
  }

  @Test func droppingTheTokenStopsAndReleases() {
    weak var weakCapture: Model?
    let runs = Log<Int>()
    do {
      let capture = Model(name: "captured")
      weakCapture = capture
      let token = store.observe {
        _ = capture
        runs.append(store[\.cells[0]])
      }
      store.send(.setCell(0, 1))
      withExtendedLifetime(token) {}
    }
    #expect(weakCapture == nil)
    store.send(.setCell(0, 2))
    #expect(runs.values == [0, 1])
  }

  @Test func anObserverCancelledByAnEarlierObserverDoesNotRun() {
    let runs = Log<String>()
    let second = Locked<ObservationToken?>(nil)
    let first = store.observe {
      runs.append("first")
      if store.flag { second.withLock { $0?.cancel() } }
    }
    second.withLock { token in
      token = store.observe {
        _ = store.flag
        runs.append("second")
      }
    }
    store.send(.setFlag(true))
    #expect(runs.values == ["first", "second", "first"])
    withExtendedLifetime(first) {}
  }

  @Test func anObserverMayCancelItself() {
    let runs = Log<Bool>()
    let token = Locked<ObservationToken?>(nil)
    token.withLock { token in
      token = store.observe {
        let flag = store.flag
        runs.append(flag)
      }
    }
    let canceller = store.observe {
      if store.flag { token.withLock { $0?.cancel() } }
    }
    store.send(.setFlag(true))
    store.send(.setFlag(false))
    // Registered first, so it ran for `true` before the canceller; never again after.
    #expect(runs.values == [false, true])
    withExtendedLifetime(canceller) {}
  }

  @Test func observeKeyPathDeliversTheValue() {
    let values = Log<String>()
    let token = store.observe(\.title) { values.append($0) }
    store.send(.setTitle("a"))
    store.send(.setTitle("b"))
    #expect(values.values == ["Board", "a", "b"])
    withExtendedLifetime(token) {}
  }

  @Test func aThousandObserversOfOneValueAllFire() {
    let runs = Log<Int>()
    let tokens = (0..<1_000).map { _ in store.observe { runs.append(store[\.cells[8]]) } }
    runs.removeAll()
    store.send(.setCell(8, 1))
    #expect(runs.values.count == 1_000)
    runs.removeAll()
    store.send(.setCell(7, 1))
    #expect(runs.values.isEmpty)
    withExtendedLifetime(tokens) {}
  }

  @Test func observersCanRegisterFromAnotherThreadWhileTheStoreIsBusy() async {
    // Registrations racing with a sender still see every later change.
    let sender = Task.detached { [store] in
      for value in 1...2_000 { store.send(.setCell(2, value)) }
    }
    let seen = Log<Int>()
    let token = store.observe { seen.append(store[\.cells[2]]) }
    await sender.value
    #expect(seen.values.last == 2_000)
    withExtendedLifetime(token) {}
  }
}

@Suite struct ObserverLifetimeTests {
  @Test func droppingTheStoreReleasesObserverClosures() {
    weak var weakCapture: Model?
    weak var weakStore: Store<Board.State, Board.Action>?
    var token: ObservationToken?
    do {
      let store = Store(initialState: Board.State()) { Board() }
      weakStore = store
      let capture = Model(name: "captured")
      weakCapture = capture
      token = store.observe { [weak store] in
        _ = capture
        _ = store?.title
      }
    }
    #expect(weakStore == nil)
    #expect(weakCapture == nil)  // The token is alive, but its store is gone.
    token?.cancel()  // Harmless after the store is gone.
    #expect(token?.isCancelled == true)
  }

  @Test func untrackedReadsDoNotKeepTheStoreAlive() {
    weak var weakStore: Store<Board.State, Board.Action>?
    do {
      let store = Store(initialState: Board.State()) { Board() }
      weakStore = store
      _ = store.title  // Arms a one-shot Observation probe.
      _ = store[\.cells[2]]
    }
    #expect(weakStore == nil)
  }
}
