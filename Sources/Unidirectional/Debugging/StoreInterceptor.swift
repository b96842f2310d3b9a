/// Code that runs around every action a store reduces: logging, metrics, persistence.
///
/// Give interceptors to a store when you create it:
///
/// ```swift
/// let metrics = StoreInterceptor<Feature.State, Feature.Action>(
///   didReduce: { action, oldState, newState in
///     actionCounter.increment(label: "\(action)")
///   }
/// )
/// let store = Store(initialState: Feature.State(), reducer: Feature(), interceptors: [metrics])
/// ```
///
/// ## Order
///
/// For each action, on the thread that reduces it (see ``Store`` for which one):
/// 1. every interceptor's `willReduce`, in the order given, with the action and the state before it;
/// 2. the reducer, which commits the new state;
/// 3. every interceptor's `didReduce`, with the action and the states before and after it;
/// 4. the action's effects start;
/// 5. the observers whose values changed run.
///
/// Every action a store reduces passes through its interceptors, whether it was sent by a
/// caller, an observer, an effect or an interceptor, and in the order the store reduces them.
///
/// ## Rules
///
/// Interceptors run outside the store's lock, so they may read the store and send to it. An
/// action an interceptor sends is queued behind the current one, like any action sent while the
/// store is busy: interceptors cannot reorder actions or re-enter the reducer. Until they
/// return, the store reduces nothing else, so keep them short (hand slow work, such as network
/// writes, to a queue of your own).
///
/// Interceptors belong to a root store; child stores made by `scope` share their root's.
public struct StoreInterceptor<State, Action>: Sendable {
  /// Called before the reducer runs, with the action and the current state.
  public typealias WillReduce = @Sendable (_ action: Action, _ state: State) -> Void

  /// Called after the reducer committed its state, with the action, the state before and the
  /// state after.
  public typealias DidReduce =
    @Sendable (_ action: Action, _ oldState: State, _ newState: State) -> Void

  @usableFromInline let willReduce: WillReduce?
  @usableFromInline let didReduce: DidReduce?
  /// Called once the action's effects started and its observers ran, with the task of its
  /// effects: for the test store, which records what each action did.
  @usableFromInline let didComplete: (@Sendable (_ effects: Task<Void, Never>?) -> Void)?

  /// Creates an interceptor from the code to run before and after each action.
  ///
  /// - Parameters:
  ///   - willReduce: Runs before each action is reduced. Optional.
  ///   - didReduce: Runs after each action is reduced, before its effects start and before
  ///     observers run. Optional.
  public init(willReduce: WillReduce? = nil, didReduce: DidReduce? = nil) {
    self.init(willReduce: willReduce, didReduce: didReduce, didComplete: nil)
  }

  /// Creates an interceptor that is also told when each action is complete.
  package init(
    willReduce: WillReduce?, didReduce: DidReduce?,
    didComplete: (@Sendable (_ effects: Task<Void, Never>?) -> Void)?
  ) {
    self.willReduce = willReduce
    self.didReduce = didReduce
    self.didComplete = didComplete
  }
}
