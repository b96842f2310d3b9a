import Testing
import Unidirectional
import UnidirectionalTestSupport

/// Randomized check of the observation engine against an independent oracle.
///
/// A seeded generator builds observers that read random key paths (stored, nested, computed,
/// collection elements, class and non-Equatable values, some only behind a condition), then
/// sends random actions. After every action the set of observers that ran must equal the set
/// the oracle computes from the old and new states with the documented rules. A failure prints
/// the seed and a shrunk sequence of steps that still fails.
@Suite struct ObservationPropertyTests {
  struct Inner: Equatable, Sendable {
    var a = 0
    var b = "b"
    var flag = false
  }

  /// Sixteen inline words: spans several 64-byte blocks of the change index.
  struct Wide: Equatable, Sendable {
    var w0 = 0, w1 = 0, w2 = 0, w3 = 0, w4 = 0, w5 = 0, w6 = 0, w7 = 0
    var w8 = 0, w9 = 0, w10 = 0, w11 = 0, w12 = 0, w13 = 0, w14 = 0, w15 = 0
  }

  struct State: Sendable {
    var x = 0
    var y: Int8 = 0
    var name = "a"
    var inner = Inner()
    var list = [0, 0, 0]
    var optional: Int? = nil
    var nested = [Inner(), Inner()]
    var model = Model(name: "m")
    var opaque = Opaque(value: 0)
    var wide = Wide()
    var optionalInner: Inner? = Inner()
  }

  enum Action: Sendable {
    case setX(Int), setY(Int8), setName(String), setA(Int), setB(String), toggleFlag
    case setListElement(Int, Int), appendToList(Int), removeLast
    case setOptional(Int?), setNestedA(Int, Int), newModel, sameModel, setOpaque(Int)
    case setWide(Int, Int), clearOptionalInner, setOptionalInnerA(Int), noop
  }

  // Immutable key paths, safe to share.
  nonisolated(unsafe) static let wideFields: [WritableKeyPath<Wide, Int>] = [
    \.w0, \.w1, \.w2, \.w3, \.w4, \.w5, \.w6, \.w7,
    \.w8, \.w9, \.w10, \.w11, \.w12, \.w13, \.w14, \.w15,
  ]

  struct Feature: Reducer {
    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .setX(let value): state.x = value
      case .setY(let value): state.y = value
      case .setName(let value): state.name = value
      case .setA(let value): state.inner.a = value
      case .setB(let value): state.inner.b = value
      case .toggleFlag: state.inner.flag.toggle()
      case .setListElement(let index, let value):
        // Out-of-range indices are ignored, so any sub-sequence of a run is a valid run.
        if state.list.indices.contains(index) { state.list[index] = value }
      case .appendToList(let value): state.list.append(value)
      case .removeLast: if state.list.count > 3 { state.list.removeLast() }
      case .setOptional(let value): state.optional = value
      case .setNestedA(let index, let value): state.nested[index].a = value
      case .newModel: state.model = Model(name: "m")
      case .sameModel:
        let model = state.model
        state.model = model
      case .setOpaque(let value): state.opaque.value = value
      case .setWide(let index, let value):
        state.wide[keyPath: ObservationPropertyTests.wideFields[index]] = value
      case .clearOptionalInner: state.optionalInner = nil
      case .setOptionalInnerA(let value):
        if state.optionalInner == nil { state.optionalInner = Inner() }
        state.optionalInner?.a = value
      case .noop: break
      }
      return .none
    }
  }

  /// A value an observer can read: how to read it through the store, and how the oracle
  /// decides it changed.
  struct Path: Sendable {
    let name: String
    let read: @Sendable (Store<State, Action>) -> Void
    let changed: @Sendable (State, State) -> Bool
  }

  static func equatable<Value: Equatable & Sendable>(
    _ name: String, _ keyPath: KeyPath<State, Value> & Sendable
  ) -> Path {
    Path(
      name: name,
      read: { _ = $0[keyPath] },
      changed: { $0[keyPath: keyPath] != $1[keyPath: keyPath] }
    )
  }

  static let paths: [Path] =
    [
      equatable("x", \.x), equatable("y", \.y), equatable("name", \.name),
      equatable("inner", \.inner), equatable("inner.a", \.inner.a),
      equatable("inner.b", \.inner.b), equatable("inner.flag", \.inner.flag),
      equatable("list", \.list), equatable("list.count", \.list.count),
      equatable("list[0]", \.list[0]), equatable("list[2]", \.list[2]),
      equatable("optional", \.optional), equatable("nested[1].a", \.nested[1].a),
      equatable("nested", \.nested), equatable("wide", \.wide),
      equatable("optionalInner", \.optionalInner),
      equatable("optionalInner?.a", \.optionalInner?.a),
      Path(
        name: "model", read: { _ = $0.model },
        changed: { $0.model !== $1.model }),
      Path(name: "opaque", read: { _ = $0.opaque }, changed: { _, _ in true }),
    ]
    + wideFields.indices.map { index in
      let wide: WritableKeyPath<State, Wide> = \.wide
      let keyPath = wide.appending(path: wideFields[index])
      let sendable = UncheckedKeyPath(keyPath)
      return Path(
        name: "wide.w\(index)",
        read: { _ = $0[sendable.keyPath] },
        changed: { $0[keyPath: sendable.keyPath] != $1[keyPath: sendable.keyPath] })
    }

  struct UncheckedKeyPath: @unchecked Sendable {
    // Safe: key paths are immutable.
    let keyPath: WritableKeyPath<State, Int>
    init(_ keyPath: WritableKeyPath<State, Int>) { self.keyPath = keyPath }
  }

  /// An observer of the test: always reads `always`; reads `conditional` only while the
  /// inner flag is set. Paths are indices into `paths`, so a failing sequence prints by name.
  struct ObserverSpec: CustomStringConvertible, Sendable {
    let id: Int
    let always: [Int]
    let conditional: [Int]

    /// What a run reads in `state`.
    func reads(in state: State) -> [Path] {
      (state.inner.flag ? always + conditional : always).map { ObservationPropertyTests.paths[$0] }
    }

    var description: String {
      let names = { (indices: [Int]) in indices.map { ObservationPropertyTests.paths[$0].name } }
      return "#\(id) reads \(names(always))"
        + (conditional.isEmpty ? "" : ", and \(names(conditional)) while inner.flag")
    }
  }

  /// One step of a generated run.
  enum Event: CustomStringConvertible {
    case observe(ObserverSpec)
    case cancel(id: Int)
    case send(Action)

    var description: String {
      switch self {
      case .observe(let spec): "observe \(spec)"
      case .cancel(let id): "cancel #\(id)"
      case .send(let action): "send .\(action)"
      }
    }
  }

  /// The observers that ran after a `send` differ from the oracle's.
  struct Mismatch {
    let eventIndex: Int
    let expected: [Int]
    let fired: [Int]
  }

  /// Decides which observers must run for one action, from the old and new states alone.
  typealias Oracle = @Sendable (_ spec: ObserverSpec, _ old: State, _ new: State) -> Bool

  /// The documented rules: an observer runs when a value its last run read changed. The flag
  /// it reads to decide on its conditional reads is one of those values.
  static let oracle: Oracle = { spec, old, new in
    old.inner.flag != new.inner.flag || spec.reads(in: old).contains { $0.changed(old, new) }
  }

  static func randomAction(_ random: inout SplitMix64) -> Action {
    let small = Int.random(in: 0..<3, using: &random)
    switch Int.random(in: 0..<17, using: &random) {
    case 0: return .setX(small)
    case 1: return .setY(Int8(small))
    case 2: return .setName(["a", "b", "a long name that lives on the heap"][small])
    case 3: return .setA(small)
    case 4: return .setB(["b", "c", String(repeating: "d", count: 40)][small])
    case 5: return .toggleFlag
    case 6: return .setListElement(Int.random(in: 0..<5, using: &random), small)
    case 7: return .appendToList(small)
    case 8: return .removeLast
    case 9: return .setOptional(small == 0 ? nil : small)
    case 10: return .setNestedA(Int.random(in: 0..<2, using: &random), small)
    case 11: return small == 0 ? .newModel : .sameModel
    case 12: return .setOpaque(small)
    case 13, 14: return .setWide(Int.random(in: 0..<16, using: &random), small)
    case 15: return small == 0 ? .clearOptionalInner : .setOptionalInnerA(small)
    default: return .noop
    }
  }

  /// A run of `actions` sends from `seed`: twelve observers first, then now and then an
  /// observer added or cancelled between sends.
  static func events(seed: UInt64, actions: Int) -> [Event] {
    var random = SplitMix64(seed: seed)
    var events: [Event] = []
    var live: [Int] = []
    var nextID = 0
    func observe() {
      let pick = { (count: Int) in
        (0..<count).map { _ in Int.random(in: paths.indices, using: &random) }
      }
      let spec = ObserverSpec(
        id: nextID, always: pick(Int.random(in: 1...3, using: &random)),
        conditional: pick(Int.random(in: 0...2, using: &random)))
      nextID += 1
      live.append(spec.id)
      events.append(.observe(spec))
    }
    for _ in 0..<12 { observe() }
    for _ in 0..<actions {
      if Int.random(in: 0..<50, using: &random) == 0 { observe() }
      if Int.random(in: 0..<50, using: &random) == 0, !live.isEmpty {
        events.append(.cancel(id: live.remove(at: Int.random(in: live.indices, using: &random))))
      }
      events.append(.send(randomAction(&random)))
    }
    return events
  }

  /// Replays `events` into a fresh store and returns the first send after which the observers
  /// that ran differ from what `oracle` expects.
  static func firstMismatch(in events: [Event], oracle: Oracle = oracle) -> Mismatch? {
    let store = Store(initialState: State()) { Feature() }
    let fired = Locked<[Int]>([])
    var live: [Int: (spec: ObserverSpec, token: ObservationToken)] = [:]
    for (index, event) in events.enumerated() {
      switch event {
      case .observe(let spec):
        let token = store.observe {
          for path in spec.always { paths[path].read(store) }
          if store[\.inner.flag] {
            for path in spec.conditional { paths[path].read(store) }
          }
          fired.withLock { $0.append(spec.id) }
        }
        live[spec.id] = (spec, token)
      case .cancel(let id):
        live.removeValue(forKey: id)?.token.cancel()
      case .send(let action):
        fired.withLock { $0.removeAll() }
        let old = store.state
        store.send(action)
        let new = store.state
        let expected = live.values.map(\.spec).filter { oracle($0, old, new) }.map(\.id).sorted()
        let actual = fired.withLock { $0 }
        if actual != expected {
          return Mismatch(eventIndex: index, expected: expected, fired: actual)
        }
      }
    }
    return nil
  }

  /// Checks `actions` sends from `seed`; on a mismatch, shrinks the run and describes the
  /// smallest failing sequence found.
  static func check(seed: UInt64, actions: Int, oracle: @escaping Oracle = oracle) -> String? {
    let events = events(seed: seed, actions: actions)
    guard let mismatch = firstMismatch(in: events, oracle: oracle) else { return nil }
    let minimal = shrink(Array(events[...mismatch.eventIndex])) {
      firstMismatch(in: $0, oracle: oracle) != nil
    }
    let last = firstMismatch(in: minimal, oracle: oracle)!
    return """
      seed \(seed): after action \(mismatch.eventIndex) of the run, the observers that ran \
      differ from the oracle's. A minimal sequence (\(minimal.count) of \(events.count) steps):
      \(minimal.enumerated().map { "  \($0.offset + 1). \($0.element)" }.joined(separator: "\n"))
      expected to run: \(last.expected.map { "#\($0)" }), ran: \(last.fired.map { "#\($0)" })
      """
  }

  /// 20 seeds × 5,000 actions: 100,000 actions per run.
  @Test(arguments: 1...20 as ClosedRange<UInt64>)
  func firedObserversMatchTheOracle(seed: UInt64) {
    if let failure = Self.check(seed: seed, actions: 5_000) {
      Issue.record(Comment(rawValue: failure))
    }
  }

  /// The check itself: with an oracle that wrongly believes `inner.b` never changes, it must
  /// fail and shrink to an observer of `inner.b` and an action that changes it (plus the
  /// toggle that makes the read happen, when the generated observer reads it conditionally).
  @Test func aWrongOracleFailsWithAMinimalSequence() throws {
    let blind: Oracle = { spec, old, new in
      old.inner.flag != new.inner.flag
        || spec.reads(in: old).contains { $0.name != "inner.b" && $0.changed(old, new) }
    }
    let failure = try #require(Self.check(seed: 7, actions: 5_000, oracle: blind))
    let steps = failure.split(separator: "\n").filter { $0.hasPrefix("  ") }
    #expect((2...3).contains(steps.count), "\(failure)")
    #expect(steps.first?.contains("observe #") == true)
    #expect(steps.first?.contains("\"inner.b\"") == true)
    #expect(steps.last?.contains("send .setB(") == true)
    #expect(failure.hasPrefix("seed 7: after action "))
  }
}
