/// A reducer that changes nothing and returns no effect.
///
/// Useful as a placeholder, and as the result of an empty ``ReducerBuilder`` block.
public struct EmptyReducer<State, Action>: Reducer {
  /// Creates an empty reducer.
  @inlinable
  public init() {}

  /// Returns ``Effect/none`` without touching the state.
  ///
  /// - Parameters:
  ///   - state: The current state, left unchanged.
  ///   - action: The action, ignored.
  /// - Returns: ``Effect/none``.
  @inlinable
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    .none
  }
}
