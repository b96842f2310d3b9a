/// Work a reducer asks the store to do once the new state is committed: feed actions back,
/// run asynchronous operations, or cancel earlier work.
///
/// Effects are values: building one does nothing. The ``Store`` starts an action's effect right
/// after it commits that action's state. Asynchronous parts run as Swift concurrency `Task`s,
/// and actions they send are reduced like any other, in FIFO order.
///
/// ```swift
/// case .factButtonTapped:
///   return .run { [count = state.count] send in
///     let fact = try await numberFact(count)
///     await send(.factResponse(fact))
///   }
/// ```
public struct Effect<Action> {
  // Indirect: every case but `.none` is boxed, so an effect is one pointer-sized value that
  // specialized code copies with a retain (and `.none` with nothing) instead of calling
  // generic value witnesses of a multi-payload enum on every action.
  @usableFromInline
  indirect enum Operation {
    case none
    case send(Action)
    case run(Run)
    case merge([Effect])
    case concatenate([Effect])
    case cancellable(id: EffectID, cancelInFlight: Bool, Effect)
    case cancel(id: EffectID)
    /// Reports a problem to the store's issue handler (reducers cannot reach the store).
    case issue(StoreIssue)
    /// Cancels the running effects whose cancellation id matches (`forEach` uses it to cancel
    /// the effects of removed elements; it visits running ids only).
    case cancelMatching(@Sendable (any Hashable & Sendable) -> Bool)
    /// Runs `effect` at most once per `interval` per id (see `throttle(id:for:clock:latest:)`).
    case throttle(
      id: EffectID, interval: Duration, clock: any Clock<Duration>, latest: Bool, Effect)
    /// Has the store watch a navigation child with effects from now on (see `ChildWatch`).
    case watch(ChildWatch)
  }

  @usableFromInline
  struct Run: Sendable {
    let priority: TaskPriority?
    let operation: @Sendable (Send<Action>) async throws -> Void
    let handler: (@Sendable (any Error, Send<Action>) async -> Void)?
    /// The dependencies in force where the effect was created, if some may be overridden there;
    /// the effect runs with them.
    let dependencies: DependencyValues?
    let fileID: String
    let line: UInt
  }

  @usableFromInline
  let operation: Operation

  @usableFromInline
  init(_ operation: Operation) {
    self.operation = operation
  }
}

extension Effect.Operation: Sendable where Action: Sendable {}
extension Effect: Sendable where Action: Sendable {}

extension Effect {
  /// An effect that does nothing.
  ///
  /// Returning `.none` costs no allocation and starts no task.
  @inlinable
  public static var none: Self {
    Self(.none)
  }

  /// An effect that feeds `action` back into the store at once.
  ///
  /// The action is queued as soon as the effect starts, behind actions already waiting, and is
  /// reduced before the `send` that produced this effect returns (unless another thread is
  /// draining the store, in which case that thread reduces it).
  ///
  /// - Parameter action: The action to send.
  @inlinable
  public static func send(_ action: Action) -> Self {
    Self(.send(action))
  }

  /// An effect that runs an asynchronous operation in a new `Task`.
  ///
  /// - Parameters:
  ///   - priority: The priority of the task, or `nil` for the default.
  ///   - operation: The work to do. Call `send` to feed actions back; sends made after the effect
  ///     is cancelled are dropped. It runs with the dependencies in force where the effect is
  ///     created, so a `withDependencies` scope around `.run` in a reducer reaches it.
  ///   - handler: Called with any error the operation throws that is not a cancellation. Without
  ///     a handler, such an error is reported to the store's issue handler (see
  ///     ``StoreIssue``), never swallowed.
  ///   - fileID: The file that created the effect, for reports. Leave the default.
  ///   - line: The line that created the effect, for reports. Leave the default.
  public static func run(
    priority: TaskPriority? = nil,
    operation: @escaping @Sendable (_ send: Send<Action>) async throws -> Void,
    catch handler: (@Sendable (_ error: any Error, _ send: Send<Action>) async -> Void)? = nil,
    fileID: StaticString = #fileID,
    line: UInt = #line
  ) -> Self {
    Self(
      .run(
        Run(
          priority: priority,
          operation: operation,
          handler: handler,
          dependencies: DependencyValues.mayBeOverridden ? DependencyValues.current : nil,
          fileID: "\(fileID)",
          line: line
        )
      )
    )
  }

  /// Reports, through the store's issue handler, an action that arrived for child state that
  /// is absent; the composition reducers return it instead of reducing.
  @usableFromInline
  static func actionWithoutState(
    _ action: Any, state: String, fileID: String, line: UInt
  ) -> Self {
    Self(
      .issue(
        StoreIssue(
          kind: .actionWithoutState(action: ValueDump.line(action), state: state),
          fileID: fileID, line: line))
    )
  }

  @inlinable
  var isNotNone: Bool {
    if case .none = operation { return false }
    return true
  }
}
