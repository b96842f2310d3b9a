import Testing

@testable import Unidirectional

// The effect runtime's state machine, driven directly: no store, no effect. Placeholder tasks
// that do nothing stand for effect tasks; what it returns is what `EffectRuntime` would do
// after unlocking.

/// The state machine under test: actions are `Int`s.
private typealias Machine = EffectRuntimeStateMachine<Int>

/// Placeholder tasks by name: tasks that do nothing, standing for effect tasks.
private final class Placeholders {
  private var byName: [String: Task<Void, Never>] = [:]

  /// The task named `name`, made the first time it is asked for.
  subscript(name: String) -> Task<Void, Never> {
    if let task = byName[name] { return task }
    let task = Task<Void, Never> {}
    byName[name] = task
    return task
  }

  /// The names of `tasks`.
  func names(_ tasks: [Task<Void, Never>]) -> Set<String> {
    Set(tasks.compactMap { task in byName.first { $0.value == task }?.key })
  }

  /// Whether any of these tasks was cancelled.
  var anyCancelled: Bool { byName.values.contains { $0.isCancelled } }
}

/// A navigation child's cancellation id.
private struct ChildID: ChildEffectsID {
  let number: Int
}

/// A root state whose one child is present or gone.
private struct Root {
  var isChildPresent = true
}

extension Machine {
  /// Numbers and files `task` under `cancelIDs`, as `EffectRuntime.spawn` does.
  @discardableResult
  fileprivate mutating func start(
    _ task: Task<Void, Never>, under cancelIDs: [EffectID] = []
  ) -> UInt64? {
    guard case .start(let taskID) = startTask() else { return nil }
    taskStarted(task, taskID: taskID, cancelIDs: cancelIDs)
    return taskID
  }

  /// The watches' verdict on `root`.
  fileprivate mutating func check(_ root: Root) -> [ChildWatch.Cancellation] {
    withUnsafePointer(to: root) { checkWatches(UnsafeRawPointer($0)) }
  }
}

/// The action an effect sends, if it is a `.send`.
private func sent(_ effect: Effect<Int>) -> Int? {
  guard case .send(let action) = effect.operation else { return nil }
  return action
}

/// The action the effect waiting in a throttle window sends, if one waits.
private func waiting(_ window: Machine.ThrottleWindow?) -> Int? {
  guard case .waiting(let effect) = window else { return nil }
  return sent(effect)
}

/// The ids a check says to cancel.
private func cancelledIDs(_ cancellations: [ChildWatch.Cancellation]) -> [EffectID] {
  cancellations.compactMap {
    guard case .id(let id) = $0 else { return nil }
    return id
  }
}

@Suite struct EffectRuntimeStateMachineTests {
  let a = EffectID("a")
  let b = EffectID("b")

  @Test func startNumbersTasksInOrderAndTracksThem() {
    var machine = Machine()
    let tasks = Placeholders()
    #expect(machine.startTask() == .start(taskID: 0))
    #expect(machine.startTask() == .start(taskID: 1))
    machine.taskStarted(tasks["second"], taskID: 1, cancelIDs: [])
    #expect(machine.runningCount == 1)
    #expect(machine.task(1) == tasks["second"])
    #expect(machine.task(0) == nil)
  }

  @Test func cancelByIDReturnsExactlyTheTasksStartedUnderIt() {
    var machine = Machine()
    let tasks = Placeholders()
    machine.start(tasks["A"], under: [a])
    machine.start(tasks["AB"], under: [a, b])
    machine.start(tasks["B"], under: [b])
    machine.start(tasks["none"])
    #expect(tasks.names(machine.cancel(id: a).tasks) == ["A", "AB"])
    // Cancelling forgets the id, not the tasks: they run until they end.
    #expect(machine.cancel(id: a).tasks.isEmpty)
    #expect(machine.runningCount == 4)
    // A task cancelled under one id is still found under its others until it ends.
    #expect(tasks.names(machine.cancel(id: b).tasks) == ["AB", "B"])
    #expect(machine.cancel(id: EffectID("unknown")).tasks.isEmpty)
    // The runtime cancels what it is given; the state machine only hands tasks back.
    #expect(!tasks.anyCancelled)
  }

  @Test func anEndedTaskLeavesEveryID() throws {
    var machine = Machine()
    let tasks = Placeholders()
    let both = machine.start(tasks["AB"], under: [a, b])
    machine.start(tasks["B"], under: [b])
    machine.taskFinished(try #require(both), cancelIDs: [a, b])
    #expect(machine.runningCount == 1)
    #expect(machine.cancel(id: a).tasks.isEmpty)
    #expect(tasks.names(machine.cancel(id: b).tasks) == ["B"])
  }

  @Test func cancelInFlightCancelsOnlyTheTasksBeforeIt() {
    // `.cancellable(id:cancelInFlight: true)`: the runtime cancels the id, then starts.
    var machine = Machine()
    let tasks = Placeholders()
    machine.start(tasks["first"], under: [a])
    #expect(tasks.names(machine.cancel(id: a).tasks) == ["first"])
    machine.start(tasks["second"], under: [a])
    #expect(tasks.names(machine.cancel(id: a).tasks) == ["second"])
  }

  @Test func cancelMatchingReturnsTheTasksOfEveryMatchingID() {
    var machine = Machine()
    let tasks = Placeholders()
    machine.start(tasks["A"], under: [a])
    machine.start(tasks["B"], under: [b])
    machine.start(tasks["C"], under: [EffectID("c")])
    let action = machine.cancel { ($0 as? String).map { $0 != "c" } ?? false }
    #expect(tasks.names(action.tasks) == ["A", "B"])
    #expect(action.endedChildren.isEmpty)
    #expect(tasks.names(machine.cancel(id: EffectID("c")).tasks) == ["C"])
  }

  @Test func cancelAllReturnsEveryTaskAndForgetsEveryID() {
    var machine = Machine()
    let tasks = Placeholders()
    machine.start(tasks["A"], under: [a])
    machine.start(tasks["none"])
    #expect(tasks.names(machine.cancelAll()) == ["A", "none"])
    #expect(machine.cancel(id: a).tasks.isEmpty)
    #expect(machine.runningCount == 2)
    #expect(machine.startTask() == .start(taskID: 2))
  }

  @Test func shutDownReturnsTheRunningTasksAndRefusesLaterStarts() throws {
    var machine = Machine()
    let tasks = Placeholders()
    let first = machine.start(tasks["A"], under: [a])
    machine.start(tasks["B"])
    #expect(tasks.names(machine.shutDown()) == ["A", "B"])
    #expect(!tasks.anyCancelled)
    #expect(machine.phase == .shutDown)
    #expect(machine.startTask() == .refuse)
    #expect(machine.cancel(id: a).tasks.isEmpty)
    // The tasks still running end as usual.
    #expect(machine.runningCount == 2)
    machine.taskFinished(try #require(first), cancelIDs: [a])
    #expect(machine.runningCount == 1)
  }

  @Test func throttleRunsTheFirstAtOnceAndTheLatestAtTheWindowsEnd() {
    var machine = Machine()
    #expect(machine.throttle(.send(1), id: a, latest: true) == .runAndOpenWindow)
    guard case .open = machine.throttleWindow(a) else {
      Issue.record("expected an open window")
      return
    }
    #expect(machine.throttle(.send(2), id: a, latest: true) == Machine.ThrottleAction.none)
    #expect(machine.throttle(.send(3), id: a, latest: true) == Machine.ThrottleAction.none)
    #expect(waiting(machine.throttleWindow(a)) == 3)
    // Another id has its own window.
    #expect(machine.throttle(.send(4), id: b, latest: true) == .runAndOpenWindow)

    guard case .runAndWaitAgain(let next) = machine.throttleWindowEnded(a) else {
      Issue.record("expected the waiting effect to run")
      return
    }
    #expect(sent(next) == 3)
    guard case .open = machine.throttleWindow(a) else {
      Issue.record("expected the window to stay open")
      return
    }
    guard case .finish = machine.throttleWindowEnded(a) else {
      Issue.record("expected the window to close")
      return
    }
    #expect(machine.throttleWindow(a) == nil)
    #expect(machine.throttle(.send(5), id: a, latest: true) == .runAndOpenWindow)
  }

  @Test func throttleKeepingTheFirstIgnoresLaterEffects() {
    var machine = Machine()
    #expect(machine.throttle(.send(1), id: a, latest: false) == .runAndOpenWindow)
    #expect(machine.throttle(.send(2), id: a, latest: false) == Machine.ThrottleAction.none)
    #expect(machine.throttle(.send(3), id: a, latest: false) == Machine.ThrottleAction.none)
    #expect(waiting(machine.throttleWindow(a)) == 2)
  }

  @Test func aCancelledThrottleWindowDropsTheWaitingEffect() {
    var machine = Machine()
    _ = machine.throttle(.send(1), id: a, latest: true)
    _ = machine.throttle(.send(2), id: a, latest: true)
    machine.throttleWindowCancelled(a)
    #expect(machine.throttleWindow(a) == nil)
    #expect(machine.throttle(.send(3), id: a, latest: true) == .runAndOpenWindow)
  }

  @Test func aChildIDHasOneLifeUntilItIsCancelled() {
    var machine = Machine()
    let tasks = Placeholders()
    let child = EffectID(ChildID(number: 1))
    let outer = ChildLifetime(releases: ChildLifetime.ReleaseCounter())
    let lives = machine.childLifetimes(cancelIDs: [a, child], inheriting: [outer])
    // The inherited lives first, then one per child id; a plain id has none.
    #expect(lives.count == 2)
    #expect(lives.first === outer)
    let again = machine.childLifetimes(cancelIDs: [child], inheriting: [])
    #expect(again.count == 1)
    #expect(again.first === lives.last)

    machine.start(tasks["child task"], under: [child])
    let action = machine.cancel(id: child)
    #expect(tasks.names(action.tasks) == ["child task"])
    #expect(action.endedChild === lives.last)
    // A later child with an equal id is a new child.
    let next = machine.childLifetimes(cancelIDs: [child], inheriting: [])
    #expect(next.first !== lives.last)
    #expect(machine.cancel(id: a).endedChild == nil)
  }

  @Test func cancelMatchingEndsTheMatchingChildren() {
    var machine = Machine()
    let tasks = Placeholders()
    let one = EffectID(ChildID(number: 1))
    let two = EffectID(ChildID(number: 2))
    let lives = machine.childLifetimes(cancelIDs: [one, two], inheriting: [])
    machine.start(tasks["one"], under: [one])
    let action = machine.cancel { ($0 as? ChildID)?.number == 1 }
    #expect(tasks.names(action.tasks) == ["one"])
    #expect(action.endedChildren.count == 1)
    #expect(action.endedChildren.first === lives.first)
    #expect(machine.bookkeeping.lifetimes == 1)
    withExtendedLifetime(lives) {}
  }

  @Test func aWatchIsKeptOnceAndForgottenWhenItsChildIsGone() {
    var machine = Machine()
    let child = EffectID(ChildID(number: 1))
    let lives = machine.childLifetimes(cancelIDs: [child], inheriting: [])
    let watch = ChildWatch(key: child, state: Root.self, whenGone: [.id(child)]) { root in
      root.pointee.isChildPresent ? .unchanged : .gone([.id(child)])
    }
    machine.keep(watch)
    machine.keep(watch)
    #expect(machine.watchCount == 1)
    #expect(machine.check(Root(isChildPresent: true)).isEmpty)
    #expect(machine.watchCount == 1)
    #expect(cancelledIDs(machine.check(Root(isChildPresent: false))) == [child])
    #expect(machine.watchCount == 0)
    #expect(machine.check(Root(isChildPresent: false)).isEmpty)
    withExtendedLifetime(lives) {}
  }

  @Test func aWatchWhoseChildCanNoLongerActIsForgotten() {
    var machine = Machine()
    let child = EffectID(ChildID(number: 1))
    do {
      let lives = machine.childLifetimes(cancelIDs: [child], inheriting: [])
      machine.keep(
        ChildWatch(key: child, state: Root.self, whenGone: [.id(child)]) { _ in
          .gone([.id(child)])
        })
      withExtendedLifetime(lives) {
        #expect(machine.bookkeeping.watches == 1)
        #expect(machine.bookkeeping.lifetimes == 1)
      }
    }
    // Nothing holds the child's life any more: nothing can act for it, so nothing is left to
    // cancel, and the check forgets the watch without asking it.
    #expect(machine.check(Root()).isEmpty)
    #expect(machine.bookkeeping.watches == 0)
    #expect(machine.bookkeeping.lifetimes == 0)
  }

  @Test func shutDownForgetsTheWatches() {
    var machine = Machine()
    let child = EffectID(ChildID(number: 1))
    machine.keep(ChildWatch(key: child, state: Root.self, whenGone: []) { _ in .unchanged })
    #expect(machine.watchCount == 1)
    _ = machine.shutDown()
    #expect(machine.watchCount == 0)
  }
}
