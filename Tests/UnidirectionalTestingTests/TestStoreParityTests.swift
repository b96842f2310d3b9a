// Over 300 lines on purpose: the generated programs, the production store's run of them and
// the test store's must be read side by side.

import Foundation
import Testing
import Unidirectional
import UnidirectionalTestSupport
import UnidirectionalTesting

/// Differential, property-based proof that a `TestStore` reduces the actions of effects in the
/// same order as a production `Store`.
///
/// Each case generates small effect programs from fixed seeds (``EffectProgram``, in the shared
/// support target): a tree of actions whose reducer logs the action and returns its effect:
/// `.none`, `.send` (whose action may `.send` again), `.run` bodies that send and sleep on a
/// `TestClock` with `sleep(for:)` and `sleep(until:)`, runs started by actions that runs sent,
/// `.merge`, `.concatenate` (synchronous, and run in a task, with merges inside),
/// `.cancellable(id:)` runs and `.cancel(id:)` from later actions, including a run cancelled by
/// an action it sent itself. The same driver runs every program in both stores: send `.start`,
/// advance the clock past every deadline, then read the order: the Store's `state.log`, and for
/// the test store the actions `receive` hands over, in order, and its `state.log`. All three must
/// equal the order a model of the Store predicts. A mismatch is reported once per case, with
/// the program's seed, the program shrunk while it still fails, and every sequence; the case
/// then stops.
///
/// The generator only makes programs whose production order is deterministic:
/// - every run's body begins with a sleep of at least one second, and a concatenation that runs
///   in a task begins with a run (or a merge of such), so a task does nothing the store can see
///   before it sleeps and cannot race with whoever started it;
/// - every sleep has a deadline no other sleep of the program has, later than the instant it is
///   reached at (the model simulates the program to choose it), so the clock wakes one task per
///   instant;
/// - within an instant, the woken task and the synchronous effects of what it sends are reduced
///   on one thread, first in first out.
///
/// Left out, because their order is not fixed: `.cancellable` inside a concatenation (once it is
/// cancelled, the concatenation goes on at the same time as the run that cancelled it), and a
/// `.cancel` that reaches a task started at the same instant (whether that task's first sleep
/// registers before the cancellation is a race; harmless for the order, but it makes sleeper
/// counts uncertain).
///
/// It relies on these clock and test-store semantics: `advance` wakes sleepers one deadline at a
/// time with the clock's `now` at that deadline, and drains the attached test executors after
/// each (both stores' effects run on one, so quiet is a fact: nothing queued, nothing running);
/// `await testStore.send(_:)` returns once its executor is idle; a test store reduces effect
/// actions when they arrive, as a Store does, and records them for `receive`.
/// ``productionStoreFollowsTheModel(slice:)`` checks the model against a Store on the global
/// executor with the clock stepped by hand, which needs none of this.
///
/// `UNIDIRECTIONAL_PARITY_PROGRAMS` sets how many programs run (default 10,000, split over
/// ``sliceCount`` cases); `UNIDIRECTIONAL_PARITY_SEED` runs one program only.
@Suite struct TestStoreParityTests {
  static let sliceCount = 20

  // wall-clock: the limit below is a failure bound (see its documentation).
  /// The wall-clock limit of each wait of ``runStepped(_:_:timeout:)`` (a Store on the global
  /// executor), which only a failing run reaches (a passing one goes on as soon as what it
  /// waits for has happened). Generous, because the heavy suites running beside this one can
  /// keep an effect's task waiting seconds for a thread.
  // wall-clock: a failure bound; see above.
  static let waitLimit = Duration.seconds(10)

  static var programCount: Int {
    Int(ProcessInfo.processInfo.environment["UNIDIRECTIONAL_PARITY_PROGRAMS"] ?? "") ?? 10_000
  }

  /// The seeds of the programs slice `slice` runs.
  static func seeds(slice: Int, total: Int = programCount) -> [UInt64] {
    if let seed = UInt64(ProcessInfo.processInfo.environment["UNIDIRECTIONAL_PARITY_SEED"] ?? "") {
      return slice == 0 ? [seed] : []
    }
    let perSlice = (total + sliceCount - 1) / sliceCount
    let start = slice * perSlice
    return (start..<min(start + perSlice, total)).map { UInt64($0) }
  }

  // MARK: The property

  @Test(arguments: 0..<sliceCount)
  func testStoreReducesInTheStoresOrder(slice: Int) async {
    for seed in Self.seeds(slice: slice) {
      let program = EffectProgram.generate(seed: seed)
      let outcome = await Self.runInBothStores(program)
      guard outcome.failed else { continue }
      let (shrunk, shrunkOutcome, attempts) = await Self.shrink(program, outcome)
      var report = [
        "Program seed \(seed) (UNIDIRECTIONAL_PARITY_SEED=\(seed) replays it) fails.",
        "",
        "Shrunk in \(attempts) run(s) to: \(shrunk)",
        shrunkOutcome.description,
      ]
      if shrunk != program {
        report += ["", "Original: \(program)", outcome.description]
      }
      Issue.record(Comment(rawValue: report.joined(separator: "\n")))
      return
    }
  }

  /// The test store's executor runs the same jobs in the same order every time: a program's
  /// run, recorded as the number of jobs run by each action handed over, is the same twice.
  @Test(arguments: [UInt64(9500), 1, 42, 2026])
  func aSeedRunsTheSameJobsInTheSameOrderEveryTime(seed: UInt64) async {
    let program = EffectProgram.generate(seed: seed)
    let first = Log<UInt64>()
    let second = Log<UInt64>()
    let firstOutcome = await Self.runInBothStores(program, jobOrder: first)
    let secondOutcome = await Self.runInBothStores(program, jobOrder: second)
    #expect(!firstOutcome.failed, "\(program)\n\(firstOutcome)")
    #expect(first.values.count == firstOutcome.received.count)
    #expect(first.values.last ?? 0 > 0)
    #expect(first.values == second.values)
    #expect(firstOutcome.received == secondOutcome.received)
  }

  // MARK: The case of the issue

  /// An effect's second send is reduced after the synchronous effect of its first one: a Store
  /// reduces `a, b1, b2, c1`, and a test store must hand them over in that order.
  @Test func anEffectsNextSendComesAfterTheSynchronousEffectsOfItsLastOne() async {
    let store = Store(initialState: IssueCase.State()) { IssueCase() }
    await store.send(.a).finish()
    #expect(store.state.log == [.a, .b1, .b2, .c1])

    let testStore = TestStore(initialState: IssueCase.State()) { IssueCase() }
    await testStore.send(.a) { $0.log = [.a] }
    await testStore.receive(.b1) { $0.log = [.a, .b1] }
    await testStore.receive(.b2) { $0.log = [.a, .b1, .b2] }
    await testStore.receive(.c1) { $0.log = [.a, .b1, .b2, .c1] }
    await testStore.finish()
  }

  /// The same case as a program, through the harness of the property (with the sleep every
  /// generated run begins with).
  @Test func theIssueCaseThroughTheHarness() async {
    // start → run { sleep(for: 1); send 1; send 2 }, 1 → send 3.
    let program = EffectProgram(
      nodes: [.run(0), .send(3), .none, .none],
      runs: [[.sleepFor(1), .send(1), .send(2)]])
    let outcome = await Self.runInBothStores(program)
    #expect(outcome.expected == [0, 1, 3, 2])
    #expect(!outcome.failed, "\(program)\n\(outcome)")
  }

  // MARK: The model

  /// The production Store reduces every program in the order the model predicts, with the
  /// clock moved by hand one deadline at a time and each instant's work awaited by counting
  /// the reductions and sleeps the model predicts for it: the premise of the property, checked
  /// without relying on the clock waiting for effects.
  @Test(arguments: 0..<4)
  func productionStoreFollowsTheModel(slice: Int) async throws {
    let total = max(Self.programCount / 5, 4)
    let perSlice = (total + 3) / 4
    for seed in (slice * perSlice)..<min((slice + 1) * perSlice, total) {
      let program = EffectProgram.generate(seed: UInt64(seed))
      let trace = try program.simulate()
      // wall-clock: a failure bound; a passing run goes on as soon as what it waits for happens.
      if let failure = await Self.runStepped(program, trace, timeout: Self.waitLimit) {
        Issue.record(
          Comment(
            rawValue: "Program seed \(seed): \(program)\nmodel: \(trace.log)\n\(failure)"))
        return
      }
    }
  }

  /// The generator covers every shape it promises, within its size limits.
  @Test func generatorCoversEveryShape() throws {
    var seen: [Int: Int] = [:]
    let count = 2_000
    for seed in 0..<UInt64(count) {
      let program = EffectProgram.generate(seed: seed)
      let trace = try program.simulate()
      #expect(program.nodes.count <= 12)
      #expect(
        program.runs.allSatisfy { $0.filter(\.isSleep).count <= 4 && $0.first?.isSleep == true })
      #expect(Set(trace.log).count == trace.log.count)
      #expect(program.horizon <= 100, "\(program)")
      for (_, feature) in ProgramFeatures.all where trace.features.contains(feature) {
        seen[feature.rawValue, default: 0] += 1
      }
    }
    for (name, feature) in ProgramFeatures.all {
      let programs = seen[feature.rawValue, default: 0]
      #expect(programs >= count / 50, "\(name): \(programs) of \(count) programs")
    }
  }

  /// The model on hand-written programs whose order is known.
  @Test func modelOrders() throws {
    // Synchronous sends are reduced first in first out: 0 queues 1 and 2; 1 queues 3.
    let fifo = EffectProgram(
      nodes: [.merge([.send(1), .send(2)]), .send(3), .none, .none], runs: [])
    #expect(try fifo.simulate().log == [0, 1, 2, 3])
    // Two runs: the one with the earlier deadline sends first; the later one is cancelled by
    // an action the first sends, before it wakes.
    let cancel = EffectProgram(
      nodes: [
        .merge([.run(0), .cancellable(id: 7, .run(1))]), .cancel(id: 7), .none,
      ],
      runs: [[.sleepFor(1), .send(1)], [.sleepUntil(2), .send(2)]])
    #expect(try cancel.simulate().log == [0, 1])
    // A run cancels itself through the action it sends: its next send is dropped.
    let selfCancel = EffectProgram(
      nodes: [.cancellable(id: 1, .run(0)), .cancel(id: 1), .none],
      runs: [[.sleepFor(1), .send(1), .send(2)]])
    #expect(try selfCancel.simulate().log == [0, 1])
    // A concatenation goes on when its run ends: after the run's last send.
    let concatenation = EffectProgram(
      nodes: [.concatenate([.run(0), .send(2)]), .none, .none],
      runs: [[.sleepFor(2), .send(1)]])
    #expect(try concatenation.simulate().log == [0, 1, 2])
    // Shared deadlines are outside the deterministic shapes.
    let tie = EffectProgram(
      nodes: [.merge([.run(0), .run(1)]), .none, .none],
      runs: [[.sleepFor(1), .send(1)], [.sleepUntil(1), .send(2)]])
    #expect(throws: ProgramViolation.self) { try tie.simulate() }
  }
}

// MARK: - The issue's reducer

private struct IssueCase: Reducer {
  struct State: Equatable, Sendable {
    var log: [Action] = []
  }

  enum Action: Equatable, Sendable {
    case a, b1, b2, c1
  }

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    state.log.append(action)
    switch action {
    case .a:
      return .run { send in
        await send(.b1)
        await send(.c1)
      }
    case .b1:
      return .send(.b2)
    case .b2, .c1:
      return .none
    }
  }
}

// MARK: - Harness

extension TestStoreParityTests {
  /// What the two stores did with one program.
  struct Outcome: Sendable, CustomStringConvertible {
    /// The model's order, or `nil` for a program outside the deterministic shapes.
    var expected: [Int]?
    var store: [Int] = []
    /// Whether the Store's effects all ended.
    var storeSettled = true
    /// `.start`, then the actions `receive` handed over, in order.
    var received: [Int] = []
    var testStoreState: [Int] = []
    /// Failures the test store recorded.
    var issues: [String] = []

    enum Problem: String {
      case storeLeftModel = "The Store did not follow the model."
      case storeUnsettled = "The Store's effects did not all end."
      case receivedOrder = "The test store received another order."
      case stateOrder = "The test store's state has another order."
      case testStoreFailures = "The test store recorded failures."
    }

    /// What went wrong, the most fundamental first.
    var problems: [Problem] {
      var problems: [Problem] = []
      if let expected, store != expected { problems.append(.storeLeftModel) }
      if !storeSettled { problems.append(.storeUnsettled) }
      if received != store { problems.append(.receivedOrder) }
      if testStoreState != store { problems.append(.stateOrder) }
      if !issues.isEmpty { problems.append(.testStoreFailures) }
      return problems
    }

    var failed: Bool { !problems.isEmpty }

    var description: String {
      var lines = problems.map { "  " + $0.rawValue }
      lines.append("  model:              \(expected.map { "\($0)" } ?? "-")")
      lines.append("  Store:              \(store)")
      lines.append("  TestStore received: \(received)")
      lines.append("  TestStore state:    \(testStoreState)")
      for issue in issues {
        lines.append(
          "  TestStore failure:  " + issue.replacingOccurrences(of: "\n", with: "\n    "))
      }
      return lines.joined(separator: "\n")
    }
  }

  /// Runs `program` in a Store and in a test store with the same driver, each with its own clock.
  ///
  /// The Store's effects are pinned to a `TestExecutor` that the clock drains, as the test
  /// store's are: neither run waits on the wall clock, and the test store runs with a timeout of
  /// zero, so a passing program is a fact, not a race won. (The Store on the global executor is
  /// checked against the model by ``productionStoreFollowsTheModel(slice:)``.)
  ///
  /// - Parameter jobOrder: Receives, for each action the test store handed over, the number of
  ///   jobs its executor had run by then.
  static func runInBothStores(
    _ program: EffectProgram, jobOrder: Log<UInt64>? = nil
  ) async -> Outcome {
    let trace = try? program.simulate()
    var outcome = Outcome(expected: trace?.log)
    let horizon = Duration.seconds(program.horizon)

    do {
      let clock = TestClock()
      let executor = TestExecutor()
      clock.attach(executor)
      let store = Store(
        initialState: ProgramState(), reducer: ProgramReducer(program: program, clock: clock),
        effectExecutor: executor)
      store.send(.start)
      await clock.advance(by: horizon)
      executor.drain()
      outcome.storeSettled = store.runningEffectCount == 0
      outcome.store = store.state.log
    }

    let issues = Log<String>()
    var received = [0]
    var testStoreState: [Int] = []
    let expectedCount = outcome.store.count
    await withKnownIssue(isIntermittent: true) {
      let clock = TestClock()
      let testStore = TestStore(initialState: ProgramState()) {
        ProgramReducer(program: program, clock: clock)
      }
      clock.attach(testStore.effectExecutor)
      testStore.exhaustivity = .off
      // Every effect runs on the test store's executor and sleeps on its clock: nothing is
      // waited for outside it.
      testStore.timeout = .zero
      await testStore.send(.start)
      await clock.advance(by: horizon)
      jobOrder?.append(testStore.effectExecutor.jobsRun)
      while received.count < expectedCount {
        let before = received.count
        await testStore.receive { action in
          received.append(action.node)
          return true
        }
        if received.count == before { break }
        jobOrder?.append(testStore.effectExecutor.jobsRun)
      }
      await testStore.finish()
      testStoreState = testStore.state.log
    } matching: { issue in
      let comments = issue.comments.map(\.rawValue).joined(separator: "\n")
      issues.append(comments.isEmpty ? "\(issue)" : comments)
      return true
    }
    outcome.received = received
    outcome.testStoreState = testStoreState
    outcome.issues = issues.values
    return outcome
  }

  /// Removes parts of a failing program while it still fails with the same first problem
  /// (greedily, biggest cuts first), within a budget of runs and time.
  static func shrink(
    _ program: EffectProgram, _ outcome: Outcome
  ) async -> (EffectProgram, Outcome, attempts: Int) {
    let problem = outcome.problems.first
    var current = (program, outcome)
    var attempts = 0
    // wall-clock: a budget for shrinking a failure; a passing run never shrinks.
    let deadline = ContinuousClock.now.advanced(by: .seconds(20))
    search: while true {
      for candidate in current.0.smallerCandidates() {
        // wall-clock: a failure bound; a passing run goes on as soon as what it waits for happens.
        guard attempts < 60, ContinuousClock.now < deadline else { break search }
        attempts += 1
        let outcome = await runInBothStores(candidate)
        if outcome.problems.first == problem {
          current = (candidate, outcome)
          continue search
        }
      }
      break
    }
    return (current.0, current.1, attempts)
  }

  /// Runs `program` in a Store, moving the clock to each deadline the model predicts and waiting
  /// for exactly the reductions and sleeps it predicts there before moving on.
  ///
  /// - Returns: What went wrong, or `nil`.
  static func runStepped(
    // wall-clock: the limit of a wait that returns as soon as what it waits for happens.
    _ program: EffectProgram, _ trace: ProgramTrace, timeout: Duration
  ) async -> String? {
    let clock = TestClock()
    let probe = ProgramProbe()
    let store = Store(
      initialState: ProgramState(),
      reducer: ProgramReducer(program: program, clock: clock, probe: probe))
    store.send(.start)
    for (index, phase) in trace.phases.enumerated() {
      if index > 0 { await clock.advance(to: TestClock.Instant(offset: .seconds(phase.time))) }
      // wall-clock: a failure bound; a passing run goes on as soon as what it waits for happens.
      let counted = await probe.wait(for: phase.counts, timeout: timeout)
      // wall-clock: a failure bound; a passing run goes on as soon as what it waits for happens.
      let asleep = await waitForSleepers(clock, count: phase.sleepers, timeout: timeout)
      guard counted, asleep, clock.sleeperCount == phase.sleepers else {
        return """
          At \(phase.time)s: expected \(phase.counts) and \(phase.sleepers) sleeper(s), \
          counted \(probe.counts) and \(clock.sleeperCount) sleeper(s).
          Store: \(store.state.log)
          """
      }
    }
    guard await eventually(within: timeout, { store.runningEffectCount == 0 }) else {
      return "The Store's effects did not all end. Store: \(store.state.log)"
    }
    guard store.state.log == trace.log else {
      return "Store: \(store.state.log)"
    }
    return nil
  }

  /// Waits until `clock` has at least `count` sleepers, for at most `timeout`.
  // wall-clock: the limit of a wait that returns as soon as what it waits for happens.
  static func waitForSleepers(_ clock: TestClock, count: Int, timeout: Duration) async -> Bool {
    await eventually(within: timeout) { clock.sleeperCount >= count }
  }

  /// Polls `condition` until it holds, for at most `timeout`.
  static func eventually(
    // wall-clock: the limit of a wait that returns as soon as what it waits for happens.
    within timeout: Duration, _ condition: @Sendable () -> Bool
  ) async -> Bool {
    // wall-clock: a failure bound; a passing run goes on as soon as what it waits for happens.
    let deadline = ContinuousClock.now.advanced(by: timeout)
    var polls = 0
    while !condition() {
      // wall-clock: a failure bound; a passing run goes on as soon as what it waits for happens.
      guard ContinuousClock.now < deadline else { return false }
      polls += 1
      if polls < 20 {
        await Task.yield()
      } else {
        // wall-clock: polls a condition under a failure bound; a passing run stops once it holds.
        try? await Task.sleep(for: .microseconds(200))
      }
    }
    return true
  }
}
