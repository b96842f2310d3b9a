/// A reducer made from a closure.
///
/// ```swift
/// Reduce { state, action in
///   state.count += 1
///   return .none
/// }
/// ```
public struct Reduce<State, Action>: Reducer {
  @usableFromInline
  let reduce: @Sendable (inout State, Action) -> Effect<Action>

  /// Creates a reducer from a closure that mutates the state and returns an effect.
  ///
  /// - Parameter reduce: Called once per action, under the store's lock.
  @inlinable
  public init(
    _ reduce: @escaping @Sendable (_ state: inout State, _ action: Action) -> Effect<Action>
  ) {
    self.reduce = reduce
  }

  /// Type-erases another reducer.
  ///
  /// - Parameter reducer: The reducer to wrap.
  @inlinable
  public init<R: Reducer>(_ reducer: R) where R.State == State, R.Action == Action {
    self.reduce = { reducer.reduce(into: &$0, action: $1) }
  }

  /// Calls the closure.
  ///
  /// - Parameters:
  ///   - state: The current state, changed in place.
  ///   - action: The action to handle.
  /// - Returns: The effects to start once the new state is committed.
  @inlinable
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    reduce(&state, action)
  }
}
