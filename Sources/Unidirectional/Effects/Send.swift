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
/// state.
///
/// A `Send` knows the effect it was given to, wherever it is called from (an unstructured
/// `Task`, a Dispatch queue, a C callback). If that effect belonged to a navigation child that
/// is gone (dismissed, popped, removed or replaced), the action is dropped, and, unless the
/// calling task was cancelled with the child, reported: see
/// ``StoreIssue/Kind/actionFromDismissedChild(action:)``.
public struct Send<Action>: Sendable {
  /// Hands an action, sent by the effect task given (if any), to the store, and says how to
  /// wait for its reduction. The task is passed, not captured: a closure that captures only
  /// the runtime costs no allocation.
  let deliver: @Sendable (Action, EffectOrigin?) -> StoreTask

  /// The effect task the store gave this `Send` to (through any mapping), if the store made it:
  /// how a call knows that the child that effect ran for is gone.
  let origin: SendOrigin?

  /// Creates a `Send` that passes actions to `send`.
  ///
  /// Effects get their `Send` from the store; create one yourself only to adapt actions. A
  /// `Send` made this way returns as soon as `send` returns.
  ///
  /// - Parameter send: Receives each action.
  public init(_ send: @escaping @Sendable (Action) -> Void) {
    self.deliver = { action, _ in
      send(action)
      return .none
    }
    self.origin = nil
  }

  /// Creates a `Send` whose calls wait for the task `deliver` returns to be reduced.
  init(deliver: @escaping @Sendable (Action, EffectOrigin?) -> StoreTask, origin: SendOrigin?) {
    self.deliver = deliver
    self.origin = origin
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
    guard !Task.isCancelled else { return }
    // Optional chaining borrows the origin; `if let` would copy it (retaining its parts).
    if origin?.task.childIsGone == true {
      // Asked again: a task cancelled with its child since the first check stays silent (the
      // runtime cancels a child's tasks before it marks the child gone).
      if !Task.isCancelled { origin?.reportDropped(action) }
      return
    }
    await deliver(action, origin?.task).waitUntilReduced()
  }
}

/// The effect task a store gave a `Send` to, and where that store's issues go.
struct SendOrigin: Sendable {
  let task: EffectOrigin
  let reportIssue: @Sendable (StoreIssue) -> Void

  /// Reports `action`, sent by a task that was not cancelled after the child its effect ran for
  /// was gone (a task the store does not track, a callback): a leak in the feature, reported
  /// where the effect was made. (A task cancelled with the child stays silent, as TCA's `Send`
  /// does.)
  func reportDropped(_ action: Any) {
    reportIssue(
      StoreIssue(
        kind: .actionFromDismissedChild(action: ValueDump.line(action)),
        fileID: task.site?.fileID ?? "an unknown file", line: task.site?.line ?? 0))
  }
}
