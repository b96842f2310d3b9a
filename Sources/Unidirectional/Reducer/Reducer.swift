/// A description of how a feature's state changes in response to an action, and which effects
/// then run.
///
/// Conform a type to `Reducer` in one of two ways:
///
/// - implement ``reduce(into:action:)`` directly, mutating the state and returning the
///   ``Effect`` to run once the new state is committed, or
/// - implement ``body`` with the ``ReducerBuilder`` to compose other reducers.
///
/// ```swift
/// struct Counter: Reducer {
///   struct State: Equatable, Sendable { var count = 0 }
///   enum Action: Sendable { case increment, decrement }
///
///   func reduce(into state: inout State, action: Action) -> Effect<Action> {
///     switch action {
///     case .increment: state.count += 1
///     case .decrement: state.count -= 1
///     }
///     return .none
///   }
/// }
/// ```
///
/// Reducers must be `Sendable`: a ``Store`` may reduce on any thread. A reducer is always called
/// under the store's lock, one action at a time, so it must not call back into the store that
/// runs it.
public protocol Reducer<State, Action>: Sendable {
  /// The state the reducer evolves.
  associatedtype State

  /// The actions the reducer handles.
  associatedtype Action

  /// The type of ``body`` for a reducer built from other reducers, or `Never` for a reducer that
  /// implements ``reduce(into:action:)`` itself.
  associatedtype Body

  /// Evolves the state for one action and returns the effect to run afterwards.
  ///
  /// - Parameters:
  ///   - state: The current state, mutated in place.
  ///   - action: The action to handle.
  /// - Returns: The effect to start once the new state is committed; ``Effect/none`` for none.
  func reduce(into state: inout State, action: Action) -> Effect<Action>

  /// The reducers this reducer is built from, combined by the ``ReducerBuilder``.
  ///
  /// Implement either this property or ``reduce(into:action:)``, not both.
  @ReducerBuilder<State, Action>
  var body: Body { get }
}

extension Reducer where Body == Never {
  /// A reducer that implements ``reduce(into:action:)`` has no body.
  ///
  /// Calling it is a programming error.
  public var body: Never {
    fatalError(
      """
      '\(Self.self)' has no body: it implements 'reduce(into:action:)' directly. \
      Do not access its 'body'.
      """
    )
  }
}

extension Reducer where Body: Reducer, Body.State == State, Body.Action == Action {
  /// Reduces by delegating to ``body``.
  ///
  /// - Parameters:
  ///   - state: The current state, changed in place.
  ///   - action: The action to handle.
  /// - Returns: The effects to start once the new state is committed.
  @inlinable
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    body.reduce(into: &state, action: action)
  }
}
