/// Feeds actions from a running effect back into its store.
///
/// An effect's operation receives a `Send`; call it like a function:
///
/// ```swift
/// .run { send in
///   await send(.timerTicked)
/// }
/// ```
///
/// `await send(action)` returns once the store has reduced the action, so when an effect ends,
/// the actions it sent are in the state: after ``StoreTask/finish()``, reading the store shows
/// them. Sending from a cancelled task does nothing: effects that were cancelled cannot change
/// state. (If the effect belonged to a navigation child that was dismissed, popped or replaced,
/// the dropped action is also reported: see
/// ``StoreIssue/Kind/actionFromDismissedChild(action:)``.)
public struct Send<Action>: Sendable {
  /// Hands an action to the store and says how to wait for its reduction.
  let deliver: @Sendable (Action) -> StoreTask

  /// Told of an action sent from a cancelled task, which is dropped: navigation reducers report
  /// actions from the effects of a child that was dismissed (see `Effect.map(_:child:)`).
  let dropped: (@Sendable (Action) -> Void)?

  /// Creates a `Send` that passes actions to `send`.
  ///
  /// Effects get their `Send` from the store; create one yourself only to adapt actions. A
  /// `Send` made this way returns as soon as `send` returns.
  ///
  /// - Parameter send: Receives each action.
  public init(_ send: @escaping @Sendable (Action) -> Void) {
    self.deliver = { action in
      send(action)
      return .none
    }
    self.dropped = nil
  }

  /// Creates a `Send` whose calls wait for the task `deliver` returns to be reduced.
  init(
    deliver: @escaping @Sendable (Action) -> StoreTask,
    dropped: (@Sendable (Action) -> Void)? = nil
  ) {
    self.deliver = deliver
    self.dropped = dropped
  }

  /// Sends an action to the store, unless the current task is cancelled, and returns once it is
  /// reduced.
  ///
  /// If the store is idle, the action is reduced (and observers run) on this task. If the store
  /// is busy, the action is queued in FIFO order and this call waits until the thread doing the
  /// work has reduced it. It does not wait for the effects that action starts.
  ///
  /// - Parameter action: The action to send.
  public func callAsFunction(_ action: Action) async {
    guard !Task.isCancelled else {
      dropped?(action)
      return
    }
    await deliver(action).waitUntilReduced()
  }
}
