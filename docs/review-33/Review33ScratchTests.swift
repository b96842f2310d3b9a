import Dispatch
import Synchronization
import Testing
import UnidirectionalTestSupport

@testable import Unidirectional

// REVIEW33 SCRATCH (not to be committed).

struct R33Leaf: Reducer {
  struct State: Equatable, Sendable, Identifiable {
    var id: Int
    var ticks = 0
  }
  enum Action: Equatable, Sendable { case quick, tick }
  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .quick: return .run { _ in }
    case .tick:
      state.ticks += 1
      return .none
    }
  }
}

struct R33Row: Reducer {
  struct State: Equatable, Sendable, Identifiable {
    var id: Int
    @PresentationState var sheet: R33Leaf.State?
    var items: IdentifiedArray<R33Leaf.State> = []
  }
  enum Action: Equatable, Sendable {
    case present(Int)
    case sheet(PresentationAction<R33Leaf.Action>)
    case items(IdentifiedActionOf<R33Leaf>)
    case addItem(Int)
    case removeItem(Int)
  }
  var body: some Reducer<State, Action> {
    Reduce { state, action in
      switch action {
      case .present(let id): state.sheet = R33Leaf.State(id: id)
      case .addItem(let id): state.items.append(R33Leaf.State(id: id))
      case .removeItem(let id): _ = state.items.remove(id: id)
      case .sheet, .items: break
      }
      return .none
    }
    .ifLet(\.$sheet, action: .case(Action.sheet)) { R33Leaf() }
    .forEach(\.items, action: .case(Action.items)) { R33Leaf() }
  }
}

struct R33Root: Reducer {
  struct State: Equatable, Sendable {
    var rows: IdentifiedArray<R33Row.State> = []
    @PresentationState var sheet: R33Row.State?
    var path = StackState<R33Row.State>()
    var bumps = 0
  }
  enum Action: Equatable, Sendable {
    case rows(IdentifiedActionOf<R33Row>)
    case sheet(PresentationAction<R33Row.Action>)
    case path(StackAction<R33Row.State, R33Row.Action>)
    case addRow(Int)
    case bump
    case presentSheet(Int)
    case changeSheetID(Int)
    case push(Int)
    case rebuildPath
  }
  var body: some Reducer<State, Action> {
    Reduce { state, action in
      switch action {
      case .addRow(let id): state.rows.append(R33Row.State(id: id))
      case .bump: state.bumps += 1
      case .presentSheet(let id): state.sheet = R33Row.State(id: id)
      case .changeSheetID(let id): state.sheet?.id = id
      case .push(let id): state.path.append(R33Row.State(id: id))
      case .rebuildPath: state.path = StackState(state.path.elements)
      case .rows, .sheet, .path: break
      }
      return .none
    }
    .forEach(\.rows, action: .case(Action.rows)) { R33Row() }
    .ifLet(\.$sheet, action: .case(Action.sheet)) { R33Row() }
    .forEach(\.path, action: .case(Action.path)) { R33Row() }
  }
}

struct R33Spin: Reducer {
  struct State: Equatable, Sendable, Identifiable {
    var id: Int
    var pings = 0
    var wrong = 0
  }
  enum Action: Equatable, Sendable { case spin, ping(Int) }
  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .spin:
      return .run { [id = state.id] send in
        while !Task.isCancelled {
          await send(.ping(id))
          await Task.yield()
        }
      }
    case .ping(let g):
      if g == state.id { state.pings += 1 } else { state.wrong += 1 }
      return .none
    }
  }
}

struct R33SpinRoot: Reducer {
  struct State: Equatable, Sendable {
    @PresentationState var sheet: R33Spin.State?
  }
  enum Action: Equatable, Sendable {
    case sheet(PresentationAction<R33Spin.Action>)
    case replace(Int)
  }
  var body: some Reducer<State, Action> {
    Reduce { state, action in
      if case .replace(let n) = action { state.sheet = R33Spin.State(id: n) }
      return .none
    }
    .ifLet(\.$sheet, action: .case(Action.sheet)) { R33Spin() }
  }
}

struct R33Kick: Reducer {
  struct State: Equatable, Sendable, Identifiable {
    var id: Int
    var ticks = 0
  }
  enum Action: Equatable, Sendable { case kick, tick }
  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .kick: return .send(.tick)
    case .tick:
      state.ticks += 1
      return .none
    }
  }
}

struct R33KickRoot: Reducer {
  struct State: Equatable, Sendable { var child: R33Kick.State? = R33Kick.State(id: 1) }
  enum Action: Equatable, Sendable { case child(R33Kick.Action) }
  var body: some Reducer<State, Action> {
    Reduce { _, _ in .none }
      .ifLet(\.child, action: .case(Action.child)) { R33Kick() }
    Reduce { state, action in
      if case .child(.kick) = action { state.child = R33Kick.State(id: 2) }
      return .none
    }
  }
}

@Suite(.serialized, .timeLimit(.minutes(3))) struct Review33ScratchTests {
  let issues = Log<StoreIssue>()

  func makeStore() -> Store<R33Root.State, R33Root.Action> {
    Store(initialState: R33Root.State(), reducer: R33Root()) { [issues] in issues.append($0) }
  }

  @Test func outerPresentationNewIdentityLeaksGrandchildWatchesAndLifetimes() async {
    let store = makeStore()
    store.send(.presentSheet(0))
    store.send(.sheet(.presented(.present(100))))
    for k in 1...200 {
      await store.send(.sheet(.presented(.sheet(.presented(.quick))))).finish()
      store.send(.changeSheetID(k))
    }
    let c = store.effects._review33Counts
    print("REVIEW33 G1 presentation id change x200:", c)
    #expect(c.watches <= 3)
    #expect(c.lifetimes <= 3)
  }

  @Test func rebuiltStackLeaksGrandchildWatchesAndLifetimes() async {
    let store = makeStore()
    store.send(.push(0))
    store.send(.path(.element(id: 0, action: .present(5))))
    for _ in 1...200 {
      await store.send(.path(.element(id: 0, action: .sheet(.presented(.quick))))).finish()
      store.send(.rebuildPath)
    }
    let c = store.effects._review33Counts
    print("REVIEW33 G2 stack rebuild x200:", c)
    #expect(c.watches <= 3)
    #expect(c.lifetimes <= 3)
  }

  @Test func presentDismissCyclesStayBounded() async {
    let store = makeStore()
    for k in 1...500 {
      store.send(.presentSheet(k))
      await store.send(.sheet(.presented(.sheet(.presented(.quick))))).finish()
      await store.send(.sheet(.presented(.present(k)))).finish()
      await store.send(.sheet(.presented(.sheet(.presented(.quick))))).finish()
      store.send(.sheet(.dismiss))
      store.send(.addRow(k))
      await store.send(.rows(.element(id: k, action: .addItem(1)))).finish()
      await store.send(.rows(.element(id: k, action: .items(.element(id: 1, action: .quick)))))
        .finish()
      store.send(.rows(.element(id: k, action: .removeItem(1))))
    }
    print("REVIEW33 G5 cycles x500 (500 rows kept):", store.effects._review33Counts)
  }

  func timeBumps(_ store: Store<R33Root.State, R33Root.Action>, _ n: Int) -> Duration {
    let clock = ContinuousClock()
    return clock.measure {
      for _ in 0..<n { store.send(.bump) }
    }
  }

  @Test func watchesGrowWithRowsAndCostPerAction() async {
    let n = 1000
    let baseline = makeStore()
    for i in 0..<n { baseline.send(.addRow(i)) }
    let one = makeStore()
    for i in 0..<n { one.send(.addRow(i)) }
    await one.send(.rows(.element(id: 0, action: .addItem(1)))).finish()
    await one.send(.rows(.element(id: 0, action: .items(.element(id: 1, action: .quick)))))
      .finish()
    let presented = makeStore()
    let nested = makeStore()
    for i in 0..<n {
      presented.send(.addRow(i))
      presented.send(.rows(.element(id: i, action: .present(i))))
      await presented.send(.rows(.element(id: i, action: .sheet(.presented(.quick))))).finish()
      nested.send(.addRow(i))
      nested.send(.rows(.element(id: i, action: .addItem(1))))
      await nested.send(.rows(.element(id: i, action: .items(.element(id: 1, action: .quick)))))
        .finish()
      nested.send(.rows(.element(id: i, action: .removeItem(1))))
    }
    print("REVIEW33 G3 counts baseline", baseline.effects._review33Counts,
      "one", one.effects._review33Counts,
      "presented", presented.effects._review33Counts, "nested", nested.effects._review33Counts)
    for _ in 0..<2 {
      let b = timeBumps(baseline, 20_000)
      let o = timeBumps(one, 20_000)
      let p = timeBumps(presented, 20_000)
      let q = timeBumps(nested, 20_000)
      print("REVIEW33 G3 20k bumps: baseline \(b) one-watch \(o) presented \(p) nested \(q)")
    }
  }

  /// An old child's structured spinner racing a replacement: no ping of the old child ever
  /// reaches the new one, and no report (the spinner was cancelled with its child).
  @Test func spinnerRacingReplacement() async {
    let store = Store(initialState: R33SpinRoot.State(), reducer: R33SpinRoot()) { [issues] in
      issues.append($0)
    }
    var wrong = 0
    var hits = 0
    for n in 1...300 {
      store.send(.replace(n))
      store.send(.sheet(.presented(.spin)))
      var waited = 0
      while (store.sheet?.pings ?? 0) < 20, waited < 20_000 {
        try? await Task.sleep(for: .microseconds(50))
        waited += 1
      }
      let w = store.sheet?.wrong ?? 0
      if w > 0 { hits += 1 }
      wrong += w
    }
    store.send(.sheet(.dismiss))
    let reports = issues.values.filter {
      if case .actionFromDismissedChild = $0.kind { true } else { false }
    }
    print("REVIEW33 R1 wrong pings \(wrong) in \(hits)/300 iterations; reports \(reports.count)")
    #expect(wrong == 0)
    #expect(reports.isEmpty)
  }

  @Test func childSendEffectReachesReplacement() async {
    let store = Store(initialState: R33KickRoot.State(), reducer: R33KickRoot()) { [issues] in
      issues.append($0)
    }
    store.send(.child(.kick))
    print("REVIEW33 S1 child after kick:", store.child as Any, issues.values)
    #expect(store.child == R33Kick.State(id: 2, ticks: 0))
  }
}
