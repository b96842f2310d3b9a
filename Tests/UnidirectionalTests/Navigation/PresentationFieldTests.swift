import Dispatch
import Testing

@testable import Unidirectional

/// `ifLet` reaches a presentation by address once it has found the stored property its key path
/// reads and writes (`PresentationField`): the right property, never a wrong one, and the key
/// path itself whenever no property can be proven to be it.
@Suite struct PresentationFieldTests {
  struct Child: Equatable, Sendable {
    var count = 0
  }

  struct Wrapped: Sendable {
    var before = 1
    @PresentationState var first: Child?
    var between = "text"
    @PresentationState var second: Child?

    static var firstOffset: Int? { MemoryLayout<Self>.offset(of: \Self._first) }
    static var secondOffset: Int? { MemoryLayout<Self>.offset(of: \Self._second) }
  }

  struct Generic<Payload: Sendable>: Sendable {
    var payload: Payload
    @PresentationState var child: Child?

    static var childOffset: Int? { MemoryLayout<Self>.offset(of: \Self._child) }
  }

  /// Computed properties that do not read and write one stored presentation.
  struct Elsewhere: Sendable {
    enum Mode: Sendable {
      case showing(PresentationState<Child>)
      case idle
    }
    var mode = Mode.idle
    var table: [String: PresentationState<Child>] = [:]
    var ignored = PresentationState<Child>(wrappedValue: nil)

    var inEnum: PresentationState<Child> {
      get {
        if case .showing(let presentation) = mode { presentation } else { .init(wrappedValue: nil) }
      }
      set { mode = .showing(newValue) }
    }
    var inDictionary: PresentationState<Child> {
      get { table["child"] ?? .init(wrappedValue: nil) }
      set { table["child"] = newValue }
    }
    /// Reads the stored presentation, but writes are dropped.
    var readOnlyInEffect: PresentationState<Child> {
      get { ignored }
      set {}
    }
  }

  struct Nested: Sendable {
    var inner = Wrapped()
  }

  @Test func aWrappersProjectionIsFoundAtItsStoredProperty() throws {
    let state = Wrapped()
    let first = try #require(Wrapped.firstOffset)
    let second = try #require(Wrapped.secondOffset)
    #expect(PresentationField.resolve(\Wrapped.$first, probing: state) == first)
    // Two properties of the same type: the probe tells them apart.
    #expect(PresentationField.resolve(\Wrapped.$second, probing: state) == second)
  }

  @Test func aPresentedStateDoesNotConfuseTheProbe() throws {
    var state = Wrapped()
    state.first = Child(count: 1)
    state.second = Child(count: 2)
    #expect(PresentationField.resolve(\Wrapped.$second, probing: state) == Wrapped.secondOffset)
    // The probe wrote to a copy: the state passed in is untouched.
    #expect(state.first == Child(count: 1))
    #expect(state.second == Child(count: 2))
  }

  @Test func aStoredPresentationHasItsOffset() {
    #expect(
      PresentationField.resolve(\Elsewhere.ignored, probing: Elsewhere())
        == MemoryLayout<Elsewhere>.offset(of: \Elsewhere.ignored))
  }

  @Test func aGenericParentsFieldsAreReadWithItsGenericArguments() throws {
    let state = Generic(payload: [1, 2, 3])
    let offset = try #require(Generic<[Int]>.childOffset)
    #expect(PresentationField.resolve(\Generic<[Int]>.$child, probing: state) == offset)
  }

  @Test func computedPropertiesThatStoreElsewhereKeepTheirKeyPath() {
    let state = Elsewhere()
    #expect(PresentationField.resolve(\Elsewhere.inEnum, probing: state) == nil)
    #expect(PresentationField.resolve(\Elsewhere.inDictionary, probing: state) == nil)
    #expect(PresentationField.resolve(\Elsewhere.readOnlyInEffect, probing: state) == nil)
  }

  @Test func aPathThroughANestedStateKeepsItsKeyPath() {
    #expect(PresentationField.resolve(\Nested.inner.$first, probing: Nested()) == nil)
  }

  @Test func lookUpsAgreeWithTheResolution() throws {
    var state = Wrapped()
    let expected = try #require(Wrapped.secondOffset)
    // The first look-up resolves; the next ones come from the tables.
    for _ in 0..<3 {
      #expect(PresentationField.offset(of: \Wrapped.$second, probing: &state) == expected)
    }
    var elsewhere = Elsewhere()
    #expect(PresentationField.offset(of: \Elsewhere.inEnum, probing: &elsewhere) == nil)
  }

  /// Key paths made in generic code are new objects each time: found by equality.
  @Test func keyPathsMadeInGenericCodeAreFoundByEquality() throws {
    func keyPath<Payload>(_: Payload.Type) -> WritableKeyPath<
      Generic<Payload>, PresentationState<Child>
    > {
      \.$child
    }
    var state = Generic(payload: "payload")
    let expected = try #require(Generic<String>.childOffset)
    for _ in 0..<3 {
      #expect(PresentationField.offset(of: keyPath(String.self), probing: &state) == expected)
    }
  }

  /// Two presentations of one type, each with its own `ifLet`: every action reaches its own.
  struct Pair: Reducer {
    enum Action: Sendable {
      case first(PresentationAction<Int>)
      case second(PresentationAction<Int>)
      case present
      case replaceSecond
    }
    struct Counter: Reducer {
      func reduce(into state: inout Child, action: Int) -> Effect<Int> {
        state.count += action
        return .none
      }
    }
    var body: some Reducer<Wrapped, Action> {
      Reduce { state, action in
        switch action {
        case .present:
          state.first = Child()
          state.second = Child()
        case .replaceSecond:
          state.second = Child(count: 100)
        case .first, .second:
          break
        }
        return .none
      }
      .ifLet(\.$first, action: .case(Action.first)) { Counter() }
      .ifLet(\.$second, action: .case(Action.second)) { Counter() }
    }
  }

  @Test func twoPresentationsOfOneTypeEachGetTheirOwnActions() {
    let store = Store(initialState: Wrapped()) { Pair() }
    store.send(.present)
    store.send(.first(.presented(1)))
    store.send(.second(.presented(10)))
    store.send(.second(.presented(10)))
    #expect(store.first == Child(count: 1))
    #expect(store.second == Child(count: 20))
    store.send(.replaceSecond)
    store.send(.second(.presented(1)))
    #expect(store.second == Child(count: 101))
    store.send(.first(.dismiss))
    #expect(store.first == nil)
    #expect(store.second == Child(count: 101))
  }

  /// Threads that meet the same key paths for the first time at once all get their answers.
  @Test func threadsResolvingAtOnceAgree() throws {
    struct Many: Sendable {
      @PresentationState var a: Child?
      @PresentationState var b: Child?
      static var offsets: [Int?] {
        [MemoryLayout<Self>.offset(of: \Self._a), MemoryLayout<Self>.offset(of: \Self._b)]
      }
    }
    // Safe to share: key paths are immutable.
    nonisolated(unsafe) let keyPaths: [WritableKeyPath<Many, PresentationState<Child>>] = [
      \.$a, \.$b,
    ]
    let wrong = Locked(0)
    DispatchQueue.concurrentPerform(iterations: 8) { thread in
      var state = Many()
      for round in 0..<100 {
        let index = (thread + round) % 2
        if PresentationField.offset(of: keyPaths[index], probing: &state) != Many.offsets[index] {
          wrong.withLock { $0 += 1 }
        }
      }
    }
    #expect(wrong.withLock { $0 } == 0)
    #expect(Many.offsets.allSatisfy { $0 != nil })
  }

  /// A presentation kept in an object, behind a computed property of a parent that has a
  /// presentation of its own: the probe's write reaches the object, and must be undone.
  final class Box: @unchecked Sendable {
    // Safe: the tests touch it from one thread at a time.
    var presentation: PresentationState<Child>
    init(_ child: Child?) { presentation = PresentationState(wrappedValue: child) }
  }

  struct Boxed: Sendable {
    @PresentationState var local: Child?
    var box: Box
    var boxed: PresentationState<Child> {
      get { box.presentation }
      set { box.presentation = newValue }
    }
  }

  final class Model: @unchecked Sendable {
    // Safe: the tests touch it from one thread at a time.
    @PresentationState var sheet: Child?
    init(_ child: Child?) { sheet = child }
  }

  struct Modelled: Sendable {
    @PresentationState var local: Child?
    var model: Model
  }

  /// Writes the presentation, and counts the writes in the parent's own storage.
  struct Counting: Sendable {
    @PresentationState var child: Child?
    var writes = 0
    var counted: PresentationState<Child> {
      get { $child }
      set {
        $child = newValue
        writes += 1
      }
    }
  }

  @Test func aProbeThroughAnObjectLeavesTheObjectAsItWas() {
    let box = Box(Child(count: 5))
    #expect(PresentationField.resolve(\Boxed.boxed, probing: Boxed(box: box)) == nil)
    #expect(box.presentation.wrappedValue == Child(count: 5))
    let empty = Box(nil)
    #expect(PresentationField.resolve(\Boxed.boxed, probing: Boxed(box: empty)) == nil)
    // Not left holding the probe's identity without a value.
    #expect(empty.presentation.presentationID == nil)
  }

  @Test func aStoreWithAPresentationInAnObjectRunsItsChild() {
    struct Feature: Reducer {
      enum Action: Sendable {
        case boxed(PresentationAction<Int>)
        case nothing
      }
      var body: some Reducer<Boxed, Action> {
        Reduce { _, _ in .none }
          .ifLet(\.boxed, action: .case(Action.boxed)) { Pair.Counter() }
      }
    }
    let box = Box(nil)
    let store = Store(initialState: Boxed(box: box)) { Feature() }
    store.send(.nothing)
    box.presentation.wrappedValue = Child()
    store.send(.boxed(.presented(3)))
    #expect(box.presentation.wrappedValue == Child(count: 3))
  }

  @Test func aPathThroughAClassIsNeverProbed() {
    let model = Model(Child(count: 5))
    #expect(
      PresentationField.resolve(\Modelled.model.$sheet, probing: Modelled(model: model)) == nil)
    #expect(model.sheet == Child(count: 5))
  }

  @Test func aSetterThatAlsoWritesElsewhereKeepsItsKeyPath() {
    #expect(PresentationField.resolve(\Counting.counted, probing: Counting()) == nil)
    #expect(PresentationField.resolve(\Counting.$child, probing: Counting()) != nil)
  }

  @Test func keyPathsWithChangingArgumentsAreKeptUpToALimit() {
    struct Rows: Sendable {
      @PresentationState var own: Child?
      var rows: [Int: PresentationState<Child>] = [:]
      subscript(row id: Int) -> PresentationState<Child> {
        get { rows[id] ?? PresentationState(wrappedValue: nil) }
        set { rows[id] = newValue }
      }
    }
    var state = Rows()
    // A cache of its own: filling the process's would change what other tests see.
    let cache = PresentationField.KeyPathCache(limit: 50)
    let own = cache.offset(of: \Rows.$own, probing: &state)
    #expect(own != nil)
    for id in 0..<100 {
      #expect(cache.offset(of: \Rows.[row: id], probing: &state) == nil)
    }
    #expect(cache.count == 50)
    // Still answered for paths kept before.
    #expect(cache.offset(of: \Rows.$own, probing: &state) == own)
  }
}
