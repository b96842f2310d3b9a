extension Task where Success == Never, Failure == Never {
  /// Cancels the effects of the current store that were made cancellable with `id`, from inside
  /// a running effect.
  ///
  /// ```swift
  /// return .run { send in
  ///   Task.cancel(id: CancelID.search)
  ///   …
  /// }
  /// ```
  ///
  /// The same as returning ``Effect/cancel(id:)`` from a reducer, for the store whose effect
  /// (or a child task of it) is running: the effects of other stores are never touched. Called
  /// outside an effect, it reports the mistake through ``DependencyValues/reportIssue`` and does
  /// nothing.
  ///
  /// - Parameters:
  ///   - id: The identifier given to ``Effect/cancellable(id:cancelInFlight:)`` or
  ///     ``withTaskCancellation(id:cancelInFlight:operation:fileID:line:)``.
  ///   - fileID: The file of the call, named if it is reported (filled in for you).
  ///   - line: The line of the call (filled in for you).
  public static func cancel(
    id: some Hashable & Sendable, fileID: StaticString = #fileID, line: UInt = #line
  ) {
    guard let activity = EffectActivity.current?.activity else {
      DependencyValues.current.reportIssue(
        "Unidirectional: Task.cancel(id:) was called at \(fileID):\(line) outside an effect; "
          + "nothing was cancelled.")
      return
    }
    // No runtime: the store is gone, and its effects were all cancelled already.
    activity.runtime.value?.cancel(id: EffectID(id).scoped(toAll: EffectIDScopes.current))
  }
}

/// Runs `operation` as part of the current effect, cancellable by `id` like an effect made
/// ``Effect/cancellable(id:cancelInFlight:)``.
///
/// ```swift
/// return .run { send in
///   await withTaskCancellation(id: CancelID.save, cancelInFlight: true) {
///     await save(draft)
///   }
///   await send(.saved)
/// }
/// ```
///
/// `operation` runs in a task of its own, registered under `id` in the current store, and this
/// call waits for it: cancelling `id` (``Effect/cancel(id:)``, `Task.cancel(id:)`, or
/// `cancelInFlight` here) cancels `operation` only, and the effect goes on once it returns.
/// Cancelling the effect cancels `operation` too. Called outside an effect, it reports the
/// mistake through ``DependencyValues/reportIssue`` and runs `operation` without an id.
///
/// - Parameters:
///   - id: Any hashable, sendable value.
///   - cancelInFlight: When `true`, the current store's effects already running with `id` are
///     cancelled before `operation` starts.
///   - operation: The work to make cancellable.
///   - fileID: The file of the call, named if it is reported (filled in for you).
///   - line: The line of the call (filled in for you).
/// - Returns: What `operation` returns.
/// - Throws: What `operation` throws.
public func withTaskCancellation<T: Sendable, E: Error>(
  id: some Hashable & Sendable,
  cancelInFlight: Bool = false,
  operation: @escaping @Sendable () async throws(E) -> T,
  fileID: StaticString = #fileID,
  line: UInt = #line
) async throws(E) -> T {
  guard let activity = EffectActivity.current?.activity else {
    DependencyValues.current.reportIssue(
      "Unidirectional: withTaskCancellation(id:) was called at \(fileID):\(line) outside an "
        + "effect; the operation ran without a cancellation id.")
    return try await operation()
  }
  let result = Locked<Result<T, E>?>(nil)
  let ran =
    await activity.runtime.value?.runCancellable(
      id: EffectID(id).scoped(toAll: EffectIDScopes.current), cancelInFlight: cancelInFlight
    ) {
      let outcome: Result<T, E>
      do throws(E) {
        outcome = .success(try await operation())
      } catch {
        outcome = .failure(error)
      }
      result.withLock { $0 = outcome }
    } ?? false
  // The store is gone (its effects are cancelled): run the operation here, cancelled as well.
  guard ran, let outcome = result.withLock({ $0 }) else { return try await operation() }
  return try outcome.get()
}
