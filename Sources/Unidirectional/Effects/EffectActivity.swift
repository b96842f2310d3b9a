/// Counts the effect tasks of one store that are doing work, so that a ``TestClock`` (and a test
/// store) can wait for them to be quiet before moving time on.
///
/// A task is *counted* while it runs effect code: every task the ``EffectRuntime`` starts, and
/// every child it runs the parts of a `.merge` in. A counted task is *active* unless it is
/// parked: asleep on a test clock, or waiting for counted tasks it started (see ``Join``). The
/// store's effects are *quiet* when no counted task is active: everything they will do next
/// waits for the clock, for a test, or for something outside the store.
///
/// A counted task is also *waking* from the moment this activity makes it runnable until it
/// runs: created (until its body begins), woken by a test clock (until its sleep returns), or
/// handed the count of its last child (until its wait for the children returns). A waking task
/// waits for a thread, never for something outside the store, so `waitUntilQuiet` waits for it
/// however busy the cooperative pool is.
///
/// Tasks that effect code creates itself (a task group or `async let` inside a `.run`) are not
/// counted, and their sleeps on a test clock do not park anything: the counted task waiting for
/// them stays active, so the activity reads quiet only after the settle time, as when a counted
/// task waits on something else (an `AsyncStream`, a socket). Slower, never early: counting
/// their sleeps as parking would let the count read quiet while one of them runs. For the same
/// reason a settle window in which the process was busy does not count (see
/// `waitUntilQuiet`).
///
/// Each counted task runs with its store's activity and its own identity as ``current`` (a
/// task-local, which child tasks inherit: hence the identity), which is how a test clock finds
/// the activity of a sleeper and whether the sleeper is counted.
final class EffectActivity: Sendable {
  /// The activity a counted task belongs to, and which task that is.
  struct Context: Sendable {
    let activity: EffectActivity
    /// The counted task, by the hash of its `UnsafeCurrentTask`.
    let task: Int
    /// The effect task of the runtime the counted task runs for (itself, or the task whose
    /// `.merge` it runs a part of).
    let origin: EffectOrigin

    /// Whether the current task is the counted task (not a child task it created).
    var isCurrentTask: Bool {
      withUnsafeCurrentTask { $0?.hashValue } == task
    }
  }

  /// The context of the counted task the current task is, or was created by.
  @TaskLocal static var current: Context?

  /// Runs `body` as a counted task of this activity, for the effect task `origin`: the body of
  /// a task counted by `taskBegan()`, which is no longer waking.
  func runCounted(origin: EffectOrigin, _ body: () async -> Void) async {
    woke()
    let task = withUnsafeCurrentTask { $0?.hashValue } ?? 0
    await EffectActivity.$current.withValue(
      Context(activity: self, task: task, origin: origin), operation: body)
  }

  /// The effect task the current task runs for, if it runs effect code of this activity.
  var currentOrigin: EffectOrigin? {
    guard let context = EffectActivity.current, context.activity === self else { return nil }
    return context.origin
  }

  private struct Counts {
    /// Counted tasks that have not ended.
    var tasks = 0
    /// Counted tasks that are neither parked nor ended (may go below zero for the uncounted
    /// tasks described above, which park without having been counted).
    var active = 0
    /// Counted tasks made runnable here that have not run since (see the type's description).
    var waking = 0
  }

  /// The effect runtime that counts its tasks here, for effect code that acts on its store's
  /// effects (see `EffectRuntime+TaskCancellation.swift`). Weak: the runtime owns this activity.
  let runtime = WeakEffectRuntime()

  private let counts = Locked(Counts())
  private let changes = ChangeSignal()

  init() {}

  /// The number of counted tasks that have not ended.
  var taskCount: Int { counts.withLock { $0.tasks } }

  /// Whether no counted task is active.
  var isQuiet: Bool { counts.withLock { $0.active <= 0 } }

  /// The number of counted tasks made runnable that have not run since.
  var wakingCount: Int { counts.withLock { $0.waking } }

  /// A counted task was created (it starts active, and waking until its body begins).
  func taskBegan() { update(tasks: 1, active: 1, waking: 1) }

  /// A counted task ended (it was active).
  func taskEnded() { update(tasks: -1, active: -1) }

  /// The current task parked (asleep on a test clock, or waiting for counted tasks).
  func parked() { update(tasks: 0, active: -1) }

  /// A parked task was made runnable again; it is waking until it calls `woke()`.
  func resumed() { update(tasks: 0, active: 1, waking: 1) }

  /// A task made runnable by `taskBegan()`, `resumed()` or its last child's end runs again.
  func woke() { update(tasks: 0, active: 0, waking: -1) }

  /// The ending of a child that a waiting parent is active again for, in one step; the parent
  /// is waking until its wait returns.
  private func childEndedResumingParent() { update(tasks: -1, active: 0, waking: 1) }

  private func update(tasks: Int, active: Int, waking: Int = 0) {
    counts.withLock { counts in
      counts.tasks += tasks
      counts.active += active
      counts.waking += waking
    }
    changes.signal()
  }

  /// Counts a task that waits for counted tasks it started (its children) as parked while it
  /// waits, and active again from the moment the last child ends.
  ///
  /// Were the parent counted active again only once it resumes, the activity would read quiet
  /// between the last child's end and that resumption, and a test clock would move on while the
  /// parent is about to run. Here the last child's end hands its count to the parent instead.
  ///
  /// States: children running, parent not waiting → parent waiting (parked; only if a child is
  /// still running) → last child ended (the parent is active: the child's count is its own; and
  /// waking until its wait returns).
  final class Join: Sendable {
    private struct State {
      var running = 0
      var isParentWaiting = false
    }

    private let activity: EffectActivity
    private let state = Locked(State())

    init(_ activity: EffectActivity) {
      self.activity = activity
    }

    /// A child started (counted as a task of the activity).
    func childBegan() {
      state.withLock { $0.running += 1 }
      activity.taskBegan()
    }

    /// A child ended; if it was the last one the parent waits for, the parent is active now.
    func childEnded() {
      let resumesParent = state.withLock { state in
        state.running -= 1
        return state.running == 0 && state.isParentWaiting
      }
      if resumesParent {
        activity.childEndedResumingParent()
      } else {
        activity.taskEnded()
      }
    }

    /// Runs `body`, which waits for the children, with the current task parked while any child
    /// runs.
    func wait(_ body: () async -> Void) async {
      let parks = state.withLock { state -> Bool in
        guard state.running > 0 else { return false }
        state.isParentWaiting = true
        return true
      }
      if parks { activity.parked() }
      await body()
      // The last child's end made this task waking (`childEnded`): it runs again.
      if parks { activity.woke() }
    }
  }

  // MARK: Waiting

  /// Returns once no counted task is active, or once nothing has changed for `settle` while the
  /// process was idle and no counted task was waking (a task waits on something other than a
  /// test clock), whichever comes first.
  ///
  /// A settle window does not count while a counted task is waking (it waits for a thread,
  /// however long the cooperative pool keeps it waiting), or while the process was busy (see
  /// `ProcessorLoad`): the active task may be computing, or ready to run and waiting for a
  /// processor, and it would send its next action after the clock had moved on. Windows are
  /// waited out until `wakingSettleLimit` or `busySettleLimit` has passed without a change
  /// (checked at the end of each window); then the wait ends as if the process had been idle.
  func waitUntilQuiet(settle: Duration = EffectActivity.settleTime) async {
    // Set while nothing changes and a window did not count: when that began.
    var unchangedSince: ContinuousClock.Instant?
    let busyLimit = EffectActivity.busySettleLimit
    let windowReading = EffectActivity.windowReading
    var seen = changes.generation
    while true {
      if counts.withLock({ $0.active <= 0 }) { return }
      let start = ProcessorLoad.sample()
      let signalled = await changes.wait(past: seen, timeout: settle)
      // A change that came after the timeout counts too: it restarts the budgets.
      let generation = changes.generation
      if signalled || generation != seen {
        seen = generation
        unchangedSince = nil
        continue
      }
      let since = unchangedSince ?? start.wall
      let unchanged = since.duration(to: .now)
      if counts.withLock({ $0.waking > 0 }) {
        guard unchanged < EffectActivity.wakingSettleLimit else { return }
      } else {
        let wasBusy = windowReading == .alwaysBusy || ProcessorLoad.wasBusy(since: start)
        guard wasBusy, unchanged < busyLimit else { return }
      }
      unchangedSince = since
    }
  }

  /// Returns once every counted task has ended, once none is active (each left is asleep on a
  /// test clock, so only a test can wake it), or at `deadline`.
  ///
  /// - Returns: Whether every counted task has ended.
  func waitUntilDoneOrAsleep(deadline: ContinuousClock.Instant) async -> Bool {
    while true {
      let remaining = ContinuousClock.now.duration(to: deadline)
      if remaining <= .zero { return taskCount == 0 }
      await wait(settle: remaining) { $0.tasks <= 0 || $0.active <= 0 }
      let counts = counts.withLock { $0 }
      if counts.tasks <= 0 { return true }
      if counts.active <= 0 { return false }
    }
  }

  /// Waits until every counted task has ended, however long that takes.
  func waitUntilDone() async {
    while counts.withLock({ $0.tasks }) > 0 {
      // The settle time only bounds one wait on the signal: the loop asks again.
      await wait(settle: .seconds(60)) { $0.tasks <= 0 }
    }
  }

  /// How long `waitUntilQuiet` waits without any change, in an idle process, before it decides
  /// that the active tasks are waiting on something outside the store.
  static let settleTime = Duration.milliseconds(50)

  /// How long `waitUntilQuiet` goes on waiting without any change while the process is busy.
  ///
  /// Far longer than a thread waits for a processor on a loaded machine, yet bounded: an effect
  /// that waits outside the store while other tests keep the process busy costs a test step
  /// about this much, not the 50 ms it costs in an idle process.
  ///
  /// A task-local, read by the waiting task, so that a test of this wait can set a limit that
  /// no scheduling delay reaches, or one it reaches quickly.
  @TaskLocal static var busySettleLimit = Duration.seconds(1)

  /// How `waitUntilQuiet` tells whether a settle window without change was busy.
  enum WindowReading: Sendable {
    /// From the process's processor time over the window (`ProcessorLoad`).
    case processorTime
    /// Every window is busy: for tests of the busy rules, whose result must not depend on
    /// other processes, which can hold a computing thread off the processors for a whole
    /// window.
    case alwaysBusy
  }

  /// How `waitUntilQuiet` tells whether a window was busy. A task-local, read by the waiting
  /// task, like `busySettleLimit`. (An enumeration, not a closure: the release build of a
  /// test that bound a closure-typed task-local crashed in `swift_task_localValuePush`.)
  @TaskLocal static var windowReading = WindowReading.processorTime

  /// How long `waitUntilQuiet` goes on waiting without any change while a counted task is
  /// waking: a task made runnable waits only for a thread, so this is a safeguard against a
  /// miscounted task, not a settle time. It is far longer than a loaded pool keeps a task
  /// waiting: with the whole suite starting at once and another process computing, a test's
  /// new tasks waited up to 38 s for a thread.
  static let wakingSettleLimit = Duration.seconds(60)

  /// Waits until `isDone` holds, or until nothing changes for `settle`.
  private func wait(settle: Duration, until isDone: (Counts) -> Bool) async {
    while true {
      let seen = changes.generation
      if isDone(counts.withLock { $0 }) { return }
      guard await changes.wait(past: seen, timeout: settle) else { return }
    }
  }
}

/// The effect task an action was sent from, so that the store can drop the action if that task
/// was cancelled while the action waited in the queue (see `Store.drainPending`).
@usableFromInline
struct EffectOrigin: Sendable {
  /// The task's number in its `EffectRuntime`.
  @usableFromInline let task: UInt64
  /// The task registered under a `ChildEffectsID` this task runs for (itself, or the task whose
  /// nested `.cancellable` started it), if any: if that task was cancelled through the child's
  /// id, the child is gone and a dropped action is reported.
  @usableFromInline let childTask: UInt64?
  /// Where the task's effect was created (a `.run`'s call site), if known, for reports.
  @usableFromInline let site: EffectSite?
}

/// Where an effect was created.
@usableFromInline
struct EffectSite: Sendable {
  @usableFromInline let fileID: String
  @usableFromInline let line: UInt
}
