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
/// Sending from a cancelled task does nothing: effects that were cancelled cannot change state.
public struct Send<Action>: Sendable {
  let send: @Sendable (Action) -> Void

  /// Creates a `Send` that passes actions to `send`.
  ///
  /// Effects get their `Send` from the store; create one yourself only to adapt actions.
  ///
  /// - Parameter send: Receives each action.
  public init(_ send: @escaping @Sendable (Action) -> Void) {
    self.send = send
  }

  /// Sends an action to the store, unless the current task is cancelled.
  ///
  /// The action is queued in FIFO order; if the store is idle, it is reduced (and observers
  /// run) on this task before the call returns.
  ///
  /// - Parameter action: The action to send.
  public func callAsFunction(_ action: Action) async {
    guard !Task.isCancelled else { return }
    send(action)
  }
}
