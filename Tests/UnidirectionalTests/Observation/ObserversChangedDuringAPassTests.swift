import Synchronization
import Testing
import Unidirectional
import UnidirectionalTestSupport

// The observers to run after an action are found in the pass, before `changes(in:)` carries
// out the requests deferred during it and before the action's effect starts. User code that
// runs in either place (the deinit of an old value, `==`, a getter, the store's `onIssue`, an
// effect's cancellation handler) may register or cancel an observer of the changed value: the
// store must still run the observers as they were found, each once, and never read a probe that
// is gone. (An earlier design ran a new observer twice, and read a cancelled probe after it was
// freed.)

/// A feature whose every action counts, and whose row actions go to rows that may be missing
/// (an issue for `onIssue`, reported while the action's effect starts, before its observers run).
struct LentIssueFeature: Reducer {
  struct State: Sendable {
    var count = 0
    var rows: IdentifiedArray<RowFeature.State> = IdentifiedArray(
      uniqueElements: [RowFeature.State(id: 0)])
  }
  enum Action: Sendable {
    case row(id: Int, action: RowFeature.Action)
  }
  var body: some Reducer<State, Action> {
    Reduce { state, _ in
      state.count += 1
      return .none
    }
    .forEach(\.rows, action: .case(Action.row)) { RowFeature(log: Log()) }
  }
}

@Suite(.serialized) struct ObserversChangedDuringAPassTests {
  /// One value changes; the refresh of another probe releases the old value it held, whose
  /// deinit registers an observer of the changed value (its first run happens then, during the
  /// pass, on the new state). The registration is deferred to the end of the pass, which adds
  /// the new observer to the changed value's list before the store reads that list: the new
  /// observer must not run a second time for the same action.
  @Test func anObserverRegisteredDuringThePassRunsOnceForTheAction() {
    let store = makeLendingStore(LendingState(hook: LendingHook("h0")))
    let before = store.observationFootprint
    let runs = Log<String>()
    let added = EdgeBox<ObservationToken>()
    let token = store.observe {
      // `hook`'s probe holds h0; `count` is the value that changes.
      _ = store.hook
      runs.append("o\(store.count)")
    }
    let register: @Sendable () -> Void = { [weak store] in
      guard let store else { return }
      added.value = store.observe { [weak store] in runs.append("new\(store?.count ?? -1)") }
    }
    store.send(LendingAction { $0.hook!.onDeinit.withLock { $0 = register } })
    runs.removeAll()
    store.send(
      LendingAction {
        $0.count = 1
        // Equal to h0 (`LendingHook.==`): the hook probe reports no change, releases h0.
        $0.hook = LendingHook("h1")
      })
    #expect(runs.values == ["new1", "o1"])
    runs.removeAll()
    store.send(LendingAction { $0.count = 2 })
    #expect(runs.values == ["o2", "new2"])
    added.take()?.cancel()
    token.cancel()
    #expect(store.observationFootprint == before)
  }

  /// As above, but the deinit cancels the changed value's only observer: the removal, deferred
  /// to the end of the pass, drops the probe whose list the store is about to run. The store
  /// must not read the dropped probe (address sanitizer: heap-use-after-free), and the
  /// cancelled observer must not run.
  @Test func theOnlyObserverOfTheChangedValueCancelledDuringThePass() {
    let store = makeLendingStore(LendingState(hook: LendingHook("h0")))
    let before = store.observationFootprint
    let runs = Log<String>()
    let me = EdgeBox<ObservationToken>()
    me.value = store.observe {
      _ = store.hook
      runs.append("o\(store.count)")
    }
    let cancel: @Sendable () -> Void = { me.take()?.cancel() }
    store.send(LendingAction { $0.hook!.onDeinit.withLock { $0 = cancel } })
    runs.removeAll()
    store.send(
      LendingAction {
        $0.count = 1
        $0.hook = LendingHook("h1")
      })
    #expect(runs.values == [])
    store.send(LendingAction { $0.count = 2 })
    #expect(runs.values == [])
    #expect(store.observationFootprint == before)
  }

  /// The same with `==` as the user code in the pass: the changed value's `==` cancels its only
  /// observer, and registers another one, the first time it is called after being armed.
  @Test func equalityOfTheChangedValueCancelsAndRegistersDuringThePass() {
    let store = makeArmedStore()
    let before = store.observationFootprint
    let runs = Log<String>()
    let me = EdgeBox<ObservationToken>()
    let added = EdgeBox<ObservationToken>()
    me.value = store.observe { runs.append("o\(store.armed.value)") }
    lentEqualityHook.withLock {
      $0 = { [weak store] in
        me.take()?.cancel()
        guard let store else { return }
        added.value = store.observe { [weak store] in
          runs.append("new\(store?.armed.value ?? -1)")
        }
      }
    }
    defer { lentEqualityHook.withLock { $0 = nil } }
    runs.removeAll()
    store.send(ArmedEquality(value: 1))
    #expect(runs.values == ["new1"])
    runs.removeAll()
    store.send(ArmedEquality(value: 2))
    #expect(runs.values == ["new2"])
    added.take()?.cancel()
    #expect(store.observationFootprint == before)
  }

  /// User code between the pass and the observers' run: the store's `onIssue`, told of an
  /// action for a missing row while the action's effect starts, registers an observer of the
  /// changed value. Its first run is its registration: it must not run again for this action.
  @Test func onIssueRegistersAnObserverOfTheChangedValue() {
    let runs = Log<String>()
    let onIssue = EdgeBox<@Sendable () -> Void>()
    let store = Store(
      initialState: LentIssueFeature.State(),
      reducer: LentIssueFeature(),
      onIssue: { _ in onIssue.take()?() })
    let before = store.observationFootprint
    let added = EdgeBox<ObservationToken>()
    let token = store.observe { runs.append("o\(store.count)") }
    onIssue.value = { [weak store] in
      guard let store else { return }
      added.value = store.observe { [weak store] in runs.append("new\(store?.count ?? -1)") }
    }
    runs.removeAll()
    store.send(.row(id: 99, action: .tapped))
    #expect(runs.values == ["new1", "o1"])
    runs.removeAll()
    store.send(.row(id: 0, action: .tapped))
    #expect(runs.values == ["o2", "new2"])
    added.take()?.cancel()
    token.cancel()
    #expect(store.observationFootprint == before)
  }

  /// As above, but `onIssue` cancels the changed value's only observer, which drops its probe
  /// before the store reads the probe's list (address sanitizer: heap-use-after-free).
  @Test func onIssueCancelsTheOnlyObserverOfTheChangedValue() {
    let runs = Log<String>()
    let onIssue = EdgeBox<@Sendable () -> Void>()
    let store = Store(
      initialState: LentIssueFeature.State(),
      reducer: LentIssueFeature(),
      onIssue: { _ in onIssue.take()?() })
    let before = store.observationFootprint
    let me = EdgeBox<ObservationToken>()
    me.value = store.observe { runs.append("o\(store.count)") }
    onIssue.value = { me.take()?.cancel() }
    runs.removeAll()
    store.send(.row(id: 99, action: .tapped))
    #expect(runs.values == [])
    store.send(.row(id: 0, action: .tapped))
    #expect(runs.values == [])
    #expect(store.observationFootprint == before)
  }

  /// Many rounds of the above with several observers of the changed value, some cancelled and
  /// some registered from `onIssue`: every observer runs at most once per action, and a
  /// cancelled one never again.
  @Test func onIssueChurnsTheChangedValuesObservers() {
    let runs = Log<String>()
    let onIssue = EdgeBox<@Sendable () -> Void>()
    let store = Store(
      initialState: LentIssueFeature.State(),
      reducer: LentIssueFeature(),
      onIssue: { _ in onIssue.value?() })
    let before = store.observationFootprint
    let tokens = EdgeBox<[Int: ObservationToken]>([:])
    let nextName = Atomic<Int>(0)
    @Sendable func add() {
      let name = nextName.add(1, ordering: .relaxed).oldValue
      let token = store.observe { runs.append("\(name):\(store.count)") }
      tokens.value?[name] = token
    }
    for _ in 0..<3 { add() }
    onIssue.value = {
      // Cancel the oldest, add one.
      if let oldest = tokens.value?.keys.min(), let token = tokens.value?[oldest] {
        tokens.value?[oldest] = nil
        token.cancel()
      }
      add()
    }
    for round in 1...20 {
      runs.removeAll()
      store.send(.row(id: 99, action: .tapped))
      let count = store.count
      let live = (tokens.value ?? [:]).keys.sorted()
      // The one added in this round ran once (its registration); the others once, in order.
      #expect(
        runs.values.sorted() == live.map { "\($0):\(count)" }.sorted(), "round \(round)")
    }
    onIssue.value = nil
    for token in (tokens.take() ?? [:]).values { token.cancel() }
    #expect(store.observationFootprint == before)
  }
}

/// A value whose `==` runs `lentEqualityHook` once armed (then disarms it).
struct ArmedEquality: Equatable, Sendable {
  var value = 0
  static func == (lhs: Self, rhs: Self) -> Bool {
    let hook = lentEqualityHook.withLock { hook in
      defer { hook = nil }
      return hook
    }
    hook?()
    return lhs.value == rhs.value
  }
}

let lentEqualityHook = Locked<(@Sendable () -> Void)?>(nil)

struct ArmedState: Sendable {
  var armed = ArmedEquality()
}

func makeArmedStore() -> Store<ArmedState, ArmedEquality> {
  Store(
    initialState: ArmedState(),
    reducer: Reduce<ArmedState, ArmedEquality> { state, action in
      state.armed = action
      return .none
    })
}
