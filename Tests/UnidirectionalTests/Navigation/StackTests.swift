import Testing
import Unidirectional
import UnidirectionalTestSupport

@Suite struct StackStateTests {
  @Test func idsAreAssignedInOrderAndNeverReused() {
    var stack: StackState<String> = ["a", "b", "c"]
    #expect(stack.ids == [0, 1, 2])
    #expect(stack.popLast() == "c")
    stack.append("d")
    #expect(stack.ids == [0, 1, 3])
    stack.removeAll()
    #expect(stack.isEmpty)
    stack.append("e")
    #expect(stack.ids == [4])
    #expect(stack.nextID == 5)
  }

  @Test func idsSurvivePushesAndPops() {
    var stack = StackState(["a", "b"])
    stack.append("c")
    stack.append("d")
    stack.pop(from: 3)
    stack.append("e")
    #expect(stack.ids == [0, 1, 2, 4])
    #expect(stack[id: 1] == "b")
    #expect(stack[id: 4] == "e")
    #expect(stack[id: 3] == nil)
    #expect(stack.index(id: 4) == 3)
    #expect(stack.index(id: 3) == nil)
  }

  @Test func indexByIDFindsEveryElementAndNoOtherID() {
    var stack = StackState<Int>()
    #expect(stack.index(id: 0) == nil)
    for size in 1...20 {
      stack.append(size)
      // Gaps in the ids: every third element is removed from the middle.
      if size % 3 == 0 { stack[id: stack.ids[stack.count / 2]] = nil }
      for (position, id) in stack.ids.enumerated() {
        #expect(stack.index(id: id) == position)
      }
      let present = Set(stack.ids)
      for generation in 0...(size + 2) {
        let id = StackElementID(integerLiteral: generation)
        if !present.contains(id) { #expect(stack.index(id: id) == nil) }
      }
    }
  }

  @Test func popFromAndPopTo() {
    var stack = StackState(["a", "b", "c", "d"])
    stack.pop(to: 1)
    #expect(Array(stack) == ["a", "b"])
    #expect(stack.ids == [0, 1])
    stack.pop(to: 9)  // No such id: nothing happens.
    stack.pop(from: 9)
    #expect(stack.ids == [0, 1])
    stack.pop(from: 0)
    #expect(stack.isEmpty)
    stack.append("e")
    stack.append("f")
    stack.append("g")
    stack.removeLast(2)
    #expect(Array(stack) == ["e"])
    #expect(stack.ids == [4])
  }

  @Test func subscriptByIDReadsWritesAndRemovesOneElement() {
    var stack = StackState(["a", "b", "c"])
    stack[id: 1] = "B"
    stack[id: 0]? += "!"
    #expect(Array(stack) == ["a!", "B", "c"])
    stack[id: 1] = nil
    #expect(Array(stack) == ["a!", "c"])
    #expect(stack.ids == [0, 2])
    stack[id: 7] = "x"  // Ids are given by pushing: nothing happens.
    stack[id: 7]? += "y"
    #expect(Array(stack) == ["a!", "c"])
  }

  @Test func collectionSemantics() {
    let stack = StackState([10, 20, 30])
    #expect(stack.count == 3)
    #expect(stack.first == 10)
    #expect(stack.last == 30)
    #expect(stack[1] == 20)
    #expect(stack.map { $0 / 10 } == [1, 2, 3])
    #expect(Array(stack.reversed()) == [30, 20, 10])
    #expect(stack.distance(from: stack.startIndex, to: stack.endIndex) == 3)
    #expect(StackState<Int>().isEmpty)
  }

  @Test func equalityComparesIDsAndElementsOnly() {
    var a = StackState(["x", "y"])
    let b = StackState(["x", "y"])
    #expect(a == b)  // Two stacks, same ids and elements.
    a.popLast()
    a.append("y")
    #expect(a != b)  // Same elements, but "y" is now #2.
    #expect(a.ids == [0, 2])
  }

  @Test func elementIDs() {
    let zero: StackElementID = 0
    let two: StackElementID = 2
    #expect(zero < two)
    #expect(two.description == "#2")
    #expect([two, zero].sorted() == [zero, two])
  }
}

@Suite(.timeLimit(.minutes(1))) struct StackTests {
  let log = Log<String>()
  let issues = Log<String>()
  let gate = Gate()

  func makeStore(path ids: [Int] = [1, 2, 3]) -> Store<Navigator.State, Navigator.Action> {
    var state = Navigator.State()
    state.path = StackState(ids.map { Screen.State(id: $0) })
    state.other = StackState(ids.map { Screen.State(id: $0) })
    return Store(initialState: state, reducer: Navigator(log: log, gate: gate)) { [issues] in
      issues.append($0.description)
    }
  }

  @Test func anElementActionRunsTheElementThenTheParent() {
    let store = makeStore()
    store.send(.path(.element(id: 1, action: .increment)))
    #expect(store.path[id: 1]?.count == 1)
    #expect(store.path[id: 0]?.count == 0)
    #expect(store.events == ["parent saw increment on #1, count 1"])
    #expect(issues.values.isEmpty)
  }

  @Test func popFromPopsAfterTheParentAndCancelsThePoppedEffects() async {
    let store = makeStore()
    let below = store.send(.path(.element(id: 0, action: .waitThenTick)))
    let one = store.send(.path(.element(id: 1, action: .workUntilCancelled)))
    let two = store.send(.path(.element(id: 2, action: .workUntilCancelled)))
    store.send(.path(.popFrom(id: 1)))
    #expect(store.events.last == "parent saw popFrom #1, depth 3")
    #expect(store.path.ids == [0])
    await one.finish()
    await two.finish()
    #expect(Set(log.values) == ["screen 2 cancelled", "screen 3 cancelled"])
    // The element below keeps its effects.
    gate.open()
    await below.finish()
    #expect(store.path[id: 0]?.count == 1)
    // The popped elements' stale ticks came from their cancelled tasks: dropped in silence.
    #expect(issues.values.isEmpty, "\(issues.values)")
  }

  @Test func aParentPopCancelsThePoppedElementsEffects() async {
    let store = makeStore()
    let work = store.send(.path(.element(id: 2, action: .workUntilCancelled)))
    store.send(.popLast)
    await work.finish()
    #expect(log.values == ["screen 3 cancelled"])
    #expect(store.path.ids == [0, 1])
  }

  @Test func replacingTheWholeStackCancelsItsElementsEffects() async {
    let store = makeStore(path: [1])
    let work = store.send(.path(.element(id: 0, action: .workUntilCancelled)))
    // A new stack: its element is #0 too, but another element, which the old effects never reach.
    store.send(.replacePath(9))
    await work.finish()
    #expect(log.values == ["screen 1 cancelled"])
    #expect(store.path[id: 0] == Screen.State(id: 9))
  }

  @Test func dismissFromAnElementPopsItAndThoseAbove() async {
    let store = makeStore()
    let above = store.send(.path(.element(id: 2, action: .workUntilCancelled)))
    await store.send(.path(.element(id: 1, action: .close))).finish()
    #expect(store.path.ids == [0])
    #expect(store.events.last == "parent saw popFrom #1, depth 3")
    await above.finish()
    #expect(log.values.contains("screen 3 cancelled"))
    #expect(log.values.contains("screen 2 dismiss returned, cancelled: true"))
  }

  @Test func pushAppendsWithTheGivenIDAfterTheParent() {
    let store = makeStore(path: [1])
    store.send(.path(.push(id: 5, state: Screen.State(id: 50))))
    #expect(store.events == ["parent saw push #5, depth 1"])
    #expect(store.path.ids == [0, 5])
    store.send(.push(60))
    #expect(store.path.ids == [0, 5, 6])
  }

  @Test func aPushWithAUsedIDIsReportedAndIgnored() {
    let store = makeStore(path: [1, 2])
    store.send(.popLast)
    store.send(.path(.push(id: 1, state: Screen.State(id: 9))))
    #expect(store.path.ids == [0])
    #expect(issues.values.count == 1)
    #expect(issues.values.first?.contains("#1 was used; the next is #2") == true)
  }

  @Test func anActionForAMissingElementIsReportedAndIgnored() {
    let store = makeStore()
    store.send(.popLast)
    store.send(.path(.element(id: 2, action: .increment)))
    store.send(.path(.popFrom(id: 2)))
    #expect(store.path.ids == [0, 1])
    #expect(issues.values.count == 2)
    #expect(issues.values.allSatisfy { $0.contains("the stack element with id #2 was absent") })
  }

  /// The stack's reducer tells consecutive ids by the lowest and the highest: ids with a gap
  /// are not taken for a run, so the gap's ids stay missing.
  @Test func aPopFromForAnIDInAGapOfTheStacksIDsIsReportedAndIgnored() {
    let store = makeStore()
    store.send(.popLast)
    store.send(.push(4))  // #0 #1 #3
    store.send(.path(.popFrom(id: 2)))
    #expect(store.path.ids == [0, 1, 3])
    #expect(issues.values.count == 1)
    #expect(issues.values.first?.contains("the stack element with id #2 was absent") == true)
  }

  /// Elements a parent pops from a stack whose ids have gaps have their effects cancelled, and
  /// the others keep theirs, as for consecutive ids.
  @Test func aParentPopFromAStackWithGapsCancelsOnlyThePoppedElementsEffects() async {
    let store = makeStore()
    store.send(.popLast)
    store.send(.push(4))  // #0 #1 #3
    let below = store.send(.path(.element(id: 1, action: .waitThenTick)))
    let top = store.send(.path(.element(id: 3, action: .workUntilCancelled)))
    store.send(.popLast)
    await top.finish()
    #expect(log.values == ["screen 4 cancelled"])
    gate.open()
    await below.finish()
    #expect(store.path[id: 1]?.count == 1)
  }

  @Test func twoStacksKeepTheirElementsEffectsApart() async {
    let store = makeStore(path: [1, 2])
    let inOther = store.send(.other(.element(id: 1, action: .waitThenTick)))
    let inPath = store.send(.path(.element(id: 1, action: .workUntilCancelled)))
    store.send(.path(.popFrom(id: 1)))
    await inPath.finish()
    gate.open()
    await inOther.finish()
    #expect(store.other[id: 1]?.count == 1)
  }

  @Test func anElementsOwnCancellationStaysSilent() async {
    let store = makeStore()
    let work = store.send(.path(.element(id: 0, action: .startCancellableWork)))
    store.send(.path(.element(id: 0, action: .cancelWork)))
    await work.finish()
    #expect(log.values == ["screen 1 work cancelled"])
    #expect(issues.values.isEmpty)
  }

  /// A parent that restores an earlier copy of its stack (an undo) pops the elements pushed
  /// since: their effects are cancelled. The copy is the same stack (same identity), and a
  /// restored copy may hold as many elements as the stack it replaces, with other ids.
  @Test func restoringAnEarlierCopyOfTheStackCancelsTheEffectsOfElementsPushedSince() async {
    struct Undoable: Reducer {
      struct State: Sendable {
        var path = StackState<Screen.State>([Screen.State(id: 1)])
        var saved = StackState<Screen.State>()
      }
      enum Action: Sendable {
        case path(StackAction<Screen.State, Screen.Action>)
        case save, push(Int), popLast, restore
      }
      let log: Log<String>
      let gate: Gate
      var body: some Reducer<State, Action> {
        Reduce { state, action in
          switch action {
          case .save: state.saved = state.path
          case .push(let id): state.path.append(Screen.State(id: id))
          case .popLast: state.path.popLast()
          case .restore: state.path = state.saved
          case .path: break
          }
          return .none
        }
        .forEach(\.path, action: .case(Action.path)) { Screen(log: log, gate: gate) }
      }
    }
    let store = Store(initialState: Undoable.State(), reducer: Undoable(log: log, gate: gate))
    store.send(.push(2))
    store.send(.save)  // Saved: #0 and #1.
    store.send(.popLast)
    store.send(.push(3))  // Now #0 and #2: as many elements, another top.
    let work = store.send(.path(.element(id: 2, action: .workUntilCancelled)))
    let kept = store.send(.path(.element(id: 0, action: .workUntilCancelled)))
    store.send(.restore)
    #expect(store.path.ids == [0, 1])
    #expect(work.isCancelled)
    #expect(!kept.isCancelled)
    kept.cancel()
    await work.finish()
    await kept.finish()
  }
}
