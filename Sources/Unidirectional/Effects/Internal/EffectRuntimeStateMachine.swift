import Synchronization

/// The state of one store's effect runtime, as a value: which effect tasks run and under which
/// cancellation ids, which throttle windows are open, the lives and watches of the navigation
/// children with effects, and whether the store is gone.
///
/// `EffectRuntime` keeps it behind its lock. Each `mutating` method changes the state and
/// returns what the runtime must do once it has unlocked: cancel tasks, end children's lives,
/// run an effect, wait out a throttle window. The state machine only stores tasks; it never
/// starts, cancels or awaits one, so that tests drive it with placeholder tasks.
///
/// The tasks are `Task<Void, Never>`, not a generic parameter: the runtime is generic over its
/// action type, so it calls this type's methods unspecialized, and a dictionary of a generic
/// task type cost about 2,000 instructions per task started and ended (E1 +16%). The methods
/// every effect task goes through are `@inline(__always)`: a call to a method of a generic
/// struct fetches the struct's type metadata (about 330 instructions), twice per task.
///
/// Phases (`phase`):
/// - `running`: effects start as tasks. A task is tracked from `startTask` (which numbers it)
///   and `taskStarted` (which files it under its cancellation ids) until `taskFinished`.
/// - `shutDown`: the store is gone (`shutDown()`): the tasks running then were handed back to be
///   cancelled, the watches forgotten, and new tasks are refused; the tasks still running are
///   tracked until they end. Final.
///
/// A throttle id's window (`ThrottleWindow`) is closed (not kept), open with nothing waiting
/// (`open`), or open with an effect waiting for its end (`waiting`).
struct EffectRuntimeStateMachine<Action: Sendable> {
  /// Whether the runtime still starts effects.
  enum Phase: Equatable {
    /// The store exists: new effect tasks start. Goes to `shutDown` (`shutDown()`).
    case running
    /// The store is gone: new effect tasks are refused. Final.
    case shutDown
  }

  /// An open throttle window of one id. A closed window is not kept: the next effect throttled
  /// under its id runs at once and opens a window (`throttle(_:id:latest:)`).
  enum ThrottleWindow {
    /// Open, nothing waits: an effect throttled now waits for the window's end. Goes to
    /// `waiting` (`throttle`), or closes when the window ends or its id is cancelled.
    case open
    /// Open, and `effect` waits to run when the window ends (the latest throttled effect, or the
    /// first one if the throttle keeps the first). Goes back to `open` when the window ends and
    /// the effect runs, or closes when its id is cancelled (the effect is dropped).
    case waiting(Effect<Action>)
  }

  /// What to do with a new effect task.
  enum StartTaskAction: Equatable {
    /// Create the task with this number, still under the lock, then file it (`taskStarted`).
    case start(taskID: UInt64)
    /// Create nothing: the store is gone.
    case refuse
  }

  /// What to do with an effect throttled under an id.
  enum ThrottleAction: Equatable {
    /// No window was open, and one is now: run the effect at once, and start the task that
    /// waits out the window (`throttleWindowEnded` at its end).
    case runAndOpenWindow
    /// A window is open: the effect waits for its end, or was dropped (the throttle keeps the
    /// first effect, and one waits). Nothing to do now.
    case none
  }

  /// What the task waiting out a throttle window does when the window's interval is over.
  enum ThrottleWindowEndAction {
    /// `effect` waited: run it, and wait out another window (the window stays open).
    case runAndWaitAgain(Effect<Action>)
    /// Nothing waited: the window is closed; the window's task ends.
    case finish
  }

  /// What to do after `cancel(id:)`, once unlocked.
  struct CancelAction {
    /// Cancel these tasks (outside the lock: cancellation handlers run synchronously and may
    /// call back into the runtime).
    var tasks: [Task<Void, Never>]
    /// Then end this child's life: the id was a child's, and the child is gone. After its tasks
    /// are cancelled (see `ChildLifetime.end()`).
    var endedChild: ChildLifetime?
  }

  /// What to do after `cancel(where:)`, once unlocked.
  struct CancelMatchingAction {
    /// Cancel these tasks.
    var tasks: [Task<Void, Never>]
    /// Then end these children's lives.
    var endedChildren: [ChildLifetime]
  }

  /// A child's life, held weakly (see `lifetimes`).
  private struct WeakLifetime {
    weak var lifetime: ChildLifetime?
  }

  /// Whether the runtime still starts effects.
  private(set) var phase = Phase.running
  private var nextTaskID: UInt64 = 0
  /// The tasks running, by number.
  private var running: [UInt64: Task<Void, Never>] = [:]
  /// The numbers of the running tasks started under each cancellation id.
  private var tasksByCancelID: [EffectID: Set<UInt64>] = [:]
  /// The open throttle windows, by id.
  private var throttleWindows: [EffectID: ThrottleWindow] = [:]
  /// The lives of the navigation children whose ids tasks were started under, until the id is
  /// cancelled (the child is gone) or nothing holds the life any more. Held weakly: a child's
  /// tasks, and the `Send`s and queued actions they made, hold it; once they are all gone,
  /// nothing can act for the child (see `ChildLifetime`).
  private var lifetimes: [EffectID: WeakLifetime] = [:]
  /// How to tell, after an action, which navigation children with effects are gone (see
  /// `ChildWatch`), by key.
  private var watches = WatchSet()
  /// Counts the lives made here that were released (see `pruneWatches`).
  private let releases = ChildLifetime.ReleaseCounter()
  /// `releases.count` when the watches were last pruned.
  private var releasesPruned = 0

  // MARK: Tasks

  /// The number of tasks running.
  @inline(__always)
  var runningCount: Int { running.count }

  /// The running task numbered `taskID`, if it is still running.
  @inline(__always)
  func task(_ taskID: UInt64) -> Task<Void, Never>? {
    running[taskID]
  }

  /// Numbers a new effect task, unless the store is gone.
  @inline(__always)
  mutating func startTask() -> StartTaskAction {
    guard phase == .running else { return .refuse }
    defer { nextTaskID += 1 }
    return .start(taskID: nextTaskID)
  }

  /// Tracks `task`, numbered by `startTask()`, under every id in `cancelIDs`, until
  /// `taskFinished`.
  @inline(__always)
  mutating func taskStarted(_ task: Task<Void, Never>, taskID: UInt64, cancelIDs: [EffectID]) {
    running[taskID] = task
    for id in cancelIDs { tasksByCancelID[id, default: []].insert(taskID) }
  }

  /// Forgets the task numbered `taskID`, under every id in `cancelIDs`: it ended.
  @inline(__always)
  mutating func taskFinished(_ taskID: UInt64, cancelIDs: [EffectID]) {
    running[taskID] = nil
    for cancelID in cancelIDs {
      guard var ids = tasksByCancelID[cancelID] else { continue }
      ids.remove(taskID)
      tasksByCancelID[cancelID] = ids.isEmpty ? nil : ids
    }
  }

  // MARK: Navigation children's lives

  /// The lives of the children a task or a `.send` under `cancelIDs` acts for: `inherited` (those
  /// of the effect task it is started from), then one per child id, made if it has none.
  @inline(__always)
  mutating func childLifetimes(
    cancelIDs: [EffectID], inheriting inherited: [ChildLifetime]
  ) -> [ChildLifetime] {
    var children = inherited
    for id in cancelIDs where id.isChildEffects {
      if let lifetime = lifetimes[id]?.lifetime {
        children.append(lifetime)
      } else {
        let lifetime = ChildLifetime(releases: releases)
        lifetimes[id] = WeakLifetime(lifetime: lifetime)
        children.append(lifetime)
      }
    }
    return children
  }

  // MARK: Throttling

  /// The open window of throttle id `id`, or `nil` if it is closed.
  func throttleWindow(_ id: EffectID) -> ThrottleWindow? {
    throttleWindows[id]
  }

  /// Opens a window for `id` if none is open (run `effect` now); otherwise keeps `effect` to run
  /// when the window ends if it is the latest one (`latest`) or nothing waits.
  mutating func throttle(_ effect: Effect<Action>, id: EffectID, latest: Bool) -> ThrottleAction {
    switch throttleWindows[id] {
    case nil:
      throttleWindows[id] = .open
      return .runAndOpenWindow
    case .open:
      throttleWindows[id] = .waiting(effect)
    case .waiting:
      if latest { throttleWindows[id] = .waiting(effect) }
    }
    return .none
  }

  /// The window of `id` is over: runs the effect that waited, if any (the window stays open),
  /// or closes it.
  mutating func throttleWindowEnded(_ id: EffectID) -> ThrottleWindowEndAction {
    guard case .waiting(let effect) = throttleWindows[id] else {
      throttleWindows[id] = nil
      return .finish
    }
    throttleWindows[id] = .open
    return .runAndWaitAgain(effect)
  }

  /// The task waiting out the window of `id` was cancelled: closes it, dropping what waited.
  mutating func throttleWindowCancelled(_ id: EffectID) {
    throttleWindows[id] = nil
  }

  // MARK: Cancelling

  /// Forgets the tasks started under `id`; if `id` is a child's, the child is gone.
  mutating func cancel(id: EffectID) -> CancelAction {
    let taskIDs = tasksByCancelID.removeValue(forKey: id) ?? []
    let endedChild = id.isChildEffects ? lifetimes.removeValue(forKey: id)?.lifetime : nil
    return CancelAction(tasks: taskIDs.compactMap { running[$0] }, endedChild: endedChild)
  }

  /// Forgets the tasks started under the ids that satisfy `predicate`; the children whose ids
  /// satisfy it are gone.
  mutating func cancel(
    where predicate: (any Hashable & Sendable) -> Bool
  ) -> CancelMatchingAction {
    let ids = tasksByCancelID.keys.filter { predicate($0.base) }
    let tasks = ids.flatMap { id in
      (tasksByCancelID.removeValue(forKey: id) ?? []).compactMap { running[$0] }
    }
    // Only child ids have lives, and `forEach`'s predicates match child ids only.
    let ended = lifetimes.keys.filter { predicate($0.base) }
    return CancelMatchingAction(
      tasks: tasks, endedChildren: ended.compactMap { lifetimes.removeValue(forKey: $0)?.lifetime })
  }

  /// Forgets every cancellation id, and returns every running task, to be cancelled.
  ///
  /// The tasks stay tracked until they end. Throttle windows close as their tasks see the
  /// cancellation; children's lives are left as they are.
  mutating func cancelAll() -> [Task<Void, Never>] {
    tasksByCancelID = [:]
    return Array(running.values)
  }

  /// The store is gone: refuses new tasks from now on, forgets every cancellation id and watch,
  /// and returns every running task, to be cancelled.
  mutating func shutDown() -> [Task<Void, Never>] {
    phase = .shutDown
    watches.removeAll()
    return cancelAll()
  }

  // MARK: Watching navigation children (see ChildWatch)

  /// The number of watches kept.
  var watchCount: Int { watches.count }

  /// The number of watches kept, and of child lives still held.
  var bookkeeping: (watches: Int, lifetimes: Int) {
    (watches.count, lifetimes.values.count { $0.lifetime != nil })
  }

  /// Keeps `watch` until it says its child is gone, unless one with its key is kept already
  /// (that one knows the state since it was kept).
  mutating func keep(_ watch: ChildWatch) {
    _ = watches.insert(watch)
  }

  /// After an action: asks every watch about the committed root state at `state`, forgets the
  /// watches whose children are gone, and returns their effects, to be cancelled.
  /// O(watches); a watch of a `forEach` looks at the rows only if they may have lost some.
  mutating func checkWatches(_ state: UnsafeRawPointer) -> [ChildWatch.Cancellation] {
    pruneWatches()
    return watches.check(state)
  }

  /// Forgets the lives nothing holds any more, and the watches that cover none of the lives
  /// left: nothing can act for their children, so nothing is left to end (a row whose child ran
  /// an effect that ended costs nothing after later actions). Runs only after lives were
  /// released: O(watches + lives) then, amortized over the releases.
  private mutating func pruneWatches() {
    let released = releases.count.load(ordering: .acquiring)
    guard released != releasesPruned else { return }
    releasesPruned = released
    lifetimes = lifetimes.filter { $0.value.lifetime != nil }
    let live = lifetimes
    watches.removeAll { watch in
      !watch.whenGone.contains { cancellation in
        switch cancellation {
        case .id(let id): live[id] != nil
        case .matching(let predicate): live.keys.contains { predicate($0.base) }
        }
      }
    }
  }
}
