/// A reducer that runs the reducers of its builder block one after another, on the same state
/// and action, and merges their effects.
///
/// ```swift
/// var body: some Reducer<State, Action> {
///   CombineReducers {
///     Logging()
///     Core()
///   }
/// }
/// ```
///
/// Reducers run in the order written; each sees the state the previous one left.
public struct CombineReducers<State, Action, Reducers: Reducer>: Reducer
where Reducers.State == State, Reducers.Action == Action {
  @usableFromInline
  let reducers: Reducers

  /// Combines the reducers built by `build`.
  ///
  /// - Parameter build: A ``ReducerBuilder`` block.
  @inlinable
  public init(@ReducerBuilder<State, Action> _ build: () -> Reducers) {
    self.reducers = build()
  }

  /// Runs every reducer in order and merges their effects.
  ///
  /// - Parameters:
  ///   - state: The current state, changed in place.
  ///   - action: The action to handle.
  /// - Returns: The effects to start once the new state is committed.
  @inlinable
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    reducers.reduce(into: &state, action: action)
  }
}
