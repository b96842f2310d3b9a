import Unidirectional

// Issue 14's routing scenarios: a root send through ten `Scope`s that route enum actions, with
// the case paths written by hand (a pattern match) or made from the case constructor alone.
// As in a feature's `body`, each level builds its case path and `Scope` on every action.

/// A level's action: its child's actions, or an action of its own.
enum Routed<Child: Sendable>: Sendable {
  case child(Child)
  case own
}

/// Ten levels of actions down to the counter's `Int`.
typealias TenRouted = Routed<
  Routed<Routed<Routed<Routed<Routed<Routed<Routed<Routed<Routed<Int>>>>>>>>>
>

/// One level, routing `.child` to the level below.
struct RoutingLevel<Inner: Reducer>: Reducer
where Inner.State: Sendable, Inner.Action: Sendable {
  let inner: Inner
  let derived: Bool
  // Stored once: a key-path literal in generic code is instantiated on every evaluation, a
  // cost both forms would share and that a feature's non-generic `body` does not pay.
  let state: WritableKeyPath<Nest<Inner.State>, Inner.State> & Sendable = \.inner

  func reduce(into state: inout Nest<Inner.State>, action: Routed<Inner.Action>)
    -> Effect<Routed<Inner.Action>>
  {
    let path: CasePath<Routed<Inner.Action>, Inner.Action> =
      derived
      ? .case(Routed.child)
      : CasePath(Routed.child) { if case .child(let action) = $0 { action } else { nil } }
    return Scope(state: self.state, action: path) { inner }.reduce(into: &state, action: action)
  }
}

func tenRoutingLevels(derived: Bool) -> some Reducer<TenDeep, TenRouted> {
  func level<R: Reducer>(_ inner: R) -> RoutingLevel<R> {
    RoutingLevel(inner: inner, derived: derived)
  }
  return level(level(level(level(level(level(level(level(level(level(Bottom()))))))))))
}

/// The root action that reaches the counter through all ten levels.
let tenRoutedIncrement: TenRouted = .child(
  .child(.child(.child(.child(.child(.child(.child(.child(.child(1))))))))))

@MainActor
func makeRoutingScenarios() -> [Scenario] {
  [
    Scenario(name: "N0 root send, 10 Scopes, hand-written case paths", actions: 500_000) {
      let store = Store(initialState: tenDeepState(), reducer: tenRoutingLevels(derived: false))
      return { iterations in
        for _ in 0..<iterations { store.send(tenRoutedIncrement) }
        blackHole(store)
      }
    },
    Scenario(
      name: "N1 root send, 10 Scopes, case paths from constructors", actions: 500_000,
      target: .ratio(over: "N0 root send, 10 Scopes, hand-written case paths", atMost: 1.5)
    ) {
      let store = Store(initialState: tenDeepState(), reducer: tenRoutingLevels(derived: true))
      return { iterations in
        for _ in 0..<iterations { store.send(tenRoutedIncrement) }
        blackHole(store)
      }
    },
  ]
}
