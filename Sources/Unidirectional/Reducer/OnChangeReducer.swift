/// A reducer that runs another, then a reducer of its own when a value of the state changed.
/// Made by ``Reducer/onChange(of:_:)``.
public struct OnChangeReducer<Base: Reducer, Value: Equatable, Body: Reducer>: Reducer
where Body.State == Base.State, Body.Action == Base.Action {
  let base: Base
  let toValue: @Sendable (Base.State) -> Value
  let reducer: @Sendable (Value, Value) -> Body

  init(
    base: Base, toValue: @escaping @Sendable (Base.State) -> Value,
    reducer: @escaping @Sendable (Value, Value) -> Body
  ) {
    self.base = base
    self.toValue = toValue
    self.reducer = reducer
  }

  /// Runs the wrapped reducer, then, if the value changed, the reducer made for the old and new
  /// values; their effects are merged.
  ///
  /// - Parameters:
  ///   - state: The current state, changed in place.
  ///   - action: The action to handle.
  /// - Returns: The effects to start once the new state is committed.
  public func reduce(into state: inout Base.State, action: Base.Action) -> Effect<Base.Action> {
    let oldValue = toValue(state)
    let effect = base.reduce(into: &state, action: action)
    let newValue = toValue(state)
    guard oldValue != newValue else { return effect }
    return effect.merge(with: reducer(oldValue, newValue).reduce(into: &state, action: action))
  }
}

extension Reducer {
  /// Runs `reducer` after this one whenever the value `toValue` reads from the state changed.
  ///
  /// ```swift
  /// Reduce { state, action in … }
  ///   .onChange(of: \.filter) { oldFilter, newFilter in
  ///     Reduce { state, _ in
  ///       state.visible = state.todos.filter(newFilter.includes)
  ///       return .none
  ///     }
  ///   }
  /// ```
  ///
  /// The value is read before and after this reducer, for every action; the reducer runs (on
  /// the same action, with the state this reducer left) only when they differ, and its effects
  /// are merged with this reducer's.
  ///
  /// - Parameters:
  ///   - toValue: Reads the value from the state, for example a key path.
  ///   - reducer: Makes the reducer to run from the old and new values.
  public func onChange<Value: Equatable, Body: Reducer>(
    of toValue: @escaping @Sendable (State) -> Value,
    @ReducerBuilder<State, Action> _ reducer:
      @escaping @Sendable (
        _ oldValue: Value, _ newValue: Value
      ) -> Body
  ) -> OnChangeReducer<Self, Value, Body> where Body.State == State, Body.Action == Action {
    OnChangeReducer(base: self, toValue: toValue, reducer: reducer)
  }
}
