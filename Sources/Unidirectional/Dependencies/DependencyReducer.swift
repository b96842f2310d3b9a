/// A reducer that runs another with some dependencies changed. Made by
/// ``Reducer/dependency(_:_:)`` and ``Reducer/transformDependency(_:transform:)``.
public struct DependencyReducer<Base: Reducer>: Reducer {
  let base: Base
  let update: @Sendable (inout DependencyValues) -> Void

  init(base: Base, update: @escaping @Sendable (inout DependencyValues) -> Void) {
    self.base = base
    self.update = update
  }

  /// Runs the wrapped reducer with the changed dependencies; the effects it returns run with
  /// them too.
  ///
  /// - Parameters:
  ///   - state: The current state, changed in place.
  ///   - action: The action to handle.
  /// - Returns: The effects to start once the new state is committed.
  public func reduce(into state: inout Base.State, action: Base.Action) -> Effect<Base.Action> {
    // `withDependencies` marks an override as in force, which is what makes `.run` capture the
    // changed values for the effect's task (see `Effect.run`).
    withDependencies(update) {
      base.reduce(into: &state, action: action)
    }
  }
}

extension Reducer {
  /// Sets a dependency for this reducer alone: it, the reducers it is built from, and the
  /// effects they return see `value`; the rest of the store does not.
  ///
  /// ```swift
  /// Scope(state: \.editor, action: .editor) {
  ///   Editor()
  ///     .dependency(\.continuousClock, ImmediateClock())
  /// }
  /// ```
  ///
  /// Each action pays one task-local binding while this reducer runs.
  ///
  /// - Parameters:
  ///   - keyPath: The dependency, a property of ``DependencyValues``.
  ///   - value: Its value for this reducer.
  public func dependency<Value: Sendable>(
    _ keyPath: WritableKeyPath<DependencyValues, Value> & Sendable,
    _ value: Value
  ) -> DependencyReducer<Self> {
    DependencyReducer(base: self) { $0[keyPath: keyPath] = value }
  }

  /// Changes a dependency for this reducer alone: it, the reducers it is built from, and the
  /// effects they return see the value `transform` makes of the one in force.
  ///
  /// ```swift
  /// Child()
  ///   .transformDependency(\.apiClient) { $0.baseURL = stagingURL }
  /// ```
  ///
  /// - Parameters:
  ///   - keyPath: The dependency, a property of ``DependencyValues``.
  ///   - transform: Changes the value in force, on every action this reducer receives.
  public func transformDependency<Value>(
    _ keyPath: WritableKeyPath<DependencyValues, Value> & Sendable,
    transform: @escaping @Sendable (inout Value) -> Void
  ) -> DependencyReducer<Self> {
    DependencyReducer(base: self) { transform(&$0[keyPath: keyPath]) }
  }
}
