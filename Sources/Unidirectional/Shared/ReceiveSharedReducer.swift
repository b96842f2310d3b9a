/// A reducer that keeps a state's copy of a shared value current: the reducer
/// ``Reducer/receivingShared(_:action:)`` makes.
///
/// Put on a store's reducer, it makes the store receive an action carrying a ``SharedChange``
/// each time the value changes elsewhere (another store, an effect, another process, another
/// field of the same state holding the value; never a change the store's reducer made through
/// this field, which the copy already has), and applies the change to the copy before `base`
/// reduces the action.
public struct ReceiveSharedReducer<Base: Reducer, Value: Sendable>: Reducer
where Base.State: Sendable, Base.Action: Sendable {
  /// The reducer the changes are received for.
  public let base: Base
  @usableFromInline let field: WritableKeyPath<Base.State, Shared<Value>> & Sendable
  @usableFromInline let action: CasePath<Base.Action, SharedChange<Value>>

  /// Applies a received change to the copy, then reduces the action with `base`.
  ///
  /// - Parameters:
  ///   - state: The state, whose copy of the value takes a newer change.
  ///   - action: The action.
  /// - Returns: What `base` returns.
  @inlinable
  public func reduce(into state: inout Base.State, action: Base.Action) -> Effect<Base.Action> {
    // Inlinable, so that it is specialized where the store is made: generic, it looks up the
    // metadata of `Shared<Value>` and the base's types on every action.
    if let change = self.action.extract(action) {
      state[keyPath: field].apply(change)
    }
    return base.reduce(into: &state, action: action)
  }
}

extension Reducer where State: Sendable, Action: Sendable {
  /// Keeps the state's copy of the shared value at `field` current: the store receives `action`
  /// each time the value changes elsewhere, and the copy takes the new value before this reducer
  /// runs.
  ///
  /// ```swift
  /// let store = Store(initialState: Counter.State()) {
  ///   Counter()
  ///     .receivingShared(\.settings, action: .case(Counter.Action.settingsChanged))
  /// }
  /// ```
  ///
  /// Apply it to the reducer you give the store (or test store): a store subscribes, when it is
  /// created, to the values its reducer receives this way. A change the store's reducer makes
  /// through `field` (``Shared/withLock(_:)``) is in the copy already and is not received; one it
  /// makes through another field holding the same value is, as is one made by another store's
  /// reducer: shortly after that reducer returns, in order, from a background queue. Changes
  /// from another process arrive once the key's watch hears of them.
  ///
  /// - Parameters:
  ///   - field: The shared value in the state.
  ///   - action: The action that carries a change of it.
  /// - Returns: A reducer that applies the changes, then runs this one.
  public func receivingShared<Value>(
    _ field: WritableKeyPath<State, Shared<Value>> & Sendable,
    action: CasePath<Action, SharedChange<Value>>
  ) -> ReceiveSharedReducer<Self, Value> {
    ReceiveSharedReducer(base: self, field: field, action: action)
  }
}

/// A reducer whose store subscribes to shared values when it is created.
package protocol SharedReceiving<State, Action> {
  associatedtype State
  associatedtype Action

  /// Subscribes to the shared values `state` holds that this reducer receives.
  ///
  /// - Parameters:
  ///   - state: The store's state when it is created.
  ///   - store: What receives the changes.
  /// - Returns: The subscriptions, which the store keeps for its life.
  func subscribeToShared(in state: State, for store: SharedChangeReceiver<State, Action>)
    -> [ObservationToken]
}

extension ReceiveSharedReducer: SharedReceiving {
  package func subscribeToShared(
    in state: Base.State, for store: SharedChangeReceiver<Base.State, Base.Action>
  ) -> [ObservationToken] {
    let inner =
      (base as? any SharedReceiving<Base.State, Base.Action>)?.subscribeToShared(
        in: state, for: store) ?? []
    let reference = state[keyPath: field].reference
    let field = field
    let action = action
    let storage = reference.storage
    // The field's own `Shared`: a change its `withLock` makes while this store reduces is in the
    // copy already. Another field holding the value (a parent's and a child's), or another store,
    // takes it as an action.
    let instance = state[keyPath: field].instance
    // Sent from a background thread, in order: the change may come from inside a reducer (this
    // store's or another's), where reducing this store's action at once would nest one's work in
    // the other's.
    let mailbox = SharedMailbox<Value>(storage: storage) { change in
      // A state that now holds another value under this field does not take this one.
      guard store.current(field)?.reference === reference else { return }
      store.send(action.embed(change))
    }
    let token = reference.subscribe { value, version, origin in
      if origin == instance, store.isReducingOnThisThread() { return }
      mailbox.post(SharedChange(value: value, version: version))
    }
    return inner + [token]
  }
}

/// How a reducer's subscriptions reach its store, without holding it.
package struct SharedChangeReceiver<State, Action>: Sendable {
  /// Whether the store is reducing an action on the calling thread.
  let isReducingOnThisThread: @Sendable () -> Bool
  /// A copy of the store's state now, untracked; `nil` once the store is gone.
  let state: @Sendable () -> State?
  /// Sends an action to the store, if it is still there.
  let send: @Sendable (Action) -> Void

  /// The shared value at `field` in the store's state now.
  func current<Value>(_ field: KeyPath<State, Shared<Value>>) -> Shared<Value>? {
    // A copy of the whole state, not a read through an `AnyKeyPath`: making `\.self` in
    // generic code, applying a key path to `Any` and casting back cost thousands of
    // instructions per change.
    state()?[keyPath: field]
  }
}
