import Testing
import Unidirectional
import UnidirectionalTestSupport

/// Randomized check of the observation engine against an independent oracle.
///
/// A seeded generator builds observers that read random key paths (stored, nested, computed,
/// collection elements, class and non-Equatable values, some only behind a condition), then
/// sends random actions. After every action the set of observers that ran must equal the set
/// the oracle computes from the old and new states with the documented rules.
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
  }

  enum Action: Sendable {
    case setX(Int), setY(Int8), setName(String), setA(Int), setB(String), toggleFlag
    case setListElement(Int, Int), appendToList(Int), removeLast
    case setOptional(Int?), setNestedA(Int, Int), newModel, sameModel, setOpaque(Int)
    case setWide(Int, Int), noop
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
      case .setListElement(let index, let value): state.list[index] = value
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
  /// inner flag is set.
  struct ObserverSpec {
    let id: Int
    let always: [Path]
    let conditional: [Path]

    /// What a run reads in `state`.
    func reads(in state: State) -> [Path] {
      state.inner.flag ? always + conditional : always
    }
  }

  static func randomAction(_ random: inout SplitMix64, state: State) -> Action {
    let small = Int.random(in: 0..<3, using: &random)
    switch Int.random(in: 0..<16, using: &random) {
    case 0: return .setX(small)
    case 1: return .setY(Int8(small))
    case 2: return .setName(["a", "b", "a long name that lives on the heap"][small])
    case 3: return .setA(small)
    case 4: return .setB(["b", "c", String(repeating: "d", count: 40)][small])
    case 5: return .toggleFlag
    case 6: return .setListElement(Int.random(in: 0..<state.list.count, using: &random), small)
    case 7: return .appendToList(small)
    case 8: return .removeLast
    case 9: return .setOptional(small == 0 ? nil : small)
    case 10: return .setNestedA(Int.random(in: 0..<2, using: &random), small)
    case 11: return small == 0 ? .newModel : .sameModel
    case 12: return .setOpaque(small)
    case 13, 14: return .setWide(Int.random(in: 0..<16, using: &random), small)
    default: return .noop
    }
  }

  @Test(arguments: [1, 2, 3, 42, 2026] as [UInt64])
  func firedObserversMatchTheOracle(seed: UInt64) {
    var random = SplitMix64(seed: seed)
    let store = Store(initialState: State()) { Feature() }
    let fired = Locked<[Int]>([])
    var specs: [Int: ObserverSpec] = [:]
    var tokens: [Int: ObservationToken] = [:]
    var nextID = 0

    func addObserver() {
      let id = nextID
      nextID += 1
      let always = (0..<Int.random(in: 1...3, using: &random)).map { _ in
        Self.paths.randomElement(using: &random)!
      }
      let conditional = (0..<Int.random(in: 0...2, using: &random)).map { _ in
        Self.paths.randomElement(using: &random)!
      }
      let spec = ObserverSpec(id: id, always: always, conditional: conditional)
      specs[id] = spec
      tokens[id] = store.observe {
        for path in always { path.read(store) }
        if store[\.inner.flag] {
          for path in conditional { path.read(store) }
        }
        fired.withLock { $0.append(id) }
      }
    }

    for _ in 0..<12 { addObserver() }
    let steps = 2_000
    for step in 0..<steps {
      // Now and then, the set of observers changes.
      if Int.random(in: 0..<50, using: &random) == 0 { addObserver() }
      if Int.random(in: 0..<50, using: &random) == 0,
        let id = tokens.keys.randomElement(using: &random)
      {
        tokens.removeValue(forKey: id)?.cancel()
        specs[id] = nil
      }
      fired.withLock { $0.removeAll() }
      let old = store.state
      let action = Self.randomAction(&random, state: old)
      store.send(action)
      let new = store.state

      let expected = specs.values.filter { spec in
        // The flag read itself (`inner.flag`) is a dependency of every observer.
        old.inner.flag != new.inner.flag
          || spec.reads(in: old).contains { $0.changed(old, new) }
      }.map(\.id).sorted()
      let actual = fired.withLock { $0 }
      if actual != expected {
        let names = { (ids: [Int]) in
          ids.map { id in
            let spec = specs[id]!
            return "#\(id)(\(spec.always.map(\.name)) if flag \(spec.conditional.map(\.name)))"
          }
        }
        Issue.record(
          """
          seed \(seed), step \(step), action \(action): \
          expected \(names(expected)), fired \(actual.map { "#\($0)" })
          """)
        return
      }
    }
    withExtendedLifetime(tokens) {}
  }
}
