import Dispatch
import Foundation
import Testing
import Unidirectional
import UnidirectionalTestSupport

/// A sink that keeps what it is given, counts writes and flushes, can hold flushes until the
/// test releases them, and can fail.
final class TestSink: ActionLogSink {
  private struct Storage {
    var written = Data()
    var flushedLength = 0
    var writes = 0
    var flushes = 0
    var isHolding = false
    var failure: ActionLogError?
    var flushStarted: [CheckedContinuation<Void, Never>] = []
    var startedCount = 0
  }

  private let storage = Locked(Storage())
  private let release = DispatchSemaphore(value: 0)

  /// Makes every flush wait for `releaseFlush()`.
  init(holdingFlushes: Bool = false) {
    storage.withLock { $0.isHolding = holdingFlushes }
  }

  func write(_ lines: Data) throws(ActionLogError) {
    let failure = storage.withLock { storage -> ActionLogError? in
      if let failure = storage.failure { return failure }
      storage.written.append(lines)
      storage.writes += 1
      return nil
    }
    if let failure { throw failure }
  }

  func flush() throws(ActionLogError) {
    let (isHolding, waiters) = storage.withLock { storage in
      storage.startedCount += 1
      defer { storage.flushStarted = [] }
      return (storage.isHolding, storage.flushStarted)
    }
    for waiter in waiters { waiter.resume() }
    // The committer's own thread blocks here, as it would in fsync.
    if isHolding { release.wait() }
    let failure = storage.withLock { storage -> ActionLogError? in
      if let failure = storage.failure { return failure }
      storage.flushes += 1
      storage.flushedLength = storage.written.count
      return nil
    }
    if let failure { throw failure }
  }

  /// Waits until `count` flushes have started.
  func waitForFlushStart(_ count: Int) async {
    while storage.withLock({ $0.startedCount < count }) {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let done = storage.withLock { storage in
          if storage.startedCount >= count { return true }
          storage.flushStarted.append(continuation)
          return false
        }
        if done { continuation.resume() }
      }
    }
  }

  func releaseFlush() { release.signal() }

  func stopHolding() {
    storage.withLock { $0.isHolding = false }
    release.signal()
  }

  func fail(with error: ActionLogError) { storage.withLock { $0.failure = error } }

  var written: Data { storage.withLock { $0.written } }
  var flushedLength: Int { storage.withLock { $0.flushedLength } }
  var writes: Int { storage.withLock { $0.writes } }
  var flushes: Int { storage.withLock { $0.flushes } }
}

@Suite struct ActionLogDurableTests {
  enum Action: Codable, Equatable, Sendable {
    case add(Int)
  }

  static let feature = Reduce<Int, Action> { state, action in
    switch action {
    case .add(let amount):
      state += amount
      return .none
    }
  }

  func lines(of data: Data) -> [String] {
    String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
  }

  @Test func anActionIsAcknowledgedOnlyOnceItsFlushReturns() async throws {
    let sink = TestSink(holdingFlushes: true)
    let log = DurableActionLog<Action>(sink: sink, program: "p", committer: ActionLogCommitter())
    // The header's round: its flush is held.
    await sink.waitForFlushStart(1)
    let store = Store(initialState: 0, reducer: Self.feature, interceptors: [log.interceptor()])
    let task = store.send(.add(5))
    #expect(store.state == 5)  // Reduced at once: the store does not wait for the disk.
    let acknowledged = Log<String>()
    let waiter = Task {
      try await log.waitUntilDurable(task)
      acknowledged.append("add 5")
    }
    while log.waiterCount == 0 { await Task.yield() }

    sink.releaseFlush()  // The header is durable; the next round writes the entry…
    await sink.waitForFlushStart(2)  // …and its flush is held.
    #expect(lines(of: sink.written).count == 2)  // Written, not yet durable:
    #expect(acknowledged.values.isEmpty)  // no acknowledgement.
    #expect(log.durableCount == 0)

    sink.releaseFlush()
    try await waiter.value
    #expect(acknowledged.values == ["add 5"])
    #expect(log.durableCount == 1)
    #expect(sink.flushes == 2)
    #expect(sink.flushedLength == sink.written.count)
  }

  @Test func linesAppendedDuringAFlushShareTheNextOne() async throws {
    let sink = TestSink(holdingFlushes: true)
    let log = DurableActionLog<Action>(sink: sink, program: "p", committer: ActionLogCommitter())
    await sink.waitForFlushStart(1)
    let store = Store(initialState: 0, reducer: Self.feature, interceptors: [log.interceptor()])
    // 200 actions from 4 threads while the header's flush is held.
    let tasks = Locked<[StoreTask]>([])
    DispatchQueue.concurrentPerform(iterations: 4) { _ in
      for _ in 0..<50 {
        let task = store.send(.add(1))
        tasks.withLock { $0.append(task) }
      }
    }
    #expect(store.state == 200)
    #expect(log.recordedCount == 200)
    let acknowledged = Locked(0)
    try await withThrowingTaskGroup(of: Void.self) { group in
      for task in tasks.withLock({ $0 }) {
        group.addTask {
          try await log.waitUntilDurable(task)
          acknowledged.withLock { $0 += 1 }
        }
      }
      while log.waiterCount < 200 { await Task.yield() }
      #expect(acknowledged.withLock { $0 } == 0)
      sink.stopHolding()
      try await group.waitForAll()
    }
    #expect(acknowledged.withLock { $0 } == 200)
    // One flush for the header, one for all 200 entries.
    #expect(sink.flushes == 2)
    #expect(sink.writes == 2)
    let log2 = try ActionLog<Action>(data: sink.written, program: "p")
    #expect(log2.entries.map(\.sequence) == Array(1...200))
    #expect(log2.error == nil)
  }

  @Test func logsSharingACommitterAreFlushedInTheSameRound() async throws {
    let committer = ActionLogCommitter()
    let held = TestSink(holdingFlushes: true)
    let heldLog = DurableActionLog<Action>(sink: held, program: "p", committer: committer)
    await held.waitForFlushStart(1)
    // While the committer is blocked, ten games each append three actions.
    let sinks = (0..<10).map { _ in TestSink() }
    let logs = sinks.map { DurableActionLog<Action>(sink: $0, program: "p", committer: committer) }
    let stores = logs.map {
      Store(initialState: 0, reducer: Self.feature, interceptors: [$0.interceptor()])
    }
    for store in stores { for amount in 1...3 { store.send(.add(amount)) } }
    held.stopHolding()
    for log in logs { try await log.waitUntilDurable() }
    // Each game's header and three entries went in one write and one flush.
    for sink in sinks {
      #expect(sink.flushes == 1)
      #expect(sink.writes == 1)
      #expect(lines(of: sink.written).count == 4)
    }
    try await heldLog.waitUntilDurable()
  }

  /// A new log with no entry yet is durable once its header is: a program that waits before it
  /// serves (the game server) leaves a journal that readers and recovery accept.
  @Test func aNewLogIsDurableOnlyOnceItsHeaderIs() async throws {
    let sink = TestSink(holdingFlushes: true)
    let log = DurableActionLog<Action>(sink: sink, program: "p", committer: ActionLogCommitter())
    await sink.waitForFlushStart(1)
    let results = Log<ActionLogError?>()
    let done: Void = await withCheckedContinuation { continuation in
      log.whenDurable(.none) { error in
        results.append(error)
        continuation.resume()
      }
      // Called before `whenDurable` returns if it held nothing to wait for.
      #expect(results.values.isEmpty)
      sink.stopHolding()
    }
    _ = done
    #expect(results.values == [nil])
    #expect(lines(of: sink.written).count == 1 && sink.flushedLength == sink.written.count)
    try await log.waitUntilDurable()  // Durable now: at once.
    #expect(log.durableCount == 0)
  }

  @Test func theCallbackComesAfterTheFlush() async throws {
    let sink = TestSink(holdingFlushes: true)
    let log = DurableActionLog<Action>(sink: sink, program: "p", committer: ActionLogCommitter())
    await sink.waitForFlushStart(1)
    let store = Store(initialState: 0, reducer: Self.feature, interceptors: [log.interceptor()])
    let results = Log<ActionLogError?>()
    let done: Void = await withCheckedContinuation { continuation in
      log.whenDurable(store.send(.add(1))) { error in
        results.append(error)
        continuation.resume()
      }
      #expect(results.values.isEmpty)
      sink.stopHolding()
    }
    _ = done
    #expect(results.values.count == 1)
    #expect(results.values.first == .some(nil))
    #expect(sink.flushes == 2)
  }

  /// An action sent while the store is busy is queued: its acknowledgement waits for the store
  /// to reduce it, then for its entry's flush.
  @Test func aQueuedActionIsAcknowledgedOnceReducedAndDurable() async throws {
    let sink = TestSink()
    let log = DurableActionLog<Action>(sink: sink, program: "p", committer: ActionLogCommitter())
    let holder = Locked<Store<Int, Action>?>(nil)
    let durableCounts = Log<Int>()
    let callback = Locked<(@Sendable () -> Void)?>(nil)
    // After `.add(1)` is logged, an interceptor sends `.add(100)`: the store is busy, so it is
    // queued, and its task is pending when `whenDurable` gets it.
    let resend = StoreInterceptor<Int, Action>(didReduce: { action, _, _ in
      guard action == .add(1), let store = holder.withLock({ $0 }) else { return }
      let task = store.send(.add(100))
      log.whenDurable(task) { error in
        #expect(error == nil)
        durableCounts.append(log.durableCount)
        callback.withLock { $0 }?()
      }
    })
    let store = Store(
      initialState: 0, reducer: Self.feature, interceptors: [log.interceptor(), resend])
    holder.withLock { $0 = store }
    defer { holder.withLock { $0 = nil } }
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      callback.withLock { $0 = { continuation.resume() } }
      store.send(.add(1))
    }
    #expect(store.state == 101)
    // Both entries were durable when the callback ran.
    #expect(durableCounts.values.count == 1)
    #expect((durableCounts.values.first ?? 0) >= 2)
    let read = try ActionLog<Action>(data: sink.written, program: "p")
    #expect(read.entries.map(\.action) == [.add(1), .add(100)])
  }

  @Test func aSinkFailureReachesEveryWaiterAndStopsTheLog() async throws {
    let sink = TestSink(holdingFlushes: true)
    let log = DurableActionLog<Action>(sink: sink, program: "p", committer: ActionLogCommitter())
    await sink.waitForFlushStart(1)
    let store = Store(initialState: 0, reducer: Self.feature, interceptors: [log.interceptor()])
    let first = store.send(.add(1))
    let error = ActionLogError(
      path: "sink", line: nil, reason: .fileError("No space left on device"))
    sink.fail(with: error)
    sink.stopHolding()
    await #expect(throws: error) { try await log.waitUntilDurable(first) }
    #expect(log.failure == error)
    // The store carries on; later actions are not logged, and their waiters hear why.
    let second = store.send(.add(2))
    #expect(store.state == 3)
    await #expect(throws: error) { try await log.waitUntilDurable(second) }
    #expect(log.recordedCount == 1)
    #expect(log.durableCount == 0)
  }

  @Test func aFileLogIsReadableAsAnActionLog() async throws {
    let path = temporaryFilePath("durable-log")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let log = try DurableActionLog<Action>(
      path: path, program: "server", committer: ActionLogCommitter())
    let store = Store(initialState: 0, reducer: Self.feature, interceptors: [log.interceptor()])
    for amount in 1...5 { try await log.waitUntilDurable(store.send(.add(amount))) }
    let read = try ActionLog<Action>(path: path, program: "server")
    #expect(read.entries.map(\.action) == (1...5).map(Action.add))
    #expect(read.error == nil)
    #expect(
      throws: ActionLogError(path: path, line: nil, reason: .fileExists)
    ) {
      try DurableActionLog<Action>(path: path, program: "server", committer: ActionLogCommitter())
    }
  }
}

/// Flushing several sinks in one round, at the same time.
@Suite struct ActionLogCommitterTests {
  enum Action: Codable, Equatable, Sendable {
    case add(Int)
  }

  /// Every sink's flush starts before any returns: they overlap. Proves the round flushes the
  /// sinks at the same time, and that a failing sink fails only its own log.
  @Test func aRoundFlushesItsSinksAtTheSameTime() async throws {
    let committer = ActionLogCommitter(concurrentFlushes: 3)
    let blocker = TestSink(holdingFlushes: true)
    let blockerLog = DurableActionLog<Action>(sink: blocker, program: "p", committer: committer)
    await blocker.waitForFlushStart(1)
    // While the committer is blocked, three logs append their headers, and a fourth log's sink
    // breaks. The three flushes are held until all three have started.
    let sinks = (0..<3).map { _ in TestSink(holdingFlushes: true) }
    let logs = sinks.map { DurableActionLog<Action>(sink: $0, program: "p", committer: committer) }
    let broken = TestSink()
    let error = ActionLogError(path: "broken", line: nil, reason: .fileError("broken"))
    broken.fail(with: error)
    let brokenLog = DurableActionLog<Action>(sink: broken, program: "p", committer: committer)
    let brokenStore = Store(
      initialState: 0, reducer: EmptyReducer<Int, Action>(),
      interceptors: [brokenLog.interceptor()])
    let brokenTask = brokenStore.send(.add(1))
    blocker.stopHolding()
    for sink in sinks { await sink.waitForFlushStart(1) }
    for sink in sinks { sink.stopHolding() }
    for log in logs {
      let store = Store(
        initialState: 0, reducer: EmptyReducer<Int, Action>(), interceptors: [log.interceptor()])
      try await log.waitUntilDurable(store.send(.add(1)))
      #expect(log.durableCount == 1)
    }
    await #expect(throws: error) { try await brokenLog.waitUntilDurable(brokenTask) }
    try await blockerLog.waitUntilDurable()
  }
}
