import Synchronization
import Testing

@testable import Unidirectional

// Debug builds only: release builds neither count nor print hints.
#if DEBUG
  /// Rows at the root, for observers that each read one of them in one form or another.
  struct HintRows: Reducer {
    struct Row: Identifiable, Equatable, Sendable {
      let id: Int
      var value = 0
    }
    struct State: Sendable {
      var rows = IdentifiedArray(uniqueElements: (0..<100).map { Row(id: $0) })
      var others = IdentifiedArray(uniqueElements: (0..<100).map { Row(id: $0) })
    }
    enum Action: Sendable {
      /// Changes one row.
      case bump(id: Int)
      /// Changes every row ("mark all done").
      case bumpAll
      /// Changes one row of `others`.
      case bumpOther(id: Int)
      /// A row store's action.
      case row(id: Int, value: Int)
    }
    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .bump(let id): state.rows[id: id]?.value += 1
      case .bumpAll: for id in state.rows.ids { state.rows[id: id]?.value += 1 }
      case .bumpOther(let id): state.others[id: id]?.value += 1
      case .row(let id, let value): state.rows[id: id]?.value = value
      }
      return .none
    }
  }

  /// How each observer reads its row.
  enum HintForm {
    /// `store.rows[id: id]?.value`: the whole array.
    case wholeArray
    /// `store[\.rows[id: id]?.value]`: a key path re-evaluated after every action.
    case keyPath
    /// `store[\.rows, id: id, \.value]`: the by-id form.
    case byID
    /// A row store per row, observed.
    case rowStore
  }

  /// A store, its hints as they are printed, its issues, and what keeps its observers running.
  final class HintHarness: Sendable {
    let store = Store(initialState: HintRows.State()) { HintRows() }
    private let captured = Mutex<[String]>([])
    private let keep = Mutex<[AnyObject]>([])

    init() {
      store.graph.performanceHintHandler = { [weak self] hint in
        self?.captured.withLock { $0.append(hint) }
      }
    }

    var hints: [String] { captured.withLock { $0 } }

    /// Registers `count` observers, observer `i` reading row `i` in `form`.
    func observe(_ count: Int, _ form: HintForm) {
      let store = store
      for id in 0..<count {
        let token: ObservationToken
        switch form {
        case .wholeArray:
          token = store.observe { _ = store.rows[id: id]?.value }
        case .keyPath:
          token = store.observe { _ = store[\.rows[id: id]?.value] }
        case .byID:
          token = store.observe { _ = store[\.rows, id: id, \.value] }
        case .rowStore:
          let row = store.scope(state: \.rows, id: id) { HintRows.Action.row(id: id, value: $0) }!
          token = row.observe { _ = row.value }
          keep.withLock { $0.append(row) }
        }
        keep.withLock { $0.append(token) }
      }
    }

    /// Sends `count` actions, each changing one row (a different one each time).
    func bump(_ count: Int) {
      for index in 0..<count { store.send(.bump(id: index % 100)) }
    }
  }

  /// Issue 38 item 9: a debug build tells the user, once, when its observers do work in
  /// proportion to the rows for changes of one row. Serialized: one test turns the hints off
  /// for the whole process.
  @Suite(.serialized) struct PerformanceHintTests {
    @Test func theWholeArrayFormIsReportedAfterThreeActionsWithItsCountsAndTheFormToUse() {
      let harness = HintHarness()
      harness.observe(100, .wholeArray)
      harness.bump(2)
      #expect(harness.hints.isEmpty)
      harness.bump(1)
      #expect(harness.hints.count == 1)
      let hint = harness.hints.first ?? ""
      #expect(hint.contains("for 3 actions"))
      #expect(hint.contains("100 observers re-ran because"))
      #expect(hint.contains("only 1 of its 100 elements changed"))
      #expect(hint.contains("at least 99 of them found their element unchanged"))
      #expect(hint.contains("store.rows[id: id]?.value"))
      #expect(hint.contains(#"store[\.rows, id: id, \.field]"#))
      #expect(hint.contains(#"store.scope(state: \.rows, id: id"#))
      #expect(hint.contains("PerformanceHints.isEnabled = false"))
      // Once per store and shape.
      harness.bump(10)
      #expect(harness.hints.count == 1)
    }

    @Test func theKeyPathFormIsReportedAfterThreeActionsWithItsCountsAndTheFormToUse() {
      let harness = HintHarness()
      harness.observe(100, .keyPath)
      harness.bump(2)
      #expect(harness.hints.isEmpty)
      harness.bump(1)
      #expect(harness.hints.count == 1)
      let hint = harness.hints.first ?? ""
      #expect(hint.contains("for 3 actions"))
      #expect(hint.contains("100 observers re-evaluated"))
      #expect(hint.contains("99 of them found theirs unchanged"))
      #expect(hint.contains(#"store[\.rows[id: id]?.value]"#))
      #expect(hint.contains(#"store[\.rows, id: id, \.field]"#))
      #expect(hint.contains(#"store.scope(state: \.rows, id: id"#))
      harness.bump(10)
      #expect(harness.hints.count == 1)
    }

    @Test func qualifyingActionsNeedNotBeConsecutive() {
      let harness = HintHarness()
      harness.observe(100, .wholeArray)
      harness.bump(1)
      harness.store.send(.bumpAll)
      harness.bump(1)
      harness.store.send(.bumpAll)
      #expect(harness.hints.isEmpty)
      harness.bump(1)
      #expect(harness.hints.count == 1)
    }

    @Test(arguments: [HintForm.wholeArray, .keyPath])
    func aBulkChangeIsNotReported(form: HintForm) {
      let harness = HintHarness()
      harness.observe(100, form)
      for _ in 0..<10 { harness.store.send(.bumpAll) }
      #expect(harness.hints.isEmpty)
    }

    @Test(arguments: [HintForm.byID, .rowStore])
    func thePreciseFormsAreNotReported(form: HintForm) {
      let harness = HintHarness()
      harness.observe(100, form)
      harness.bump(10)
      for _ in 0..<3 { harness.store.send(.bumpAll) }
      #expect(harness.hints.isEmpty)
    }

    @Test(arguments: [HintForm.wholeArray, .keyPath])
    func fewerThan64ObserversAreNotReported(form: HintForm) {
      let harness = HintHarness()
      harness.observe(63, form)
      harness.bump(10)
      #expect(harness.hints.isEmpty)
    }

    @Test(arguments: [HintForm.wholeArray, .keyPath])
    func sixtyFourObserversAreReported(form: HintForm) {
      let harness = HintHarness()
      harness.observe(64, form)
      harness.bump(3)
      #expect(harness.hints.count == 1)
      #expect(harness.hints.first?.contains("64 observers") == true)
    }

    @Test(arguments: [HintForm.wholeArray, .keyPath])
    func fewerThanThreeActionsAreNotReported(form: HintForm) {
      let harness = HintHarness()
      harness.observe(100, form)
      harness.bump(2)
      #expect(harness.hints.isEmpty)
    }

    @Test func eachStoreAndShapeIsReportedOnce() {
      let first = HintHarness()
      let second = HintHarness()
      for harness in [first, second] {
        harness.observe(100, .wholeArray)
        harness.observe(100, .keyPath)
        harness.bump(10)
      }
      // Two shapes per store: the re-runs for `rows`, and the key-path re-evaluations.
      #expect(first.hints.count == 2)
      #expect(second.hints.count == 2)
      // Another collection's re-runs are a shape of their own.
      let store = first.store
      let tokens = (0..<100).map { id in store.observe { _ = store.others[id: id]?.value } }
      for id in 0..<10 { store.send(.bumpOther(id: id)) }
      #expect(first.hints.count == 3)
      #expect(first.hints.last?.contains(#"store[\.others, id: id, \.field]"#) == true)
      withExtendedLifetime(tokens) {}
    }

    @Test func theSettingTurnsHintsOff() {
      PerformanceHints.isEnabled = false
      defer { PerformanceHints.isEnabled = true }
      let harness = HintHarness()
      harness.observe(100, .wholeArray)
      harness.observe(100, .keyPath)
      harness.bump(10)
      #expect(harness.hints.isEmpty)
    }

    @Test func aHintIsNotAStoreIssue() {
      let issues = Mutex<[String]>([])
      let store = Store(initialState: HintRows.State(), reducer: HintRows()) { issue in
        issues.withLock { $0.append(issue.description) }
      }
      let hints = Mutex<[String]>([])
      store.graph.performanceHintHandler = { hint in hints.withLock { $0.append(hint) } }
      let tokens = (0..<100).map { id in store.observe { _ = store.rows[id: id]?.value } }
      for id in 0..<5 { store.send(.bump(id: id)) }
      #expect(hints.withLock { $0.count } == 1)
      #expect(issues.withLock { $0.isEmpty })
      withExtendedLifetime(tokens) {}
    }
  }

  @Suite struct PerformanceHintCounterTests {
    @Test func anActionQualifiesWithAtLeast64ObserversAndAtLeast90PercentUnchanged() {
      #expect(PerformanceHintCounter.qualifies(observers: 64, unchanged: 58))
      #expect(!PerformanceHintCounter.qualifies(observers: 64, unchanged: 57))
      #expect(!PerformanceHintCounter.qualifies(observers: 63, unchanged: 63))
      #expect(PerformanceHintCounter.qualifies(observers: 1_000, unchanged: 900))
      #expect(!PerformanceHintCounter.qualifies(observers: 1_000, unchanged: 899))
    }

    @Test func aShapeIsDueOnceAtItsThirdQualifyingAction() {
      var counter = PerformanceHintCounter()
      let shape = PerformanceHintCounter.Shape.reevaluation
      #expect(counter.note(shape, observers: 100, unchanged: 99) == nil)
      #expect(counter.note(shape, observers: 100, unchanged: 0) == nil)
      #expect(counter.note(.rerun(\HintRows.State.rows), observers: 100, unchanged: 99) == nil)
      #expect(counter.note(shape, observers: 100, unchanged: 99) == nil)
      #expect(counter.note(shape, observers: 100, unchanged: 99) == 3)
      #expect(counter.note(shape, observers: 100, unchanged: 99) == nil)
    }

    @Test func elementChangesCountPairwiseDifferences() {
      let old = [1, 2, 3, 4]
      #expect(old.elementChanges(to: [1, 2, 9, 4]) == ElementChanges(changed: 1, count: 4))
      #expect(old.elementChanges(to: [1, 2, 3]) == ElementChanges(changed: 1, count: 3))
      #expect(old.elementChanges(to: ["a"]) == nil)
    }
  }

  extension PerformanceHintCounterTests {
    struct Nested: Sendable {
      var list = HintRows.State()
    }

    @Test func theHintNamesTheCollectionFromItsKeyPath() {
      #expect(PerformanceHintCounter.collectionName(in: \HintRows.State.rows, last: true) == "rows")
      #expect(
        PerformanceHintCounter.collectionName(in: \Nested.list.others, last: true) == "others")
      #expect(
        PerformanceHintCounter.collectionName(in: \HintRows.State.rows[id: 3]?.value) == "rows")
    }
  }
#endif
