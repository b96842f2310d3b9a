import Dispatch
import Testing
import Unidirectional
import UnidirectionalTestSupport

/// The test executor: jobs run only when drained, in the order queued; and the toolchain's
/// task executor preference (SE-0417) sends the structured work of an effect to it. The last
/// part pins this toolchain's behaviour, so that a change is caught at once.
@Suite struct TestExecutorTests {
  let executor = TestExecutor()

  @Test func jobsRunOnlyWhenDrainedInTheOrderQueued() async {
    let log = Log<Int>()
    let tasks = (1...3).map { number in
      Task(executorPreference: executor) { log.append(number) }
    }
    #expect(log.values.isEmpty)
    #expect(executor.hasQueuedJobs && !executor.isIdle)
    let ran = executor.drain()
    #expect(ran == 3)
    #expect(log.values == [1, 2, 3])
    #expect(executor.isIdle)
    #expect(executor.jobsRun == 3)
    for task in tasks { await task.value }
  }

  @Test func aDrainRunsTheJobsThatJobsQueue() async {
    let log = Log<String>()
    let task = Task(executorPreference: executor) {
      log.append("a")
      await Task.yield()
      log.append("b")
      await withTaskGroup(of: Void.self) { group in
        group.addTask { log.append("child") }
      }
      log.append("c")
    }
    executor.drain()
    #expect(log.values == ["a", "b", "child", "c"])
    await task.value
  }

  @Test func aDrainFromInsideAJobReturnsAtOnce() async {
    let nested = Locked(-1)
    let task = Task(executorPreference: executor) { [executor] in
      nested.withLock { $0 = executor.drain() }
    }
    executor.drain()
    #expect(nested.withLock { $0 } == 0)
    await task.value
  }

  @Test func aReleasedExecutorRunsJobsOnTheGlobalExecutor() async {
    let queued = Task(executorPreference: executor) { 1 }
    executor.release()
    let later = Task(executorPreference: executor) { 2 }
    // Nothing drains: both run by themselves.
    #expect(await queued.value + later.value == 3)
    #expect(executor.drain() == 0)
  }

  // MARK: What follows the preference (pinned toolchain behaviour)

  /// Everything structured inside a task that prefers the executor runs on it: each check runs
  /// inside `drain()`, on the draining thread.
  @Test func structuredWorkFollowsThePreference() async {
    let places = Log<String>()
    let executor = self.executor
    @Sendable func record(_ name: String) {
      places.append(executor.isDrainingOnCurrentThread ? name : "\(name) ran elsewhere")
    }
    let task = Task(executorPreference: executor) {
      record("start")
      await Task.yield()
      record("after yield")
      async let child: Void = record("async let")
      await child
      await withTaskGroup(of: Void.self) { group in
        group.addTask { record("group child") }
      }
      await Recorder().record(record)
      await withCheckedContinuation { continuation in
        DispatchQueue.global().async { continuation.resume() }
      }
      record("after a continuation resumed on a Dispatch thread")
      await withTaskCancellationHandler {
        record("cancellation handler's body")
      } onCancel: {
      }
      // wall-clock: a real timer, so that its wake comes from outside; nothing depends on its
      // length.
      try? await Task.sleep(for: .milliseconds(1))
      record("after a real sleep")
    }
    await executor.drain(until: task)
    #expect(
      places.values == [
        "start", "after yield", "async let", "group child", "default actor",
        "after a continuation resumed on a Dispatch thread", "cancellation handler's body",
        "after a real sleep",
      ])
  }

  /// Unstructured tasks made inside do not follow the preference: they run elsewhere, which is
  /// why a test store does not wait for them.
  @Test func unstructuredTasksDoNotFollowThePreference() async {
    let executor = self.executor
    let inside = Task(executorPreference: executor) {
      let plain = await Task { executor.isDrainingOnCurrentThread }.value
      let detached = await Task.detached { executor.isDrainingOnCurrentThread }.value
      return (plain, detached)
    }
    await executor.drain(until: Task { _ = await inside.value })
    let (plain, detached) = await inside.value
    #expect(!plain && !detached)
  }

  // MARK: Stores

  /// A store on `executor` whose `true` starts `effect`, and whose `false` counts.
  static func countingStore(
    on executor: TestExecutor, _ effect: @escaping @Sendable (Send<Bool>) async -> Void
  ) -> Store<Int, Bool> {
    Store(initialState: 0, effectExecutor: executor) {
      Reduce<Int, Bool> { state, start in
        guard start else {
          state += 1
          return .none
        }
        return .run { send in await effect(send) }
      }
    }
  }

  @Test func aStoreTaskOfAStoreOnATestExecutorDrainsIt() async {
    let store = Self.countingStore(on: executor) { send in
      await send(false)
      await send(false)
    }
    let task = store.send(true)
    #expect(store.state == 0)  // The effect is queued: nothing drained it.
    await task.finish()
    #expect(store.state == 2)
    await store.send(true).finish()
    await store.waitForEffects()
    #expect(store.state == 4)
    #expect(executor.isIdle)
  }
}

extension TestExecutorTests {
  /// A wait inside a job of the executor it waits on (one store's effect waiting for another
  /// store's effects, both on one executor) lets the jobs queued behind it run: it once spun
  /// for ever, since the drain it was inside could not go on.
  @Test func aWaitInsideAJobLetsTheJobsBehindItRun() async {
    let executor = TestExecutor()
    let second = Self.countingStore(on: executor) { send in await send(false) }
    let first = Self.countingStore(on: executor) { send in
      await second.waitForEffects()
      await send(false)
    }
    first.send(true)  // Queued first: its job waits for `second`'s, queued behind it.
    second.send(true)
    // wall-clock: a failure bound of 10 s; a passing drain returns at once.
    let returned = await finishes(within: .seconds(10)) { executor.drain() }
    #expect(returned)
    #expect(second.state == 1)
    #expect(first.state == 1)
  }
}

/// A default actor, for the check above.
private actor Recorder {
  func record(_ record: @Sendable (String) -> Void) {
    record("default actor")
  }
}
