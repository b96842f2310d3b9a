import Synchronization
import Testing
import Unidirectional
import UnidirectionalTestSupport

// Scenarios compared between a row store (`scope(state:id:action:)`, read through its
// `ElementAccess`) and the general path (`scope(state: \.rows[id: id])`): both answer from the
// row's last state once it is gone, so every observer must log the same thing. The fixtures and
// `compare` here serve RowStoreDifferentialTests+Threads and +ClassRows too.

struct RowDifferentialSimple: Identifiable, Equatable, Sendable {
  let id: Int
  var score = 0
  var title = "a"
  var flag = false
  var tags: [String] = []
  var computedTitle: String { title + "!" }
}

struct RowDifferentialSimpleState: Sendable {
  var rows: IdentifiedArray<RowDifferentialSimple>
  var other = 0
}

enum RowDifferentialSimpleAction: Sendable {
  case score(Int, Int)
  case title(Int, String)
  case flag(Int)
  case tag(Int, String)
  case remove(Int)
  case insert(Int)
  case other
  case clear
}

let rowDifferentialReducer = Reduce<RowDifferentialSimpleState, RowDifferentialSimpleAction> {
  state, action in
  switch action {
  case .score(let id, let v): state.rows[id: id]?.score = v
  case .title(let id, let v): state.rows[id: id]?.title = v
  case .flag(let id): state.rows[id: id]?.flag.toggle()
  case .tag(let id, let v): state.rows[id: id]?.tags.append(v)
  case .remove(let id): state.rows.remove(id: id)
  case .insert(let id):
    if state.rows[id: id] == nil {
      state.rows.append(RowDifferentialSimple(id: id, score: 100 + id))
    }
  case .other: state.other += 1
  case .clear: state.rows = []
  }
  return .none
}

func makeRowDifferentialStore(ids: [Int] = [1, 2]) -> Store<
  RowDifferentialSimpleState, RowDifferentialSimpleAction
> {
  Store(
    initialState: RowDifferentialSimpleState(
      rows: IdentifiedArray(uniqueElements: ids.map { RowDifferentialSimple(id: $0) })),
    reducer: rowDifferentialReducer)
}

func rowDifferentialStore(
  _ store: Store<RowDifferentialSimpleState, RowDifferentialSimpleAction>, _ id: Int, fast: Bool
) -> Store<RowDifferentialSimple, RowDifferentialSimpleAction> {
  if fast {
    return store.scope(
      state: \.rows, id: id, action: { (action: RowDifferentialSimpleAction) in action })!
  }
  return store.scope(
    state: \.rows[id: id], action: { (action: RowDifferentialSimpleAction) in action })!
}

extension RowStoreDifferentialTests {
  static let scriptedActions: [RowDifferentialSimpleAction] = [
    .score(1, 1), .title(1, "b"), .other, .score(1, 1), .flag(1), .title(2, "x"), .score(1, 2),
    .tag(1, "t"), .title(1, "b"), .score(2, 5), .flag(1), .remove(1), .score(1, 9), .insert(1),
    .score(1, 3), .title(1, "c"), .clear, .insert(2), .insert(1), .score(1, 4), .flag(1),
    .title(1, "d"), .score(1, 4),
  ]

  /// Sends every scripted action to `store`, logging each before it is sent.
  func sendScripted(
    to store: Store<RowDifferentialSimpleState, RowDifferentialSimpleAction>, log: Log<String>
  ) {
    for action in Self.scriptedActions {
      log.append("> \(action)")
      store.send(action)
    }
  }

  /// Runs `scenario` on each kind of row store and expects the two logs to be equal.
  func compare(
    _ scenario: (Bool) -> [String], sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let fast = scenario(true)
    let general = scenario(false)
    #expect(fast == general, sourceLocation: sourceLocation)
    // Not vacuous: the observers ran more than once each.
    #expect(fast.filter { !$0.hasPrefix(">") }.count > 5, sourceLocation: sourceLocation)
  }

  /// An observer of a row store registers, on each run, a new observer of the same row (and
  /// cancels the one before) between two of its own reads.
  @Test func nestedObserverRegisteredBetweenReads() {
    compare { fast in
      let store = makeRowDifferentialStore()
      let row = rowDifferentialStore(store, 1, fast: fast)
      let log = Log<String>()
      let inner = Mutex<ObservationToken?>(nil)
      let outer = row.observe {
        let score = row.score
        let token = row.observe { log.append("inner \(row.title) \(row.flag)") }
        let old = inner.withLock { state -> ObservationToken? in
          let old = state
          state = token
          return old
        }
        old?.cancel()
        log.append("outer \(score) \(row.title) \(row.tags)")
      }
      sendScripted(to: store, log: log)
      withExtendedLifetime(outer) {}
      inner.withLock { $0?.cancel() }
      return log.values
    }
  }

  /// An observer that cancels itself in the middle of a run, then keeps reading; a second
  /// observer of the same reads keeps running.
  @Test func observerCancellingItselfMidRunKeepsReading() {
    compare { fast in
      let store = makeRowDifferentialStore()
      let row = rowDifferentialStore(store, 1, fast: fast)
      let log = Log<String>()
      let first = Mutex<ObservationToken?>(nil)
      let runs = Mutex(0)
      let token = row.observe {
        let score = row.score
        let n = runs.withLock {
          $0 += 1
          return $0
        }
        if n == 3 { first.withLock { $0?.cancel() } }
        log.append("first \(score) \(row.title) \(row.score)")
      }
      first.withLock { $0 = token }
      let second = row.observe { log.append("second \(row.score) \(row.title)") }
      sendScripted(to: store, log: log)
      withExtendedLifetime(second) {}
      return log.values
    }
  }

  /// An earlier observer cancels a later one that shares its reads, before it runs.
  @Test func earlierObserverCancelsLaterOne() {
    compare { fast in
      let store = makeRowDifferentialStore()
      let row = rowDifferentialStore(store, 1, fast: fast)
      let log = Log<String>()
      let later = Mutex<ObservationToken?>(nil)
      let a = row.observe {
        let s = row.score
        if s == 2 { later.withLock { $0?.cancel() } }
        log.append("a \(s) \(row.title)")
      }
      let b = row.observe { log.append("b \(row.score) \(row.title)") }
      later.withLock { $0 = b }
      let c = row.observe { log.append("c \(row.title) \(row.score)") }
      sendScripted(to: store, log: log)
      withExtendedLifetime((a, c)) {}
      return log.values
    }
  }

  /// Two row stores of one id, read in an order that changes from run to run, and a computed
  /// (unsafe) field between stored ones.
  @Test func twoRowStoresOfOneIdInChangingOrder() {
    compare { fast in
      let store = makeRowDifferentialStore()
      let one = rowDifferentialStore(store, 1, fast: fast)
      let two = rowDifferentialStore(store, 1, fast: fast)
      let other = rowDifferentialStore(store, 2, fast: fast)
      let log = Log<String>()
      let token = store.observe {
        if one.flag {
          log.append("A \(two.score) \(one.computedTitle) \(one.score) \(other.title)")
        } else {
          log.append("B \(one.score) \(other.title) \(two.computedTitle) \(two.score) \(two.flag)")
        }
      }
      let token2 = two.observe {
        log.append("two \(two.flag ? one.title : two.title) \(one.score)")
      }
      sendScripted(to: store, log: log)
      withExtendedLifetime((token, token2)) {}
      return log.values
    }
  }

  /// An observer of one root store's row sends to a second root store, whose own row
  /// observers run nested (on the same thread), then keeps reading its own row.
  @Test func observerOfOneStoreDrivesAnother() {
    compare { fast in
      let storeA = makeRowDifferentialStore()
      let storeB = makeRowDifferentialStore()
      let rowA = rowDifferentialStore(storeA, 1, fast: fast)
      let rowB = rowDifferentialStore(storeB, 1, fast: fast)
      let log = Log<String>()
      let tokenB = rowB.observe { log.append("B \(rowB.score) \(rowB.title)") }
      let crossB = rowB.observe { log.append("B reads A \(rowA.score)") }
      let tokenA = rowA.observe {
        let score = rowA.score
        storeB.send(.score(1, score))
        log.append("A \(score) \(rowA.title) \(rowB.title)")
      }
      sendScripted(to: storeA, log: log)
      withExtendedLifetime((tokenA, tokenB, crossB)) {}
      return log.values
    }
  }

  /// Keyed observers of row fields (`observe(\.field)`), several per field, one registered
  /// from inside another's run.
  @Test func keyedObserversOfRowFields() {
    compare { fast in
      let store = makeRowDifferentialStore()
      let row = rowDifferentialStore(store, 1, fast: fast)
      let log = Log<String>()
      let nested = Mutex<[ObservationToken]>([])
      let t1 = row.observe(\.score) { score in
        log.append("score \(score)")
        if score == 2 {
          let t = row.observe(\.title) { log.append("nested title \($0)") }
          nested.withLock { $0.append(t) }
        }
      }
      let t2 = row.observe(\.flag) { log.append("flag \($0)") }
      let t3 = row.observe(\.score) { log.append("score again \($0)") }
      let t4 = row.observe(\.tags) { log.append("tags \($0)") }
      sendScripted(to: store, log: log)
      withExtendedLifetime((t1, t2, t3, t4)) {}
      nested.withLock { $0.removeAll() }
      return log.values
    }
  }
}
