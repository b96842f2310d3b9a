// Over 300 lines on purpose: the oracle's generator, its independent model of the observation
// contract and the runner that compares them share private types; each is a MARK section.

import Foundation
import Testing
import Unidirectional
import UnidirectionalTestSupport

/// A differential test of the observation engine against an independent model of its contract.
///
/// A seeded generator builds a run of events: observers that are small programs of reads
/// (stored, nested and computed key paths, reads behind guards that make later reads valid,
/// element reads by id, reads through row stores, whole-state reads, values compared by
/// identity or not comparable at all), some of which cancel themselves, cancel others or
/// register new observers while they run; actions that reassign collections to equal values on
/// fresh buffers and then mutate them in place, shrink and grow arrays, clear optionals, write
/// NaNs, swap class instances and remove and re-add rows; changes of shared values (see
/// ``Shared``): the store's own `withLock`, sometimes to the value it has, a second store's
/// `withLock` on the same value, and another process's write of the file a value is kept in,
/// which reach the store as actions it receives (and from observers, the store's own change
/// queued before the second store's, which then arrives older than the copy); and reads outside
/// any observer.
///
/// The model is plain Swift: for every live observer it keeps the values its latest run read,
/// decides after each action which observers must run (a read is changed when `!=` says so and
/// its bits differ, when `!==` does for class instances, and always for other types), runs them
/// in registration order with the rules for cancellation and registration during a run, and
/// predicts every value each run reads. A change of a shared value made elsewhere is an action
/// like any other: the model predicts the action the store receives (and whether it receives
/// one: a file written with the bytes it already had is no change), and the store must receive
/// exactly that; the model keeps the copies of shared values itself, never through ``Shared``.
/// The store must run exactly those observers, in that order, reading exactly those values;
/// observers and the release of their closures must never happen under a store lock; reads
/// outside observers must leave no trace in the store's observation footprint; cancelled
/// observers must be gone.
///
/// Each run keeps its shared values in a ``SharedStorage`` of its own: runs, and tests running
/// in parallel, never see each other's values. A change from elsewhere is delivered from a
/// queue; the runner then awaits ``SharedStorage/delivered()``, which returns once the store has
/// received and reduced it (a fact, not a wait of some length).
///
/// On a mismatch the test prints the seed and a shrunk sequence of events that still fails.
///
/// Generators and checks can be switched off with `UNIDIRECTIONAL_ORACLE_OFF`, a comma-separated
/// list of ``Feature`` names (for example `guardedReads,outsideReads`), to isolate a failure.
/// `UNIDIRECTIONAL_OBSERVATION_SOAK=10000000` runs one long soak of that many actions
/// (`UNIDIRECTIONAL_OBSERVATION_SOAK_SEED` picks its seed).
@Suite struct ObservationOracleTests {
  // MARK: - State

  struct Inner: Hashable, Sendable, CustomStringConvertible {
    var a = 0
    var b = "b"
    var flag = false

    var description: String { "Inner(a: \(a), b: \(b.debugDescription), flag: \(flag))" }
  }

  /// Sixteen words: spans two 64-byte blocks, and more when nested.
  struct Wide: Hashable, Sendable {
    var w0 = 0, w1 = 0, w2 = 0, w3 = 0, w4 = 0, w5 = 0, w6 = 0, w7 = 0
    var w8 = 0, w9 = 0, w10 = 0, w11 = 0, w12 = 0, w13 = 0, w14 = 0, w15 = 0
  }

  /// Nested structs spanning several blocks.
  struct Deep: Hashable, Sendable {
    var head = 0
    var wide = Wide()
    var inner = Inner()
    var tail = 0
  }

  /// An `Equatable` struct holding a `Double` that may be NaN.
  struct Gauge: Hashable, Sendable {
    var ratio = 0.0
    var count = 0
  }

  struct Row: Identifiable, Hashable, Sendable {
    let id: Int
    var value: Int
    var label: String
  }

  /// Compared by identity.
  final class Instance: Sendable, CustomStringConvertible {
    let tag: Int
    init(tag: Int) { self.tag = tag }
    var description: String { "Instance(tag: \(tag))" }
  }

  /// Neither `Equatable` nor a class: changed after every action.
  struct Unequatable: Sendable {
    var value: Int
  }

  struct State: Sendable {
    var x = 0
    var y: Int8 = 0
    var name = "a"
    var inner = Inner()
    var wide = Wide()
    var list = [0, 1, 2, 3, 4]
    var table = ["a": 1]
    var tags: Set<String> = ["x"]
    var optional: Inner? = Inner()
    var ratio = 0.0
    var gauge = Gauge()
    var instance = Instance(tag: 0)
    var opaque = Unequatable(value: 0)
    var deep = Deep()
    var rows = IdentifiedArray(
      uniqueElements: (0..<4).map { Row(id: $0, value: $0 * 10, label: "r\($0)") })
    var z = 0
    /// Changed by the store's actions and by the second store's (see `Harness`).
    var shared = Shared(.inMemory("oracle"), default: 0)
    /// Kept in an in-memory file, which only "another process" writes (`SharedStorage.setFile`).
    var file = Shared(.file(filePath), default: 0)
  }

  /// The file `State.file` is kept in, in each run's storage.
  static let filePath = "/oracle.json"

  /// Values written to the `Double`s: the same NaN again must count as unchanged, another NaN
  /// (or `-0.0` after `0.0`, which is `==`) as the rules say.
  enum Ratio: CaseIterable, Sendable, CustomStringConvertible {
    case zero, negativeZero, one, nan, otherNaN, negativeNaN

    var value: Double {
      switch self {
      case .zero: 0
      case .negativeZero: -0.0
      case .one: 1
      case .nan: .nan
      case .otherNaN: Double(nan: 5, signaling: false)
      case .negativeNaN: -Double.nan
      }
    }

    var description: String {
      switch self {
      case .zero: "0.0"
      case .negativeZero: "-0.0"
      case .one: "1.0"
      case .nan: "nan"
      case .otherNaN: "nan(payload 5)"
      case .negativeNaN: "-nan"
      }
    }
  }

  enum RowAction: Sendable {
    case setValue(Int), setLabel(String)
  }

  enum Action: Sendable {
    case setX(Int), setY(Int8), setZ(Int)
    case setName(String), reloadName, appendToName(String)
    case setInnerA(Int), setInnerB(String), toggleFlag
    case setWide(Int, Int), setDeepWide(Int, Int), setDeepInnerA(Int), setDeepHead(Int)
    case setDeepTail(Int)
    case setListElement(Int, Int), appendToList(Int), removeLastFromList, truncateList, reloadList
    case setTableEntry(String, Int?), reloadTable
    case insertTag(String), removeTag(String), reloadTags
    case setOptional(Inner?), setOptionalA(Int), setOptionalB(String)
    case setRatio(Ratio), setGaugeRatio(Ratio), setGaugeCount(Int)
    case newInstance(tag: Int), sameInstance
    case setOpaque(Int)
    case setRowValue(id: Int, Int), setRowLabel(id: Int, String), removeRow(id: Int)
    case addRow(id: Int, value: Int), replaceRow(id: Int, value: Int), reloadRows, sortRows
    case row(id: Int, RowAction)
    case noop
    /// `withLock` on the shared value.
    case setShared(Int)
    /// Received: the shared value, or the file's, changed elsewhere.
    case sharedChanged(SharedChange<Int>), fileChanged(SharedChange<Int>)
  }

  static let wideFields: [WritableKeyPath<Wide, Int> & Sendable] = [
    \.w0, \.w1, \.w2, \.w3, \.w4, \.w5, \.w6, \.w7,
    \.w8, \.w9, \.w10, \.w11, \.w12, \.w13, \.w14, \.w15,
  ]

  static let minimumListCount = 3
  static let maximumListCount = 12
  static let rowIDs = 0..<6

  /// The reducer, shared by the store and the model (each applies it to its own state, so the
  /// model never shares a buffer with the store and in-place mutations stay in place), except
  /// for the shared values, whose copies the model keeps itself (see `Model.send(_:)`).
  static func reduce(_ state: inout State, _ action: Action) {
    switch action {
    case .setX(let value): state.x = value
    case .setY(let value): state.y = value
    case .setZ(let value): state.z = value
    case .setName(let value): state.name = value
    case .reloadName:
      var fresh = ""
      fresh.reserveCapacity(80)
      fresh.append(state.name)
      state.name = fresh
    case .appendToName(let suffix):
      if state.name.count > 60 { state.name = "a" }
      state.name.append(suffix)
    case .setInnerA(let value): state.inner.a = value
    case .setInnerB(let value): state.inner.b = value
    case .toggleFlag: state.inner.flag.toggle()
    case .setWide(let index, let value): state.wide[keyPath: wideFields[index]] = value
    case .setDeepWide(let index, let value): state.deep.wide[keyPath: wideFields[index]] = value
    case .setDeepInnerA(let value): state.deep.inner.a = value
    case .setDeepHead(let value): state.deep.head = value
    case .setDeepTail(let value): state.deep.tail = value
    case .setListElement(let index, let value):
      // Out-of-range writes are ignored, so that any sub-sequence of a run is a valid run.
      if state.list.indices.contains(index) { state.list[index] = value }
    case .appendToList(let value):
      if state.list.count < maximumListCount { state.list.append(value) }
    case .removeLastFromList:
      if state.list.count > minimumListCount { state.list.removeLast() }
    case .truncateList: state.list.removeLast(state.list.count - minimumListCount)
    case .reloadList:
      // An equal array on a fresh buffer with spare capacity: later writes happen in place.
      var fresh: [Int] = []
      fresh.reserveCapacity(32)
      fresh.append(contentsOf: state.list)
      state.list = fresh
    case .setTableEntry(let key, let value): state.table[key] = value
    case .reloadTable:
      var fresh = [String: Int](minimumCapacity: 32)
      for (key, value) in state.table { fresh[key] = value }
      state.table = fresh
    case .insertTag(let tag): state.tags.insert(tag)
    case .removeTag(let tag): state.tags.remove(tag)
    case .reloadTags:
      var fresh = Set<String>(minimumCapacity: 32)
      for tag in state.tags { fresh.insert(tag) }
      state.tags = fresh
    case .setOptional(let value): state.optional = value
    case .setOptionalA(let value):
      if state.optional == nil { state.optional = Inner() }
      state.optional?.a = value
    case .setOptionalB(let value):
      if state.optional == nil { state.optional = Inner() }
      state.optional?.b = value
    case .setRatio(let ratio): state.ratio = ratio.value
    case .setGaugeRatio(let ratio): state.gauge.ratio = ratio.value
    case .setGaugeCount(let value): state.gauge.count = value
    case .newInstance(let tag): state.instance = Instance(tag: tag)
    case .sameInstance:
      let instance = state.instance
      state.instance = instance
    case .setOpaque(let value): state.opaque.value = value
    case .setRowValue(let id, let value): state.rows[id: id]?.value = value
    case .setRowLabel(let id, let label): state.rows[id: id]?.label = label
    case .removeRow(let id): state.rows.remove(id: id)
    case .addRow(let id, let value):
      if state.rows[id: id] == nil {
        state.rows.append(Row(id: id, value: value, label: "r\(id)"))
      } else {
        state.rows[id: id]?.value = value
      }
    case .replaceRow(let id, let value):
      state.rows.remove(id: id)
      state.rows.append(Row(id: id, value: value, label: "r\(id)"))
    case .reloadRows:
      // Equal rows in fresh storage with spare capacity (appended and removed again).
      var fresh = IdentifiedArray<Row>()
      for row in state.rows { fresh.append(row) }
      let spares = 1_000..<1_016
      for id in spares { fresh.append(Row(id: id, value: 0, label: "")) }
      for id in spares.reversed() { fresh.remove(id: id) }
      state.rows = fresh
    case .sortRows: state.rows.sort { ($0.value, $0.id) > ($1.value, $1.id) }
    case .row(let id, .setValue(let value)): state.rows[id: id]?.value = value
    case .row(let id, .setLabel(let label)): state.rows[id: id]?.label = label
    case .noop: break
    case .setShared(let value): state.shared.withLock { $0 = value }
    // The copy took the change before the reducer runs (`receivingShared`).
    case .sharedChanged, .fileChanged: break
    }
  }

  /// The second store's reducer: it changes the shared value, and receives nothing.
  static let reducer = Reduce<State, Action> { state, action in
    reduce(&state, action)
    return .none
  }

  /// The store's reducer: it receives the changes of both shared values made elsewhere, and
  /// writes each action it receives to `received` (to compare with the model's).
  static func receivingReducer(
    received: Log<String>
  ) -> some Reducer<State, Action> {
    Reduce<State, Action> { state, action in
      switch action {
      case .sharedChanged, .fileChanged: received.append("\(action)")
      default: break
      }
      reduce(&state, action)
      return .none
    }
    .receivingShared(\.shared, action: .case(Action.sharedChanged))
    .receivingShared(\.file, action: .case(Action.fileChanged))
  }

  // MARK: - Generators and checks

  /// What a run generates and checks. All are on by default; `UNIDIRECTIONAL_ORACLE_OFF` lists
  /// the ones to switch off.
  enum Feature: String, CaseIterable, Sendable {
    // Actions.
    /// Equal reassignments on fresh buffers (list, table, tags, rows, name), usually followed
    /// by an in-place mutation of the same collection.
    case freshBuffers
    /// Arrays that shrink, dictionary entries and tags removed.
    case shrinking
    /// The optional struct set to `nil` (and back).
    case optionalNil
    /// NaN writes (the same NaN again, another NaN), besides `0.0`, `-0.0`, `1.0`.
    case nan
    /// The class instance replaced by itself or by a new one; reads of it.
    case classIdentity
    /// Rows removed, added, removed and re-added in one action, reloaded, sorted.
    case rowChurn
    /// Actions sent through row stores (dropped with an issue once the row is gone).
    case rowStoreSends
    /// Shared values: changed by the store's `withLock` (sometimes to the value they have), by a
    /// second store's `withLock` on the same value, and by another process writing the file one
    /// is kept in (sometimes with the same value, the same bytes, or bytes that do not load);
    /// the store receives the changes made elsewhere as actions, which the model predicts. Reads
    /// of the copies (`store[\.shared.value]`, `store.shared`, behind guards).
    case sharedValues
    // Reads.
    /// Whole arrays, dictionaries and sets read by stored key path (`store.list`): after an
    /// equal write on a shared buffer, the next write happens in place.
    case collectionReads
    /// Computed key paths (`\.list.count`, `\.list[2]`, `\.ratio.magnitude`, ...).
    case computedReads
    /// Reads a guard makes valid (`if store.list.count > 7 { store[\.list[7]] }`, force
    /// unwraps of the optional, of a row by id, of a dictionary entry).
    case guardedReads
    /// `store[\.rows, id:]` and `store[\.rows, id:, \.field]`.
    case elementReads
    /// Reads through row stores (`scope(state: \.rows, id:action:)`).
    case rowStoreReads
    /// Reads through a row store made for the read, during the run, and dropped after it.
    case freshRowStoreReads
    /// Observers registered on a row store.
    case rowHostedObservers
    /// Reads of a non-`Equatable` value.
    case nonEquatable
    /// Reads of `store.state`.
    case wholeState
    /// Reads outside observers, some only valid at that moment.
    case outsideReads
    // Observer effects.
    /// Observers that cancel themselves while running.
    case selfCancel
    /// Observers that cancel another observer while running.
    case cancelOther
    /// Observers that register a new observer while running (during an action).
    case registerDuringRun
    // Checks.
    /// The values every read returned.
    case valueCheck
    /// No observer body or closure release under a store lock.
    case lockCheck
    /// The footprint: registered observers as modelled, unchanged by reads outside observers,
    /// empty at the end.
    case footprintCheck
    /// Cancelled observers' closures are released.
    case releaseCheck

    static let all = Set(allCases)

    /// What the engine before the rewrite already got right (the model was checked against it
    /// with these), for the tests of the oracle itself: with them, only the model's deliberate
    /// mistake can make a run fail, whatever the engine.
    static let basic: Set<Feature> = [
      .computedReads, .elementReads, .nonEquatable, .wholeState, .classIdentity, .shrinking,
      .optionalNil, .cancelOther, .registerDuringRun, .valueCheck, .footprintCheck,
      .releaseCheck,
    ]

    /// All features but those named in `UNIDIRECTIONAL_ORACLE_OFF`.
    static var fromEnvironment: Set<Feature> {
      let off = ProcessInfo.processInfo.environment["UNIDIRECTIONAL_ORACLE_OFF"] ?? ""
      let names = off.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
      for name in names where Feature(rawValue: name) == nil {
        Issue.record(
          Comment(
            rawValue: "UNIDIRECTIONAL_ORACLE_OFF: unknown feature \(name); known: "
              + allCases.map(\.rawValue).joined(separator: ", ")))
      }
      return all.subtracting(names.compactMap(Feature.init(rawValue:)))
    }
  }

  /// Deliberate mistakes in the model, to prove that the oracle catches them.
  struct Rules: Sendable {
    /// Reads (by name) whose changes the model ignores.
    var ignoring: Set<String> = []
    /// Runs the observers that fire in reverse registration order.
    var reverseOrder = false
  }

  // MARK: - Values the model compares

  /// A value the model read, kept to compare with the next one.
  class ValueBox: CustomStringConvertible {
    func isUnchanged(to other: ValueBox) -> Bool { fatalError("abstract") }
    var description: String { fatalError("abstract") }
  }

  /// `Equatable`: unchanged when `==`, or when bit-for-bit identical (a NaN that stayed the same).
  final class EquatableBox<Value: Equatable>: ValueBox {
    let value: Value
    init(_ value: Value) { self.value = value }

    override func isUnchanged(to other: ValueBox) -> Bool {
      guard let other = other as? EquatableBox<Value> else { return false }
      if value == other.value { return true }
      return withUnsafeBytes(of: value) { old in
        withUnsafeBytes(of: other.value) { new in old.elementsEqual(new) }
      }
    }

    override var description: String { String(describing: value) }
  }

  /// A class instance: unchanged while it is the same instance (kept alive here, so a new
  /// instance at a recycled address is still another instance).
  final class IdentityBox: ValueBox {
    let object: AnyObject
    init(_ object: AnyObject) { self.object = object }

    override func isUnchanged(to other: ValueBox) -> Bool {
      (other as? IdentityBox).map { $0.object === object } ?? false
    }

    override var description: String { String(describing: object) }
  }

  /// Neither `Equatable` nor a class: changed after every action.
  final class AlwaysChangedBox: ValueBox {
    let summary: String
    init(_ summary: String) { self.summary = summary }
    override func isUnchanged(to other: ValueBox) -> Bool { false }
    override var description: String { summary }
  }

  /// What a read returned, for the model: a fingerprint (compared with the store's), whether a
  /// guard made of it holds, and the value itself.
  struct Seen {
    let fingerprint: Int
    let holds: Bool
    let box: ValueBox

    init(fingerprint: Int, holds: Bool = true, box: ValueBox) {
      self.fingerprint = fingerprint
      self.holds = holds
      self.box = box
    }

    init<Value: Hashable>(_ value: Value, holds: (Value) -> Bool = { _ in true }) {
      self.init(fingerprint: value.hashValue, holds: holds(value), box: EquatableBox(value))
    }
  }

  /// A read evaluated by the model on a state.
  enum Evaluation {
    /// Not made: it goes through a row store the harness does not have.
    case skipped
    /// Would trap (an index out of range, `nil` force-unwrapped): changed, and never made.
    case invalid
    /// A read through a row store made for it, whose row is absent: not made now (there is no
    /// row store); once made, unchanged (its row store answers from the row it saw).
    case absent
    case value(Seen)
  }

  /// What the model evaluates reads on besides its state.
  struct Context {
    /// The last value of every row seen present after an action (what a row store answers
    /// once its row is gone).
    var lastPresent: [Int: Row] = [:]
    /// The copies of the shared values: the model's state holds ``Shared``s too, in a storage
    /// of its own, which it never changes (that would take the library's word for what a change
    /// does).
    var shared = 0
    var file = 0
  }

  // MARK: - Reads

  typealias RowStore = Store<Row, RowAction>

  /// One read, as the store makes it and as the model evaluates it.
  final class ReadDefinition: Sendable {
    enum Use: Sendable {
      /// Valid in every state: an observer may make it unconditionally.
      case plain
      /// Traps in some states: made only behind a guard, or outside observers when valid.
      case unsafe
      /// The condition of a guard.
      case condition
    }

    let name: String
    let use: Use
    /// The generator it belongs to; `nil` for the basic reads.
    let feature: Feature?
    /// The row whose row store it reads through.
    let rowStore: Int?
    /// Reads through the store; returns the value's fingerprint and whether a guard holds, or
    /// `nil` if the read is not made (see `Evaluation.absent`).
    let perform: @Sendable (Harness) -> (fingerprint: Int, holds: Bool)?
    /// Evaluates the read on the model's state and context.
    let evaluate: @Sendable (UnsafePointer<State>, Context) -> Evaluation

    init(
      name: String, use: Use, feature: Feature?, rowStore: Int?,
      perform: @escaping @Sendable (Harness) -> (fingerprint: Int, holds: Bool)?,
      evaluate: @escaping @Sendable (UnsafePointer<State>, Context) -> Evaluation
    ) {
      self.name = name
      self.use = use
      self.feature = feature
      self.rowStore = rowStore
      self.perform = perform
      self.evaluate = evaluate
    }
  }

  /// A read behind a condition.
  struct Guard: Sendable {
    let condition: Int
    let then: Int
    let feature: Feature?
  }

  /// Every read the generator can use, by index.
  struct Vocabulary: Sendable {
    var definitions: [ReadDefinition] = []
    var guards: [Guard] = []
    /// Conditions for reads that come and go (`if store[\.inner.flag] { ... }`).
    var flags: [Int] = []
    var rowStoreReads: [Int: [Int]] = [:]
    var wholeState = 0

    func indices(_ use: ReadDefinition.Use) -> [Int] {
      definitions.indices.filter { definitions[$0].use == use }
    }

    @discardableResult
    mutating func add(_ definition: ReadDefinition) -> Int {
      definitions.append(definition)
      return definitions.count - 1
    }

    /// `store.member`: dynamic member lookup, tracked as `\.member` (the whole value).
    @discardableResult
    mutating func member<Value: Hashable & Sendable>(
      _ name: String, _ keyPath: KeyPath<State, Value> & Sendable, use: ReadDefinition.Use = .plain,
      feature: Feature? = nil, holds: @escaping @Sendable (Value) -> Bool = { _ in true }
    ) -> Int {
      add(
        ReadDefinition(
          name: "store.\(name)", use: use, feature: feature, rowStore: nil,
          perform: { harness in
            let value = harness.store[dynamicMember: keyPath]
            return (value.hashValue, holds(value))
          },
          evaluate: { state, _ in .value(Seen(state.pointee[keyPath: keyPath], holds: holds)) }))
    }

    /// `store[keyPath]`, tracked as exactly that key path. `valid` says where it does not trap.
    @discardableResult
    mutating func path<Value: Hashable & Sendable>(
      _ name: String, _ keyPath: KeyPath<State, Value> & Sendable, use: ReadDefinition.Use = .plain,
      feature: Feature? = nil, valid: (@Sendable (State) -> Bool)? = nil, suffix: String = "",
      holds: @escaping @Sendable (Value) -> Bool = { _ in true }
    ) -> Int {
      add(
        ReadDefinition(
          name: "store[\\.\(name)]\(suffix)", use: use, feature: feature, rowStore: nil,
          perform: { harness in
            let value = harness.store[keyPath]
            return (value.hashValue, holds(value))
          },
          evaluate: { state, _ in
            if let valid, !valid(state.pointee) { return .invalid }
            return .value(Seen(state.pointee[keyPath: keyPath], holds: holds))
          }))
    }

    /// A read through the store of row `id`: the row's value while it is present, its last value
    /// once it is gone.
    mutating func rowStore<Value: Hashable & Sendable>(
      _ name: String, id: Int, _ read: @escaping @Sendable (RowStore) -> Value,
      _ model: @escaping @Sendable (Row) -> Value
    ) {
      let index = add(
        ReadDefinition(
          name: "row(\(id)).\(name)", use: .plain, feature: .rowStoreReads, rowStore: id,
          perform: { harness in (read(harness.rowStores[id]!).hashValue, true) },
          evaluate: { state, context in
            guard let row = state.pointee.rows[id: id] ?? context.lastPresent[id] else {
              return .invalid
            }
            return .value(Seen(model(row)))
          }))
      rowStoreReads[id, default: []].append(index)
    }

    /// A read through a store of row `id` made for the read, in the observer's run, and dropped
    /// after it: not made while the row is absent. Once made, the read answers from the row it
    /// saw after the row is gone, so the removal is no change (its probe outlives its row store,
    /// whose reader id must not be taken by the next run's row store).
    mutating func freshRowStore<Value: Hashable & Sendable>(
      _ name: String, id: Int, _ read: @escaping @Sendable (RowStore) -> Value,
      _ model: @escaping @Sendable (Row) -> Value
    ) {
      add(
        ReadDefinition(
          name: "scope(\\.rows, id: \(id))?.\(name)", use: .plain, feature: .freshRowStoreReads,
          rowStore: nil,
          perform: { harness in
            let row = harness.store.scope(state: \.rows, id: id) { Action.row(id: id, $0) }
            return row.map { (read($0).hashValue, true) }
          },
          evaluate: { state, _ in
            state.pointee.rows[id: id].map { .value(Seen(model($0))) } ?? .absent
          }))
    }

    /// A read of the copy of a shared value: `read` through the store, `model` from the
    /// model's context (see `Context`).
    @discardableResult
    mutating func shared<Value: Hashable & Sendable>(
      _ name: String, use: ReadDefinition.Use = .plain,
      _ read: @escaping @Sendable (Store<State, Action>) -> Value,
      _ model: @escaping @Sendable (Context) -> Value,
      holds: @escaping @Sendable (Value) -> Bool = { _ in true }
    ) -> Int {
      add(
        ReadDefinition(
          name: name, use: use, feature: .sharedValues, rowStore: nil,
          perform: { harness in
            let value = read(harness.store)
            return (value.hashValue, holds(value))
          },
          evaluate: { _, context in .value(Seen(model(context), holds: holds)) }))
    }

    static func make() -> Vocabulary {
      var v = Vocabulary()
      // Stored values, whole and nested, across the state's blocks.
      v.member("x", \.x)
      v.member("y", \.y)
      v.member("z", \.z)
      v.member("name", \.name)
      v.member("inner", \.inner)
      v.member("wide", \.wide)
      v.member("deep", \.deep)
      v.member("list", \.list, feature: .collectionReads)
      v.member("table", \.table, feature: .collectionReads)
      v.member("tags", \.tags, feature: .collectionReads)
      v.member("optional", \.optional)
      v.member("ratio", \.ratio)
      v.member("gauge", \.gauge)
      v.member("rows", \.rows)
      v.path("inner.a", \.inner.a)
      v.path("inner.b", \.inner.b)
      v.path("inner.flag", \.inner.flag)
      v.path("wide.w0", \.wide.w0)
      v.path("wide.w7", \.wide.w7)
      v.path("wide.w8", \.wide.w8)
      v.path("wide.w15", \.wide.w15)
      v.path("deep.head", \.deep.head)
      v.path("deep.wide.w3", \.deep.wide.w3)
      v.path("deep.wide.w12", \.deep.wide.w12)
      v.path("deep.inner", \.deep.inner)
      v.path("deep.inner.a", \.deep.inner.a)
      v.path("deep.tail", \.deep.tail)
      v.path("ratio", \.ratio)
      v.path("gauge.ratio", \.gauge.ratio)
      v.path("gauge.count", \.gauge.count)
      v.path("opaque.value", \.opaque.value)
      // Computed key paths.
      v.path("list.count", \.list.count, feature: .computedReads)
      v.path("list[0]", \.list[0], feature: .computedReads)
      v.path("list[2]", \.list[2], feature: .computedReads)
      v.path("list.first", \.list.first, feature: .computedReads)
      v.path("list.last", \.list.last, feature: .computedReads)
      v.path("table[\"a\"]", \.table["a"], feature: .computedReads)
      v.path("table.count", \.table.count, feature: .computedReads)
      v.path("tags.count", \.tags.count, feature: .computedReads)
      v.path("optional?.a", \.optional?.a, feature: .computedReads)
      v.path("optional?.b", \.optional?.b, feature: .computedReads)
      v.path("name.utf8.count", \.name.utf8.count, feature: .computedReads)
      v.path("inner.b.count", \.inner.b.count, feature: .computedReads)
      v.path("rows.count", \.rows.count, feature: .computedReads)
      v.path("ratio.magnitude", \.ratio.magnitude, feature: .computedReads)
      v.path("gauge.ratio.magnitude", \.gauge.ratio.magnitude, feature: .computedReads)
      // Identity.
      v.add(
        ReadDefinition(
          name: "store.instance", use: .plain, feature: .classIdentity, rowStore: nil,
          perform: { harness in (harness.store.instance.tag, true) },
          evaluate: { state, _ in
            .value(
              Seen(
                fingerprint: state.pointee.instance.tag, box: IdentityBox(state.pointee.instance)))
          }))
      v.add(
        ReadDefinition(
          name: "store[\\.instance]", use: .plain, feature: .classIdentity, rowStore: nil,
          perform: { harness in (harness.store[\.instance].tag, true) },
          evaluate: { state, _ in
            .value(
              Seen(
                fingerprint: state.pointee.instance.tag, box: IdentityBox(state.pointee.instance)))
          }))
      v.path("instance.tag", \.instance.tag, feature: .classIdentity)
      // Not comparable.
      v.add(
        ReadDefinition(
          name: "store.opaque", use: .plain, feature: .nonEquatable, rowStore: nil,
          perform: { harness in (harness.store.opaque.value, true) },
          evaluate: { state, _ in
            .value(
              Seen(
                fingerprint: state.pointee.opaque.value,
                box: AlwaysChangedBox("Unequatable(value: \(state.pointee.opaque.value))")))
          }))
      v.add(
        ReadDefinition(
          name: "store[\\.opaque]", use: .plain, feature: .nonEquatable, rowStore: nil,
          perform: { harness in (harness.store[\.opaque].value, true) },
          evaluate: { state, _ in
            .value(
              Seen(
                fingerprint: state.pointee.opaque.value,
                box: AlwaysChangedBox("Unequatable(value: \(state.pointee.opaque.value))")))
          }))
      v.wholeState = v.add(
        ReadDefinition(
          name: "store.state", use: .plain, feature: .wholeState, rowStore: nil,
          perform: { harness in
            let state = harness.store.state
            return (fingerprint(state, shared: state.shared.value, file: state.file.value), true)
          },
          evaluate: { state, context in
            let print = fingerprint(state.pointee, shared: context.shared, file: context.file)
            return .value(Seen(fingerprint: print, box: AlwaysChangedBox("(the state)")))
          }))
      // Elements by id.
      for id in rowIDs {
        v.add(
          ReadDefinition(
            name: "store[\\.rows, id: \(id)]", use: .plain, feature: .elementReads,
            rowStore: nil,
            perform: { harness in (harness.store[\.rows, id: id].hashValue, true) },
            evaluate: { state, _ in .value(Seen(state.pointee.rows[id: id])) }))
        v.add(
          ReadDefinition(
            name: "store[\\.rows, id: \(id), \\.value]", use: .plain, feature: .elementReads,
            rowStore: nil,
            perform: { harness in (harness.store[\.rows, id: id, \.value].hashValue, true) },
            evaluate: { state, _ in .value(Seen(state.pointee.rows[id: id]?.value)) }))
        v.add(
          ReadDefinition(
            name: "store[\\.rows, id: \(id), \\.label]", use: .plain, feature: .elementReads,
            rowStore: nil,
            perform: { harness in (harness.store[\.rows, id: id, \.label].hashValue, true) },
            evaluate: { state, _ in .value(Seen(state.pointee.rows[id: id]?.label)) }))
      }
      // Through row stores.
      for id in rowIDs {
        v.rowStore("value", id: id, { $0.value }, { $0.value })
        v.rowStore("label", id: id, { $0.label }, { $0.label })
        v.rowStore("state", id: id, { $0.state }, { $0 })
        v.rowStore("[\\.value]", id: id, { $0[\.value] }, { $0.value })
        v.rowStore("[\\.label.count]", id: id, { $0[\.label.count] }, { $0.label.count })
        v.freshRowStore("value", id: id, { $0.value }, { $0.value })
      }
      // The copies of shared values: a stored field (checked when its bytes change, as the
      // version does at every change), the whole `Shared` (whose `==` compares the copies: a
      // change to the same value is no change), a computed property.
      let sharedValue = v.shared("store[\\.shared.value]", { $0[\.shared.value] }, { $0.shared })
      v.shared("store.shared", { $0.shared.value }, { $0.shared })
      v.shared("store[\\.shared]", { $0[\.shared].value }, { $0.shared })
      v.shared(
        "store[\\.shared.value.magnitude]", { $0[\.shared.value.magnitude] },
        { $0.shared.magnitude })
      let fileValue = v.shared("store[\\.file.value]", { $0[\.file.value] }, { $0.file })
      v.shared("store.file", { $0.file.value }, { $0.file })
      let sharedAboveOne = v.shared(
        "store[\\.shared.value] > 1", use: .condition, { $0[\.shared.value] }, { $0.shared },
        holds: { $0 > 1 })
      let fileNotZero = v.shared(
        "store.file.value != 0", use: .condition, { $0.file.value }, { $0.file },
        holds: { $0 != 0 })
      v.guards.append(Guard(condition: sharedAboveOne, then: fileValue, feature: .sharedValues))
      v.guards.append(Guard(condition: fileNotZero, then: sharedValue, feature: .sharedValues))
      // Guards, and the reads only valid behind them.
      for index in minimumListCount..<maximumListCount {
        let element = v.path(
          "list[\(index)]", \.list[index], use: .unsafe, feature: .guardedReads,
          valid: { $0.list.count > index })
        let byMember = v.member(
          "list.count > \(index)", \.list, use: .condition, feature: .guardedReads,
          holds: { $0.count > index })
        let byCount = v.path(
          "list.count", \.list.count, use: .condition, feature: .guardedReads,
          suffix: " > \(index)", holds: { $0 > index })
        v.guards.append(Guard(condition: byMember, then: element, feature: .guardedReads))
        v.guards.append(Guard(condition: byCount, then: element, feature: .guardedReads))
      }
      let optionalA = v.path(
        "optional!.a", \.optional!.a, use: .unsafe, feature: .guardedReads,
        valid: { $0.optional != nil })
      let optionalB = v.path(
        "optional!.b", \.optional!.b, use: .unsafe, feature: .guardedReads,
        valid: { $0.optional != nil })
      let optionalPresent = v.member(
        "optional != nil", \.optional, use: .condition, feature: .guardedReads,
        holds: { $0 != nil })
      let optionalAPresent = v.path(
        "optional?.a", \.optional?.a, use: .condition, feature: .guardedReads,
        suffix: " != nil", holds: { $0 != nil })
      v.guards.append(Guard(condition: optionalPresent, then: optionalA, feature: .guardedReads))
      v.guards.append(Guard(condition: optionalPresent, then: optionalB, feature: .guardedReads))
      v.guards.append(Guard(condition: optionalAPresent, then: optionalA, feature: .guardedReads))
      for id in rowIDs {
        let value = v.path(
          "rows[id: \(id)]!.value", \.rows[id: id]!.value, use: .unsafe, feature: .guardedReads,
          valid: { $0.rows[id: id] != nil })
        let present = v.add(
          ReadDefinition(
            name: "store[\\.rows, id: \(id)] != nil", use: .condition, feature: .guardedReads,
            rowStore: nil,
            perform: { harness in
              let row = harness.store[\.rows, id: id]
              return (row.hashValue, row != nil)
            },
            evaluate: { state, _ in .value(Seen(state.pointee.rows[id: id], holds: { $0 != nil })) }
          ))
        v.guards.append(Guard(condition: present, then: value, feature: .guardedReads))
      }
      for position in rowIDs {
        let value = v.path(
          "rows[\(position)].value", \.rows[position].value, use: .unsafe,
          feature: .guardedReads, valid: { $0.rows.count > position })
        let count = v.path(
          "rows.count", \.rows.count, use: .condition, feature: .guardedReads,
          suffix: " > \(position)", holds: { $0 > position })
        v.guards.append(Guard(condition: count, then: value, feature: .guardedReads))
      }
      for key in ["a", "b"] {
        let entry = v.path(
          "table[\"\(key)\"]!", \.table[key]!, use: .unsafe, feature: .guardedReads,
          valid: { $0.table[key] != nil })
        let present = v.member(
          "table[\"\(key)\"] != nil", \.table, use: .condition, feature: .guardedReads,
          holds: { $0[key] != nil })
        v.guards.append(Guard(condition: present, then: entry, feature: .guardedReads))
      }
      // Conditions of reads that come and go.
      v.flags.append(v.path("inner.flag", \.inner.flag, use: .condition, holds: { $0 }))
      v.flags.append(v.member("inner.flag", \.inner, use: .condition, holds: { $0.flag }))
      return v
    }
  }

  static let vocabulary = Vocabulary.make()

  /// A fingerprint of the whole state (the comparable parts, and the others' contents), with
  /// the given copies of the shared values.
  static func fingerprint(_ state: State, shared: Int, file: Int) -> Int {
    var hasher = Hasher()
    hasher.combine(state.x)
    hasher.combine(state.y)
    hasher.combine(state.name)
    hasher.combine(state.inner)
    hasher.combine(state.wide)
    hasher.combine(state.list)
    hasher.combine(state.table)
    hasher.combine(state.tags)
    hasher.combine(state.optional)
    hasher.combine(state.ratio)
    hasher.combine(state.gauge)
    hasher.combine(state.instance.tag)
    hasher.combine(state.opaque.value)
    hasher.combine(state.deep)
    hasher.combine(state.rows)
    hasher.combine(state.z)
    hasher.combine(shared)
    hasher.combine(file)
    return hasher.finalize()
  }

  // MARK: - Observers and events

  /// One step of an observer's program.
  enum Step: Sendable, CustomStringConvertible {
    case read(Int)
    case guarded(condition: Int, then: Int)

    var description: String {
      let names = ObservationOracleTests.vocabulary.definitions
      switch self {
      case .read(let index): return names[index].name
      case .guarded(let condition, let then):
        return "if \(names[condition].name) { \(names[then].name) }"
      }
    }
  }

  /// Something an observer does while running, on its `onRun`th run, after `at` steps.
  struct ObserverEffect: Sendable, CustomStringConvertible {
    enum Kind: Sendable {
      case cancelSelf
      case cancel(Int)
      case register(Spec)
      /// Sends `.setShared(own)` to the store, then has the second store send
      /// `.setShared(second)`: the store reduces its own change first (an observer's action is
      /// queued), so the second store's change reaches it older than its copy, and is no change.
      /// Only the first of an event's observers that would do it does.
      case changeSharedTwice(own: Int, second: Int)
    }

    let onRun: Int
    let at: Int
    let kind: Kind

    var description: String {
      let what =
        switch kind {
        case .cancelSelf: "cancels itself"
        case .cancel(let id): "cancels #\(id)"
        case .register(let spec): "registers [\(spec)]"
        case .changeSharedTwice(let own, let second):
          "sends .setShared(\(own)), then the second store sends .setShared(\(second))"
        }
      return "on run \(onRun) after \(at) steps \(what)"
    }
  }

  /// An observer: where it is registered, what it reads, what it does.
  struct Spec: Sendable, CustomStringConvertible {
    let id: Int
    /// The row whose store it is registered on; `nil` for the root store.
    let host: Int?
    let steps: [Step]
    let effects: [ObserverEffect]

    var description: String {
      var text = "#\(id)"
      if let host { text += " on the store of row \(host)" }
      text += " reads " + steps.map(\.description).joined(separator: "; ")
      if !effects.isEmpty { text += "; " + effects.map(\.description).joined(separator: "; ") }
      return text
    }
  }

  enum Event: Sendable, CustomStringConvertible {
    case observe(Spec)
    case cancel(Int)
    /// Cancels every observer: bounds a long run (observers registered by others, or cancelled
    /// by events before they were registered, would otherwise pile up).
    case cancelEveryObserver
    case send(Action)
    case sendToRow(id: Int, RowAction)
    case makeRowStore(id: Int)
    case outsideRead(Step)
    /// The second store, which holds the same shared value, sends `.setShared`: the store
    /// receives the change.
    case sendToSecondStore(Int)
    /// Another process writes the file `State.file` is kept in.
    case writeFile(String)

    var isAction: Bool {
      switch self {
      case .send, .sendToRow, .sendToSecondStore, .writeFile: true
      default: false
      }
    }

    var description: String {
      switch self {
      case .observe(let spec): "observe \(spec)"
      case .cancel(let id): "cancel #\(id)"
      case .cancelEveryObserver: "cancel every observer"
      case .send(let action): "send .\(action)"
      case .sendToRow(let id, let action): "send .\(action) through the store of row \(id)"
      case .makeRowStore(let id): "make the store of row \(id)"
      case .outsideRead(let step): "read outside observers: \(step)"
      case .sendToSecondStore(let value): "the second store sends .setShared(\(value))"
      case .writeFile(let contents):
        "another process writes \(contents.debugDescription) to \(filePath)"
      }
    }
  }

  // MARK: - Generator

  /// Makes the events of a run from a seed, one at a time.
  struct Generator {
    var random: SplitMix64
    let features: Set<Feature>
    let basicReads: [Int]
    let extraReads: [Int]
    /// Reads of shared values, picked apart: they do not make the other extra reads rarer.
    let sharedReads: [Int]
    let unsafeReads: [Int]
    let guards: [Guard]
    let ratios: [Ratio]
    var nextID = 0
    /// Observers issued and not cancelled by an event (some may have cancelled themselves).
    var live: [Int] = []
    var queue: [Event] = []
    /// Events made so far.
    var made = 0

    init(seed: UInt64, features: Set<Feature>) {
      random = SplitMix64(seed: seed)
      self.features = features
      let vocabulary = ObservationOracleTests.vocabulary
      let enabled = { (index: Int) in
        vocabulary.definitions[index].feature.map(features.contains) ?? true
      }
      let plain = vocabulary.indices(.plain).filter(enabled)
      basicReads = plain.filter { vocabulary.definitions[$0].feature == nil }
      extraReads = plain.filter {
        ![nil, .sharedValues].contains(vocabulary.definitions[$0].feature)
      }
      sharedReads = plain.filter { vocabulary.definitions[$0].feature == .sharedValues }
      unsafeReads = vocabulary.indices(.unsafe).filter(enabled)
      guards = vocabulary.guards.filter { $0.feature.map(features.contains) ?? true }
      ratios = features.contains(.nan) ? Ratio.allCases : [.zero, .negativeZero, .one]
      if features.contains(.rowStoreReads) || features.contains(.rowHostedObservers) {
        queue += [.makeRowStore(id: 0), .makeRowStore(id: 2)]
      }
      for _ in 0..<10 { queue.append(.observe(spec(depth: 0))) }
    }

    mutating func chance(_ percent: Int) -> Bool {
      Int.random(in: 0..<100, using: &random) < percent
    }

    mutating func pick<T>(_ elements: [T]) -> T {
      elements[Int.random(in: elements.indices, using: &random)]
    }

    mutating func next() -> Event {
      made += 1
      if made % 4_096 == 0 {
        live.removeAll()
        return .cancelEveryObserver
      }
      if !queue.isEmpty { return queue.removeFirst() }
      let roll = Int.random(in: 0..<100, using: &random)
      switch roll {
      case 0..<4 where live.count < 14:
        return .observe(spec(depth: 0))
      case 4..<7 where !live.isEmpty:
        return .cancel(live.remove(at: Int.random(in: live.indices, using: &random)))
      case 7..<9
      where features.contains(.rowStoreReads) || features.contains(.rowHostedObservers)
        || features.contains(.rowStoreSends):
        return .makeRowStore(id: Int.random(in: rowIDs, using: &random))
      case 9..<14 where features.contains(.outsideReads):
        return .outsideRead(outsideStep())
      case 14..<18 where features.contains(.rowStoreSends):
        let id = Int.random(in: rowIDs, using: &random)
        let small = Int.random(in: 0..<4, using: &random)
        return .sendToRow(
          id: id, chance(70) ? .setValue(small) : .setLabel(pick(["r", "s", Self.longLabel])))
      case 18..<23 where features.contains(.sharedValues):
        return sharedChange()
      default:
        let actions = self.actions()
        queue += actions.dropFirst().map(Event.send)
        return .send(actions[0])
      }
    }

    static let longLabel = "a label long enough to live on the heap"

    /// A change of a shared value: by the store, by the second store, or from outside. Values
    /// are small, so many changes set the value it has.
    mutating func sharedChange() -> Event {
      let value = Int.random(in: 0..<4, using: &random)
      switch Int.random(in: 0..<100, using: &random) {
      case 0..<35: return .send(.setShared(value))
      case 35..<75: return .sendToSecondStore(value)
      case 75..<90: return .writeFile("\(value)\n")
      // The same value in other bytes: a change, to the same value.
      case 90..<96: return .writeFile(chance(50) ? "\(value)" : " \(value) \n")
      default: return .writeFile("not a number")
      }
    }

    mutating func plainRead() -> Int {
      if !sharedReads.isEmpty, chance(10) { return pick(sharedReads) }
      if extraReads.isEmpty || chance(60) { return pick(basicReads) }
      return pick(extraReads)
    }

    mutating func step() -> Step {
      let roll = Int.random(in: 0..<100, using: &random)
      if roll < 22, !guards.isEmpty {
        let chosen = pick(guards)
        return .guarded(condition: chosen.condition, then: chosen.then)
      }
      if roll < 36 {
        return .guarded(condition: pick(ObservationOracleTests.vocabulary.flags), then: plainRead())
      }
      return .read(plainRead())
    }

    mutating func outsideStep() -> Step {
      let roll = Int.random(in: 0..<100, using: &random)
      if roll < 30, !unsafeReads.isEmpty { return .read(pick(unsafeReads)) }
      if roll < 60, !guards.isEmpty {
        let chosen = pick(guards)
        return .guarded(condition: chosen.condition, then: chosen.then)
      }
      return .read(plainRead())
    }

    mutating func spec(depth: Int) -> Spec {
      let id = nextID
      nextID += 1
      live.append(id)
      var host: Int?
      var steps: [Step] = []
      if features.contains(.rowHostedObservers), depth == 0, chance(10) {
        let row = Int.random(in: rowIDs, using: &random)
        host = row
        let reads = ObservationOracleTests.vocabulary.rowStoreReads[row]!
        for _ in 0..<Int.random(in: 1...3, using: &random) { steps.append(.read(pick(reads))) }
      } else {
        for _ in 0..<Int.random(in: 1...4, using: &random) { steps.append(step()) }
      }
      var effects: [ObserverEffect] = []
      if features.contains(.selfCancel), chance(6) {
        // Not on the first run: that one happens inside `observe`, before the token exists.
        effects.append(
          ObserverEffect(
            onRun: Int.random(in: 2...4, using: &random),
            at: Int.random(in: 0...steps.count, using: &random), kind: .cancelSelf))
      }
      if features.contains(.cancelOther), id > 0, chance(8) {
        effects.append(
          ObserverEffect(
            onRun: Int.random(in: 1...3, using: &random),
            at: Int.random(in: 0...steps.count, using: &random),
            kind: .cancel(Int.random(in: 0..<id, using: &random))))
      }
      if features.contains(.registerDuringRun), depth == 0, chance(6) {
        // Not on the first run: a registration inside `observe` has no registration order.
        let child = spec(depth: 1)
        effects.append(
          ObserverEffect(
            onRun: Int.random(in: 2...3, using: &random),
            at: Int.random(in: 0...steps.count, using: &random), kind: .register(child)))
      }
      if features.contains(.sharedValues), chance(5) {
        // Not on the first run: inside `observe`, the store is not processing an action, so the
        // observer's action would not wait for the second store's change.
        effects.append(
          ObserverEffect(
            onRun: Int.random(in: 2...3, using: &random),
            at: Int.random(in: 0...steps.count, using: &random),
            kind: .changeSharedTwice(
              own: Int.random(in: 0..<4, using: &random),
              second: Int.random(in: 0..<4, using: &random))))
      }
      return Spec(id: id, host: host, steps: steps, effects: effects)
    }

    /// One action, or a reload followed by an in-place mutation of what it reloaded.
    mutating func actions() -> [Action] {
      while true {
        let small = Int.random(in: 0..<4, using: &random)
        let row = Int.random(in: rowIDs, using: &random)
        switch Int.random(in: 0..<32, using: &random) {
        case 0: return [.setX(small)]
        case 1: return [.setY(Int8(small))]
        case 2: return [.setZ(small)]
        case 3:
          return [
            .setName(pick(["a", "b", "\u{E9}", "e\u{301}", "a name long enough for the heap"]))
          ]
        case 4: return [.appendToName("!")]
        case 5:
          return [chance(50) ? .setInnerA(small) : .setInnerB(pick(["b", "c", Self.longLabel]))]
        case 6, 7: return [.toggleFlag]
        case 8, 9: return [.setWide(Int.random(in: 0..<16, using: &random), small)]
        case 10: return [.setDeepWide(Int.random(in: 0..<16, using: &random), small)]
        case 11:
          return [pick([.setDeepInnerA(small), .setDeepHead(small), .setDeepTail(small)])]
        case 12: return [.setListElement(Int.random(in: 0..<13, using: &random), small)]
        case 13: return [.appendToList(small)]
        case 14 where features.contains(.shrinking):
          return [chance(70) ? .removeLastFromList : .truncateList]
        case 15:
          let key = pick(["a", "b", "c"])
          return [
            features.contains(.shrinking) && chance(30)
              ? .setTableEntry(key, nil) : .setTableEntry(key, small)
          ]
        case 16:
          let tag = pick(["x", "y", "z"])
          return [features.contains(.shrinking) && chance(40) ? .removeTag(tag) : .insertTag(tag)]
        case 17: return [chance(50) ? .setOptionalA(small) : .setOptionalB(pick(["b", "c"]))]
        case 18 where features.contains(.optionalNil):
          return [.setOptional(chance(60) ? nil : Inner(a: small))]
        case 19: return [.setRatio(pick(ratios))]
        case 20: return [chance(60) ? .setGaugeRatio(pick(ratios)) : .setGaugeCount(small)]
        case 21 where features.contains(.classIdentity):
          return [chance(50) ? .newInstance(tag: small) : .sameInstance]
        case 22: return [.setOpaque(small)]
        case 23, 24: return [.setRowValue(id: row, small)]
        case 25: return [.setRowLabel(id: row, pick(["r", "s", Self.longLabel]))]
        case 26 where features.contains(.rowChurn): return [.removeRow(id: row)]
        case 27 where features.contains(.rowChurn): return [.addRow(id: row, value: small)]
        case 28 where features.contains(.rowChurn):
          return [chance(70) ? .replaceRow(id: row, value: small) : .sortRows]
        case 29...30 where features.contains(.freshBuffers):
          return reloadThenMutate(small: small, row: row)
        case 31: return [.noop]
        default: continue
        }
      }
    }

    mutating func reloadThenMutate(small: Int, row: Int) -> [Action] {
      let follow = chance(75)
      let changed = 50 + small
      switch Int.random(in: 0..<5, using: &random) {
      case 0:
        let mutation: Action =
          chance(60)
          ? .setListElement(Int.random(in: 0..<3, using: &random), changed) : .appendToList(changed)
        return follow ? [.reloadList, mutation] : [.reloadList]
      case 1:
        return follow
          ? [.reloadTable, .setTableEntry(pick(["a", "b", "c"]), changed)] : [.reloadTable]
      case 2:
        return follow ? [.reloadTags, .insertTag(pick(["x", "y", "z", "w"]))] : [.reloadTags]
      case 3:
        return follow ? [.reloadRows, .setRowValue(id: row, changed)] : [.reloadRows]
      default:
        return follow ? [.reloadName, .appendToName("?")] : [.reloadName]
      }
    }
  }

  /// The events of a run of `actions` actions from `seed`.
  static func events(seed: UInt64, actions: Int, features: Set<Feature>) -> [Event] {
    var generator = Generator(seed: seed, features: features)
    var events: [Event] = []
    var count = 0
    while count < actions {
      let event = generator.next()
      if event.isAction { count += 1 }
      events.append(event)
    }
    return events
  }

  // MARK: - The store side

  /// Releases of an observer's closure are watched through this object, captured only by it.
  final class Canary: Sendable {
    let id: Int
    let problems: Log<String>

    init(id: Int, problems: Log<String>) {
      self.id = id
      self.problems = problems
    }

    deinit {
      if StoreLockDiagnostics.isHeldByCurrentThread {
        problems.append("the closure of observer #\(id) was released under a store lock")
      }
    }
  }

  struct WeakCanary {
    weak var canary: Canary?
  }

  /// One run of an observer: who, and the fingerprints of the values it read, in order.
  struct Run: Equatable {
    let id: Int
    var values: [Int] = []
  }

  /// Replays events into a real store. Used from one thread at a time: observers run on the
  /// thread that sends, which is the test's, or for a change of a shared value made elsewhere,
  /// the delivery's while the test awaits it.
  final class Harness: @unchecked Sendable {
    // Safe: used by one thread at a time (see above); `delivered()` orders a delivery's thread
    // before the test's.
    let store: Store<State, Action>
    /// The run's own storage: runs, and tests running in parallel, never share a value.
    let storage = SharedStorage(onIssue: { _ in })
    /// Holds the same shared value as `store`, and changes it.
    let secondStore: Store<State, Action>
    /// The changes of shared values `store` received, as actions, since the event began.
    let received = Log<String>()
    /// Whether an observer changed the shared value twice during this event (see
    /// `ObserverEffect.Kind.changeSharedTwice`): the event ends when that is delivered.
    var changedSharedTwice = false
    var rowStores: [Int: RowStore] = [:]
    var tokens: [Int: ObservationToken] = [:]
    var runCounts: [Int: Int] = [:]
    var runs: [Run] = []
    var problems: [String] = []
    let canaryProblems = Log<String>()
    var canaries: [Int: WeakCanary] = [:]
    let definitions = ObservationOracleTests.vocabulary.definitions

    init() {
      let received = received
      (store, secondStore) = inStorage(storage) {
        (
          Store(
            initialState: State(), reducer: receivingReducer(received: received),
            onIssue: { _ in }),
          Store(initialState: State(), reducer: ObservationOracleTests.reducer, onIssue: { _ in })
        )
      }
    }

    /// The second store changes the shared value; returns once `store` received the change.
    func sendToSecondStore(_ value: Int) async {
      secondStore.send(.setShared(value))
      await storage.delivered()
    }

    /// Another process writes the file; returns once `store` received the change, if any.
    func writeFile(_ contents: String) async {
      storage.setFile(filePath, to: Data(contents.utf8))
      await storage.delivered()
    }

    /// Performs a read, or returns `nil` if it goes through a row store the harness lacks.
    func perform(_ index: Int) -> (fingerprint: Int, holds: Bool)? {
      let definition = definitions[index]
      if let row = definition.rowStore, rowStores[row] == nil { return nil }
      return definition.perform(self)
    }

    func observe(_ spec: Spec) {
      var host: RowStore?
      if let row = spec.host {
        guard let rowStore = rowStores[row] else { return }
        host = rowStore
      }
      let canary = Canary(id: spec.id, problems: canaryProblems)
      canaries[spec.id] = WeakCanary(canary: canary)
      let body: @Sendable () -> Void = { [weak self] in
        withExtendedLifetime(canary) {}
        self?.run(spec)
      }
      let token = host?.observe(body) ?? store.observe(body)
      tokens[spec.id] = token
    }

    func cancel(_ id: Int) {
      tokens.removeValue(forKey: id)?.cancel()
    }

    func cancelEveryObserver() {
      for id in tokens.keys.sorted() { cancel(id) }
    }

    func run(_ spec: Spec) {
      if StoreLockDiagnostics.isHeldByCurrentThread {
        problems.append("observer #\(spec.id) ran under a store lock")
      }
      let count = (runCounts[spec.id] ?? 0) + 1
      runCounts[spec.id] = count
      let index = runs.count
      runs.append(Run(id: spec.id))
      for position in 0...spec.steps.count {
        for effect in spec.effects where effect.onRun == count && effect.at == position {
          switch effect.kind {
          case .cancelSelf: cancel(spec.id)
          case .cancel(let other): cancel(other)
          case .register(let child): observe(child)
          case .changeSharedTwice(let own, let second):
            guard !changedSharedTwice else { break }
            changedSharedTwice = true
            store.send(.setShared(own))
            secondStore.send(.setShared(second))
          }
        }
        guard position < spec.steps.count else { break }
        switch spec.steps[position] {
        case .read(let read):
          if let result = perform(read) { runs[index].values.append(result.fingerprint) }
        case .guarded(let condition, let then):
          guard let result = perform(condition) else { continue }
          runs[index].values.append(result.fingerprint)
          if result.holds, let value = perform(then) {
            runs[index].values.append(value.fingerprint)
          }
        }
      }
    }

    func sendToRow(_ id: Int, _ action: RowAction) {
      if let row = rowStores[id] {
        row.send(action)
      } else {
        store.send(.row(id: id, action))
      }
    }

    func makeRowStore(_ id: Int) {
      guard rowStores[id] == nil else { return }
      rowStores[id] = store.scope(state: \.rows, id: id) { Action.row(id: id, $0) }
    }
  }

  // MARK: - The model

  /// What the contract says the store does, in plain Swift.
  final class Model {
    final class Observed {
      let spec: Spec
      var runCount = 0
      /// The reads of the latest run, with what they read.
      var reads: [(read: Int, seen: Seen)] = []

      init(spec: Spec) { self.spec = spec }
    }

    let rules: Rules
    let definitions = ObservationOracleTests.vocabulary.definitions
    /// The state, at a stable address so that reads need not copy it. Its `Shared`s live in a
    /// storage of their own, and are never changed (see `Context`).
    let state: UnsafeMutablePointer<State> = {
      let state = UnsafeMutablePointer<State>.allocate(capacity: 1)
      state.initialize(to: inStorage(SharedStorage()) { State() })
      return state
    }()
    /// The rows seen, and the copies of the shared values.
    var context = Context()
    /// The version of the shared value (one more at every `withLock`, whichever store makes
    /// it), and the version of the store's copy.
    var sharedVersion: UInt64 = 0
    var sharedCopyVersion: UInt64 = 0
    /// The version of the file's value (one more at every change read from the file), and of
    /// the store's copy.
    var fileVersion: UInt64 = 0
    var fileCopyVersion: UInt64 = 0
    /// The bytes of the file the storage read last: the same bytes again are no change.
    var fileBytes: Data?
    /// The changes of shared values the store receives, as actions, since the event began.
    var received: [String] = []
    /// Actions observers sent, reduced in order after the observers of the current action.
    var queued: [Action] = []
    /// Whether an observer changed the shared value twice during this event.
    var changedSharedTwice = false
    var rowStores: Set<Int> = []
    /// Live observers, in registration order.
    var order: [Int] = []
    var observers: [Int: Observed] = [:]
    var runs: [Run] = []
    /// What each of `runs` read, for messages.
    var details: [[(read: Int, seen: Seen)]] = []
    var errors: [String] = []
    var memo: [Evaluation?]

    init(rules: Rules) {
      self.rules = rules
      memo = Array(repeating: nil, count: definitions.count)
      notePresentRows()
    }

    deinit {
      state.deinitialize(count: 1)
      state.deallocate()
    }

    func beginEvent() {
      runs.removeAll(keepingCapacity: true)
      details.removeAll(keepingCapacity: true)
      received.removeAll(keepingCapacity: true)
      changedSharedTwice = false
      for index in memo.indices { memo[index] = nil }
    }

    func notePresentRows() {
      for row in state.pointee.rows { context.lastPresent[row.id] = row }
    }

    func evaluate(_ index: Int) -> Evaluation {
      let definition = definitions[index]
      if let row = definition.rowStore, !rowStores.contains(row) { return .skipped }
      if let known = memo[index] { return known }
      let evaluation = definition.evaluate(state, context)
      memo[index] = evaluation
      return evaluation
    }

    func observe(_ spec: Spec) {
      if let row = spec.host, !rowStores.contains(row) { return }
      order.append(spec.id)
      observers[spec.id] = Observed(spec: spec)
      run(spec.id)
    }

    func remove(_ id: Int) {
      guard observers.removeValue(forKey: id) != nil else { return }
      order.removeAll { $0 == id }
    }

    func run(_ id: Int) {
      guard let observed = observers[id] else { return }
      let spec = observed.spec
      let count = observed.runCount + 1
      observed.runCount = count
      let index = runs.count
      runs.append(Run(id: id))
      details.append([])
      var reads: [(read: Int, seen: Seen)] = []
      func read(_ read: Int) -> Seen? {
        switch evaluate(read) {
        case .skipped, .absent: return nil
        case .invalid:
          errors.append("the model: #\(id) makes \(definitions[read].name), which traps now")
          return nil
        case .value(let seen):
          reads.append((read, seen))
          runs[index].values.append(seen.fingerprint)
          details[index].append((read, seen))
          return seen
        }
      }
      for position in 0...spec.steps.count {
        for effect in spec.effects where effect.onRun == count && effect.at == position {
          switch effect.kind {
          case .cancelSelf: remove(id)
          case .cancel(let other): remove(other)
          case .register(let child): observe(child)
          case .changeSharedTwice(let own, let second):
            guard !changedSharedTwice else { break }
            changedSharedTwice = true
            // The second store's change comes first in the storage, and is received after the
            // store reduced its own.
            queued.append(.setShared(own))
            sharedVersion += 1
            queued.append(.sharedChanged(SharedChange(value: second, version: sharedVersion)))
          }
        }
        guard position < spec.steps.count else { break }
        switch spec.steps[position] {
        case .read(let index): _ = read(index)
        case .guarded(let condition, let then):
          if let seen = read(condition), seen.holds { _ = read(then) }
        }
      }
      // A cancelled observer's reads are forgotten with it.
      if observers[id] != nil { observed.reads = reads }
    }

    /// Whether a value the observer read in its latest run is changed now.
    func fires(_ id: Int) -> Bool {
      observers[id]!.reads.contains { recorded in
        if rules.ignoring.contains(definitions[recorded.read].name) { return false }
        switch evaluate(recorded.read) {
        case .skipped, .invalid: return true
        case .absent: return false
        case .value(let new): return !recorded.seen.box.isUnchanged(to: new.box)
        }
      }
    }

    /// Reduces `action`, runs the observers it fires, then the actions they queued, in order.
    func send(_ action: Action) {
      reduceAndRun(action)
      while !queued.isEmpty { reduceAndRun(queued.removeFirst()) }
    }

    func reduceAndRun(_ action: Action) {
      switch action {
      case .setShared(let value):
        sharedVersion += 1
        context.shared = value
        sharedCopyVersion = sharedVersion
      case .sharedChanged(let change):
        received.append("\(action)")
        if change.version > sharedCopyVersion {
          context.shared = change.value
          sharedCopyVersion = change.version
        }
      case .fileChanged(let change):
        received.append("\(action)")
        if change.version > fileCopyVersion {
          context.file = change.value
          fileCopyVersion = change.version
        }
      default:
        ObservationOracleTests.reduce(&state.pointee, action)
      }
      notePresentRows()
      for index in memo.indices { memo[index] = nil }
      var fired = order.filter(fires)
      if rules.reverseOrder { fired.reverse() }
      // An observer cancelled by one that ran before it is gone from `observers`, and skipped.
      for id in fired { run(id) }
    }

    func sendToRow(_ id: Int, _ action: RowAction) {
      // A row store whose row is gone drops the action.
      if rowStores.contains(id), state.pointee.rows[id: id] == nil { return }
      send(.row(id: id, action))
    }

    func makeRowStore(_ id: Int) {
      if state.pointee.rows[id: id] != nil { rowStores.insert(id) }
    }

    /// The second store changes the shared value: the store receives the change, an action.
    func sendToSecondStore(_ value: Int) {
      sharedVersion += 1
      send(.sharedChanged(SharedChange(value: value, version: sharedVersion)))
    }

    /// Another process writes the file: unless its bytes are those the storage read last, the
    /// storage reads them, and if they are a value, the store receives it, an action.
    func writeFile(_ contents: String) {
      let bytes = Data(contents.utf8)
      guard bytes != fileBytes else { return }
      fileBytes = bytes
      // Not a value: reported by the storage, and no change.
      guard let value = Int(contents.trimmingCharacters(in: .whitespacesAndNewlines)) else {
        return
      }
      fileVersion += 1
      send(.fileChanged(SharedChange(value: value, version: fileVersion)))
    }

    /// The reads a step outside observers makes, or `nil` when it would trap now (then it is not
    /// made at all).
    func outsidePlan(_ step: Step) -> [(read: Int, seen: Seen)]? {
      switch step {
      case .read(let index):
        switch evaluate(index) {
        case .skipped, .absent: return []
        case .invalid: return nil
        case .value(let seen): return [(index, seen)]
        }
      case .guarded(let condition, let then):
        guard case .value(let seen) = evaluate(condition) else { return nil }
        guard seen.holds else { return [(condition, seen)] }
        let evaluation = evaluate(then)
        if case .absent = evaluation { return [(condition, seen)] }
        guard case .value(let value) = evaluation else {
          errors.append("the model: \(definitions[then].name) traps behind its guard")
          return nil
        }
        return [(condition, seen), (then, value)]
      }
    }
  }

  // MARK: - Replay and comparison

  /// A store and the model, fed the same events.
  final class Replay {
    let features: Set<Feature>
    let harness = Harness()
    let model: Model

    init(features: Set<Feature>, rules: Rules) {
      self.features = features
      model = Model(rules: rules)
    }

    /// Applies an event to both, and describes how the store differed from the model, if it did.
    func apply(_ event: Event) async -> String? {
      harness.runs.removeAll(keepingCapacity: true)
      harness.received.removeAll()
      harness.changedSharedTwice = false
      model.beginEvent()
      switch event {
      case .observe(let spec):
        harness.observe(spec)
        model.observe(spec)
      case .cancel(let id):
        harness.cancel(id)
        model.remove(id)
      case .cancelEveryObserver:
        harness.cancelEveryObserver()
        for id in model.order { model.remove(id) }
      case .send(let action):
        harness.store.send(action)
        if case .setShared = action {
          // The store's own change is in its copy, and never received: awaited, so that a
          // delivery of it would show at this event.
          await harness.storage.delivered()
        }
        model.send(action)
      case .sendToRow(let id, let action):
        harness.sendToRow(id, action)
        model.sendToRow(id, action)
      case .makeRowStore(let id):
        harness.makeRowStore(id)
        model.makeRowStore(id)
      case .outsideRead(let step):
        if let problem = readOutside(step) { return problem }
      case .sendToSecondStore(let value):
        await harness.sendToSecondStore(value)
        model.sendToSecondStore(value)
      case .writeFile(let contents):
        await harness.writeFile(contents)
        model.writeFile(contents)
      }
      if harness.changedSharedTwice { await harness.storage.delivered() }
      return check()
    }

    func readOutside(_ step: Step) -> String? {
      guard let plan = model.outsidePlan(step) else { return nil }
      let before = harness.store.observationFootprint
      var values: [Int] = []
      if let first = plan.first, let result = harness.perform(first.read) {
        values.append(result.fingerprint)
        if plan.count == 2, result.holds, let then = harness.perform(plan[1].read) {
          values.append(then.fingerprint)
        }
      }
      let after = harness.store.observationFootprint
      if features.contains(.footprintCheck), after != before {
        return "a read outside observers changed the observation footprint from \(before) to "
          + "\(after)"
      }
      if features.contains(.valueCheck), values != plan.map(\.seen.fingerprint) {
        let expected = plan.map { "\(model.definitions[$0.read].name) = \($0.seen.box)" }
        return "a read outside observers returned other values than the model's: expected "
          + expected.joined(separator: ", ")
      }
      return nil
    }

    func check() -> String? {
      if !model.errors.isEmpty { return model.errors.joined(separator: "; ") }
      let received = harness.received.values
      if received != model.received {
        let list = { (actions: [String]) in
          actions.isEmpty ? "nothing" : actions.joined(separator: ", ")
        }
        return "the store received \(list(received)), the model expected \(list(model.received))"
      }
      if let problem = compareRuns() { return problem }
      if features.contains(.lockCheck) {
        let problems = harness.problems + harness.canaryProblems.values
        if !problems.isEmpty { return problems.joined(separator: "; ") }
      }
      if features.contains(.footprintCheck) {
        let footprint = harness.store.observationFootprint
        if footprint.observers != model.order.count {
          return "the store has \(footprint.observers) observers registered, the model "
            + "\(model.order.count): \(model.order.map { "#\($0)" })"
        }
      }
      if features.contains(.releaseCheck) {
        for (id, watched) in harness.canaries {
          let isAlive = watched.canary != nil
          if isAlive != (model.observers[id] != nil) {
            return isAlive
              ? "observer #\(id) was cancelled but its closure is still alive"
              : "observer #\(id) is registered but its closure was released"
          }
          if !isAlive { harness.canaries[id] = nil }
        }
      }
      return nil
    }

    func compareRuns() -> String? {
      let expected = model.runs
      let actual = harness.runs
      let ids = { (runs: [Run]) in runs.map { "#\($0.id)" }.joined(separator: ", ") }
      if expected.map(\.id) != actual.map(\.id) {
        return "the observers that ran differ from the model's: expected [\(ids(expected))], "
          + "ran [\(ids(actual))]"
      }
      guard features.contains(.valueCheck) else { return nil }
      for (index, run) in expected.enumerated() where run.values != actual[index].values {
        let reads = model.details[index].enumerated().map { item in
          let same =
            item.offset < actual[index].values.count
            && actual[index].values[item.offset] == item.element.seen.fingerprint
          return "\(model.definitions[item.element.read].name) = \(item.element.seen.box)"
            + (same ? "" : " (differs)")
        }
        return "run \(index + 1) of [\(ids(expected))]: #\(run.id) read other values than the "
          + "model's (\(actual[index].values.count) reads, expected \(run.values.count)): "
          + reads.joined(separator: ", ")
      }
      return nil
    }

    /// Cancels every observer and checks that nothing is left behind.
    func finish() -> String? {
      harness.runs.removeAll()
      harness.received.removeAll()
      model.beginEvent()
      for id in harness.tokens.keys.sorted() { harness.cancel(id) }
      for id in model.order { model.remove(id) }
      if let problem = check() { return "after cancelling every observer: \(problem)" }
      if features.contains(.footprintCheck) {
        let footprint = harness.store.observationFootprint
        let empty = ObservationFootprint(observers: 0, probes: 0, trackedReads: 0)
        if footprint != empty {
          return "after cancelling every observer, the store still holds \(footprint)"
        }
      }
      return nil
    }
  }

  struct Failure {
    /// The event after which the store differed; `events.count` for the final check.
    let eventIndex: Int
    let message: String
  }

  /// Replays `events` into a fresh store and model and returns the first difference.
  static func firstFailure(
    in events: [Event], features: Set<Feature>, rules: Rules = Rules()
  ) async -> Failure? {
    let replay = Replay(features: features, rules: rules)
    for (index, event) in events.enumerated() {
      if let message = await replay.apply(event) {
        return Failure(eventIndex: index, message: message)
      }
    }
    if let message = replay.finish() { return Failure(eventIndex: events.count, message: message) }
    return nil
  }

  /// Shrinks a failing run and describes the smallest failing sequence found.
  static func report(
    seed: UInt64, events: [Event], failure: Failure, features: Set<Feature>, rules: Rules
  ) async -> String {
    let prefix = Array(events.prefix(failure.eventIndex + 1))
    let minimal = await shrink(prefix) {
      await firstFailure(in: $0, features: features, rules: rules) != nil
    }
    let last = await firstFailure(in: minimal, features: features, rules: rules)
    let off = Feature.all.subtracting(features).map(\.rawValue).sorted()
    return """
      seed \(seed): after event \(failure.eventIndex + 1) of the run: \(failure.message)
      A minimal sequence (\(minimal.count) of \(failure.eventIndex + 1) events):
      \(minimal.enumerated().map { "  \($0.offset + 1). \($0.element)" }.joined(separator: "\n"))
      fails with: \(last?.message ?? "(no failure on replay: not deterministic?)")
      features off: \(off.isEmpty ? "none" : off.joined(separator: ", "))
      """
  }

  /// Checks `actions` actions from `seed`; describes the failure, shrunk, if there is one.
  static func check(
    seed: UInt64, actions: Int, features: Set<Feature> = Feature.fromEnvironment,
    rules: Rules = Rules()
  ) async -> String? {
    let events = events(seed: seed, actions: actions, features: features)
    guard let failure = await firstFailure(in: events, features: features, rules: rules) else {
      return nil
    }
    return await report(
      seed: seed, events: events, failure: failure, features: features, rules: rules)
  }

  // MARK: - Tests

  /// 40 seeds × 5,000 actions: 200,000 actions per run.
  @Test(arguments: 1...40 as ClosedRange<UInt64>)
  func theStoreRunsWhatTheModelPredicts(seed: UInt64) async {
    if let failure = await Self.check(seed: seed, actions: 5_000) {
      Issue.record(Comment(rawValue: failure))
    }
  }

  /// One long run, streamed (nothing but the store and the model is kept in memory), of
  /// `UNIDIRECTIONAL_OBSERVATION_SOAK` actions.
  @Test(.enabled(if: ProcessInfo.processInfo.environment["UNIDIRECTIONAL_OBSERVATION_SOAK"] != nil))
  func soak() async throws {
    let environment = ProcessInfo.processInfo.environment
    let actions = try #require(Int(environment["UNIDIRECTIONAL_OBSERVATION_SOAK"] ?? ""))
    let seed = UInt64(environment["UNIDIRECTIONAL_OBSERVATION_SOAK_SEED"] ?? "") ?? 20_260_101
    let features = Feature.fromEnvironment
    var generator = Generator(seed: seed, features: features)
    let replay = Replay(features: features, rules: Rules())
    var sent = 0
    var index = 0
    while sent < actions {
      let event = generator.next()
      if event.isAction { sent += 1 }
      if let message = await replay.apply(event) {
        // Said at once: shrinking a long run can take a while.
        print("soak, seed \(seed): failed at event \(index) (\(message)); shrinking…")
        // Regenerate the run up to the failure, and shrink it.
        var again = Generator(seed: seed, features: features)
        let events = (0...index).map { _ in again.next() }
        let failure = Failure(eventIndex: index, message: message)
        Issue.record(
          Comment(
            rawValue: await Self.report(
              seed: seed, events: events, failure: failure, features: features, rules: Rules())))
        return
      }
      index += 1
    }
    if let message = replay.finish() {
      Issue.record(Comment(rawValue: "soak, seed \(seed), at the end: \(message)"))
    }
  }

  /// The oracle itself: a model that wrongly believes `inner.b` never changes must fail, and
  /// shrink to an observer that reads it and an action that changes it (with the toggle that
  /// makes the read happen, if it is behind the flag).
  @Test func aBlindModelFailsWithAMinimalSequence() async throws {
    let rules = Rules(ignoring: ["store[\\.inner.b]"])
    // The first seed whose observers read `inner.b` at a moment it changes.
    var found: String?
    for seed in 1...20 as ClosedRange<UInt64> where found == nil {
      found = await Self.check(seed: seed, actions: 2_000, features: Feature.basic, rules: rules)
    }
    let failure = try #require(found)
    let steps = failure.split(separator: "\n").filter { $0.hasPrefix("  ") }
    #expect((2...3).contains(steps.count), "\(failure)")
    #expect(steps.first?.contains("observe #") == true, "\(failure)")
    #expect(steps.first?.contains("store[\\.inner.b]") == true, "\(failure)")
    #expect(steps.last?.contains("send .setInnerB(") == true, "\(failure)")
    #expect(failure.hasPrefix("seed "))
    #expect(failure.contains("the observers that ran differ from the model's"), "\(failure)")
  }

  /// The oracle itself: a model that runs observers in reverse registration order must fail
  /// with two observers and one action that fires both.
  @Test func aModelWithTheWrongOrderFailsWithAMinimalSequence() async throws {
    let failure = try #require(
      await Self.check(
        seed: 11, actions: 3_000, features: Feature.basic, rules: Rules(reverseOrder: true)))
    let steps = failure.split(separator: "\n").filter { $0.hasPrefix("  ") }
    #expect(steps.count == 3, "\(failure)")
    #expect(steps.prefix(2).allSatisfy { $0.contains("observe #") }, "\(failure)")
    #expect(steps.last?.contains("send .") == true, "\(failure)")
  }

  /// Every generator shows up in a default run, in useful numbers.
  @Test func theGeneratorsCoverEveryKindOfEvent() {
    // A run whose observers read the whole state, one read among a hundred (a third of the
    // seeds' runs have none).
    let events = Self.events(seed: 4, actions: 5_000, features: Feature.all)
    let definitions = Self.vocabulary.definitions
    var counts: [String: Int] = [:]
    func count(_ key: String) { counts[key, default: 0] += 1 }
    func countReads(_ steps: [Step], outside: Bool) {
      for step in steps {
        switch step {
        case .read(let index):
          if let feature = definitions[index].feature { count("read \(feature)") }
          if outside, definitions[index].use == .unsafe { count("unguarded outside") }
        case .guarded(let condition, _):
          if definitions[condition].feature == .guardedReads { count("guarded") }
          if definitions[condition].feature == .sharedValues { count("guarded by shared") }
        }
      }
    }
    func countSpec(_ spec: Spec) {
      if spec.host != nil { count("row hosted") }
      countReads(spec.steps, outside: false)
      for effect in spec.effects {
        switch effect.kind {
        case .cancelSelf: count("cancel self")
        case .cancel: count("cancel other")
        case .register(let child):
          count("register")
          countSpec(child)
        case .changeSharedTwice: count("shared changed twice")
        }
      }
    }
    var previous: Event?
    for event in events {
      switch event {
      case .observe(let spec): countSpec(spec)
      case .outsideRead(let step): countReads([step], outside: true)
      case .send(let action):
        let name = "\(action)".prefix { $0 != "(" }
        count("action \(name)")
        if case .send(let reload)? = previous, "\(reload)".hasPrefix("reload"),
          !"\(action)".hasPrefix("reload")
        {
          count("mutation after reload")
        }
        if case .setRatio(let ratio) = action, ratio.value.isNaN { count("NaN") }
        if case .setOptional(.none) = action { count("optional nil") }
      case .sendToRow: count("row store send")
      case .makeRowStore: count("row store")
      case .cancel, .cancelEveryObserver: count("cancel")
      case .sendToSecondStore: count("second store")
      case .writeFile(let contents):
        count(
          Int(contents.trimmingCharacters(in: .whitespacesAndNewlines)) == nil
            ? "corrupt file" : "file write")
      }
      previous = event
    }
    let expectations: [(String, Int)] = [
      ("mutation after reload", 100), ("action reloadList", 30), ("action reloadTable", 30),
      ("action reloadTags", 30), ("action reloadRows", 30), ("action truncateList", 20),
      ("action removeLastFromList", 50), ("optional nil", 50), ("NaN", 50),
      ("action newInstance", 30), ("action sameInstance", 30), ("action removeRow", 50),
      ("action replaceRow", 30), ("action addRow", 50), ("action noop", 50),
      ("row store send", 50), ("row store", 20), ("cancel", 50), ("guarded", 10),
      ("read guardedReads", 1), ("read computedReads", 5), ("read elementReads", 5),
      ("read rowStoreReads", 3), ("read freshRowStoreReads", 3), ("read nonEquatable", 1),
      ("read wholeState", 1),
      ("read classIdentity", 1), ("row hosted", 1), ("cancel self", 1), ("cancel other", 1),
      ("register", 1), ("unguarded outside", 20), ("action setShared", 30),
      ("second store", 30), ("file write", 20), ("corrupt file", 3), ("read sharedValues", 3),
      ("guarded by shared", 1), ("shared changed twice", 3),
    ]
    for (key, minimum) in expectations {
      #expect(counts[key, default: 0] >= minimum, "\(key): \(counts[key, default: 0])")
    }
  }
}
