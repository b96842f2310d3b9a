/// What a child store (made by `Store.scope`) does instead of owning state: it reads from,
/// sends to and observes through its root store.
@usableFromInline
protocol StoreScope<State, Action>: Sendable {
  associatedtype State
  associatedtype Action

  func read<Value>(_ keyPath: KeyPath<State, Value>) -> Value
  func send(_ action: Action) -> StoreTask
  func observe(_ body: @escaping @Sendable () -> Void) -> ObservationToken
  func observe<Value>(_ keyPath: KeyPath<State, Value>, _ body: @escaping @Sendable (Value) -> Void)
    -> ObservationToken
  /// A read of `keyPath` for an observer, which may outlive the child store: `nil` once the root
  /// store is gone.
  func observedRead<Value>(of keyPath: KeyPath<State, Value>) -> @Sendable () -> Value?
  func scope<ChildState: Sendable, ChildAction: Sendable>(
    state: ScopePath<State, ChildState>, action: @escaping @Sendable (ChildAction) -> Action
  ) -> Store<ChildState, ChildAction>?
  func waitForEffects() async
}
