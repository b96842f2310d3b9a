/// What code running inside an effect may ask of the effect runtime of its store, without
/// knowing the store's action type: `Task.cancel(id:)`, `withTaskCancellation`.
///
/// An effect finds its runtime through ``EffectActivity/current``, the task-local every effect
/// task (and the child tasks it creates) runs with, so nothing is bound per effect for this.
protocol EffectRuntimeControls: AnyObject, Sendable {
  /// Where the store's issues go.
  var reportIssue: @Sendable (StoreIssue) -> Void { get }

  /// Cancels every running task registered under `id`.
  func cancel(id: EffectID)

  /// Runs `operation` in a task registered under `id`, and waits for it.
  ///
  /// - Returns: `false` if the store is gone and `operation` did not run.
  func runCancellable(
    id: EffectID, cancelInFlight: Bool, _ operation: @escaping @Sendable () async -> Void
  ) async -> Bool
}

extension EffectRuntime: EffectRuntimeControls {}

/// A weak reference to an effect runtime: ``EffectActivity`` holds one to reach the runtime
/// that owns it.
final class WeakEffectRuntime: Sendable {
  private struct Box {
    weak var runtime: (any EffectRuntimeControls)?
  }

  private let box = Locked(Box())

  init() {}

  /// The runtime, while it exists.
  var value: (any EffectRuntimeControls)? {
    box.withLock { $0.runtime }
  }

  /// Sets the runtime; called once, as the runtime is created.
  func set(_ runtime: any EffectRuntimeControls) {
    box.withLock { $0.runtime = runtime }
  }
}
