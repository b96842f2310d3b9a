/// What the effect tasks of one store share: the runtime that started them, the executor they
/// prefer, and a count of them, so that ``Store/waitForEffects()`` knows when they have ended.
///
/// Each effect task runs with its store's activity and its origin as ``current`` (a task-local,
/// which child tasks inherit), which is how code inside an effect finds its store's runtime
/// (`Task.cancel(id:)`, `withTaskCancellation`), how a ``TestClock`` finds the ``TestExecutor``
/// of a sleeper, and how a `Send` knows which effect task an action came from.
final class EffectActivity: Sendable {
  /// The activity an effect task belongs to, and which effect task it runs for.
  struct Context: Sendable {
    let activity: EffectActivity
    /// The effect task of the runtime the current task runs for (itself, or the task whose
    /// `.merge` it runs a part of).
    let origin: EffectOrigin
  }

  /// The context of the effect task the current task is, or was created by.
  @TaskLocal static var current: Context?

  /// The effect runtime whose tasks run here, for effect code that acts on its store's effects
  /// (see `EffectRuntime+TaskCancellation.swift`). Weak: the runtime owns this activity.
  let runtime = WeakEffectRuntime()

  /// The test executor the store's effects run on, if it was given one: a test clock drains it
  /// after waking one of its sleepers.
  let testExecutor: TestExecutor?

  /// Effect tasks started and not yet ended.
  private let tasks = Locked(0)
  private let changes = ChangeSignal()

  init(testExecutor: TestExecutor?) {
    self.testExecutor = testExecutor
  }

  /// Runs `body` as an effect task of this activity, for the effect task `origin` (which it is
  /// given).
  func run(origin: EffectOrigin, _ body: (EffectOrigin) async -> Void) async {
    await EffectActivity.$current.withValue(Context(activity: self, origin: origin)) {
      await body(origin)
    }
  }

  /// The effect task the current task runs for, if it runs effect code of this activity.
  var currentOrigin: EffectOrigin? {
    guard let context = EffectActivity.current, context.activity === self else { return nil }
    return context.origin
  }

  /// The number of effect tasks that have not ended.
  var taskCount: Int { tasks.withLock { $0 } }

  /// An effect task was created.
  func taskBegan() {
    tasks.withLock { $0 += 1 }
  }

  /// An effect task ended.
  func taskEnded() {
    tasks.withLock { $0 -= 1 }
    changes.signal()
    testExecutor?.wakeWaiters()
  }

  /// Waits until every effect task has ended, however long that takes. With a test executor,
  /// drains it meanwhile (nothing else would run the tasks).
  func waitUntilDone() async {
    while true {
      if let testExecutor {
        await testExecutor.drainUntilIdle()
        // Read before the checks, so that a change after them ends the wait at once.
        let seen = testExecutor.generation
        if taskCount <= 0 { return }
        if testExecutor.hasQueuedJobs { continue }
        // Something outside the executor will queue a job, or end a task elsewhere.
        await testExecutor.waitForChange(after: seen)
        continue
      }
      let seen = changes.generation
      if taskCount <= 0 { return }
      // The timeout only bounds one wait on the signal: the loop asks again.
      _ = await changes.wait(past: seen, timeout: .seconds(60))
    }
  }
}

/// The effect task an action was sent from, bound into the `Send` its effect was given when the
/// task started (not read from a task-local when the `Send` is called), so that the store can
/// drop the action if that task was cancelled while the action waited in the queue (see
/// `Store.drainPending`), or if the child it ran for is gone.
@usableFromInline
struct EffectOrigin: Sendable {
  /// The task's number in its `EffectRuntime`.
  @usableFromInline let task: UInt64
  /// The lives of the navigation children the task runs for (the children whose ids it was
  /// started under, and those of the task that started it), innermost last.
  @usableFromInline let children: [ChildLifetime]
  /// Where the task's effect was created (a `.run`'s call site), if known, for reports.
  @usableFromInline let site: EffectSite?

  /// Whether a child the task runs for is gone.
  var childIsGone: Bool {
    children.contains { $0.hasEnded }
  }
}

/// Where an effect was created.
@usableFromInline
struct EffectSite: Sendable {
  @usableFromInline let fileID: String
  @usableFromInline let line: UInt
}
