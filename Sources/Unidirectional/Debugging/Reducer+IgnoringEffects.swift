extension Reducer {
  /// This reducer with the effects it returns discarded: state changes only.
  ///
  /// For replaying an ``ActionLog``: the log already holds the actions effects fed back, so
  /// running the effects again would deliver them twice (and repeat their work, such as
  /// requests).
  ///
  /// ```swift
  /// let store = Store(initialState: Feature.State()) { Feature().ignoringEffects() }
  /// ```
  ///
  /// - Returns: A reducer that changes the state exactly as this one does and returns
  ///   `.none` for every action.
  public func ignoringEffects() -> some Reducer<State, Action> {
    Reduce { state, action in
      _ = self.reduce(into: &state, action: action)
      return .none
    }
  }
}
