/// A result builder that combines reducers written one per line into one reducer.
///
/// Reducers run in the order written, each on the state the previous one left; their effects
/// are merged. `if`, `if`/`else` and `#available`-free optional blocks are supported.
@resultBuilder
public enum ReducerBuilder<State, Action> {
  /// Builds an empty block.
  @inlinable
  public static func buildBlock() -> EmptyReducer<State, Action> {
    EmptyReducer()
  }

  /// Builds a block of one reducer.
  ///
  /// - Parameter first: The reducer.
  @inlinable
  public static func buildPartialBlock<R: Reducer>(first: R) -> R
  where R.State == State, R.Action == Action {
    first
  }

  /// Appends a reducer to a block.
  ///
  /// - Parameters:
  ///   - accumulated: The reducers of the block so far.
  ///   - next: The reducer to run after them.
  @inlinable
  public static func buildPartialBlock<R0: Reducer, R1: Reducer>(
    accumulated: R0, next: R1
  ) -> _Sequence<R0, R1> {
    _Sequence(first: accumulated, second: next)
  }

  /// Builds the reducer of an expression.
  ///
  /// - Parameter expression: The reducer.
  @inlinable
  public static func buildExpression<R: Reducer>(_ expression: R) -> R
  where R.State == State, R.Action == Action {
    expression
  }

  /// Builds an `if` without `else`: the reducer runs only when the condition held.
  ///
  /// - Parameter wrapped: The reducer of the `if`, or `nil` when the condition did not hold.
  @inlinable
  public static func buildOptional<R: Reducer>(_ wrapped: R?) -> _Optional<R>
  where R.State == State, R.Action == Action {
    _Optional(wrapped: wrapped)
  }

  /// Builds the first branch of an `if`/`else`.
  ///
  /// - Parameter first: The reducer of the first branch.
  @inlinable
  public static func buildEither<First: Reducer, Second: Reducer>(
    first: First
  ) -> _Conditional<First, Second> {
    .first(first)
  }

  /// Builds the second branch of an `if`/`else`.
  ///
  /// - Parameter second: The reducer of the second branch.
  @inlinable
  public static func buildEither<First: Reducer, Second: Reducer>(
    second: Second
  ) -> _Conditional<First, Second> {
    .second(second)
  }

  /// Two reducers run one after the other. Built by ``ReducerBuilder``; not for direct use.
  public struct _Sequence<R0: Reducer, R1: Reducer>: Reducer
  where R0.State == State, R0.Action == Action, R1.State == State, R1.Action == Action {
    @usableFromInline let first: R0
    @usableFromInline let second: R1

    @inlinable
    init(first: R0, second: R1) {
      self.first = first
      self.second = second
    }

    /// Runs `first`, then `second`, and merges their effects.
    @inlinable
    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
      let firstEffect = first.reduce(into: &state, action: action)
      let secondEffect = second.reduce(into: &state, action: action)
      return firstEffect.merge(with: secondEffect)
    }
  }

  /// A reducer that may be absent. Built by ``ReducerBuilder``; not for direct use.
  public struct _Optional<Wrapped: Reducer>: Reducer
  where Wrapped.State == State, Wrapped.Action == Action {
    @usableFromInline let wrapped: Wrapped?

    @inlinable
    init(wrapped: Wrapped?) {
      self.wrapped = wrapped
    }

    /// Runs the wrapped reducer if there is one.
    @inlinable
    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
      wrapped?.reduce(into: &state, action: action) ?? .none
    }
  }

  /// One of two reducers. Built by ``ReducerBuilder``; not for direct use.
  public enum _Conditional<First: Reducer, Second: Reducer>: Reducer
  where
    First.State == State, First.Action == Action,
    Second.State == State, Second.Action == Action
  {
    /// The `if` branch.
    case first(First)
    /// The `else` branch.
    case second(Second)

    /// Runs the reducer of the branch that was taken.
    @inlinable
    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch self {
      case .first(let first): first.reduce(into: &state, action: action)
      case .second(let second): second.reduce(into: &state, action: action)
      }
    }
  }
}
