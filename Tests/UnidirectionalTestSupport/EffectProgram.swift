// Over 300 lines on purpose: the program generator, the model of the order a store reduces
// a program's actions in, and the reducer that runs programs must change together.

import Unidirectional

// Random effect programs for differential tests of stores, a model of the order a production
// `Store` reduces their actions in, and the reducer that runs them.
//
// A program is a tree of nodes. Node 0 is the action `.start`; node k > 0 is `.step(k)`, sent
// exactly once in the whole program (by a `.send` effect or by a run). Reducing node k appends k
// to `state.log` and returns node k's effect. Runs sleep on a `TestClock`, in whole seconds.

// MARK: - Programs

/// An action of an ``EffectProgram``: `.start` is node 0, `.step(k)` node k.
public enum ProgramAction: Equatable, Sendable, CustomStringConvertible {
  case start
  case step(Int)

  /// The node the action stands for.
  public var node: Int {
    switch self {
    case .start: 0
    case .step(let node): node
    }
  }

  public var description: String { "\(node)" }
}

/// The state of an ``EffectProgram``: the nodes reduced, in order.
public struct ProgramState: Equatable, Sendable {
  public var log: [Int] = []

  public init() {}
}

/// One step of a run's body.
public enum RunOp: Equatable, Sendable {
  /// `await send(.step(node))`.
  case send(Int)
  /// `try await clock.sleep(for: .seconds(amount))`.
  case sleepFor(Int)
  /// `try await clock.sleep(until: instant at amount seconds)`.
  case sleepUntil(Int)

  public var isSleep: Bool {
    if case .send = self { false } else { true }
  }
}

/// The effect a node returns, mirroring ``Effect``'s cases.
public indirect enum ProgramEffect: Equatable, Sendable {
  case none
  /// `.send(.step(node))`.
  case send(Int)
  /// `.run` with the body `runs[index]` of the program.
  case run(Int)
  case merge([ProgramEffect])
  case concatenate([ProgramEffect])
  case cancellable(id: Int, ProgramEffect)
  case cancel(id: Int)

  /// Whether the runtime starts it without a task (`Effect.isSynchronous`).
  var isSynchronous: Bool {
    switch self {
    case .none, .send, .cancel: true
    case .run: false
    case .merge(let effects), .concatenate(let effects): effects.allSatisfy(\.isSynchronous)
    case .cancellable(_, let inner): inner.isSynchronous
    }
  }

  /// The shape `Effect`'s constructors give it: `.none` dropped from merges and concatenations,
  /// which collapse to their only element or to `.none`; `.cancellable` of `.none` is `.none`.
  var normalized: ProgramEffect {
    switch self {
    case .none, .send, .run, .cancel:
      return self
    case .merge(let effects), .concatenate(let effects):
      let kept = effects.map(\.normalized).filter { $0 != .none }
      switch kept.count {
      case 0: return .none
      case 1: return kept[0]
      default:
        if case .merge = self { return .merge(kept) }
        return .concatenate(kept)
      }
    case .cancellable(let id, let inner):
      let inner = inner.normalized
      return inner == .none ? .none : .cancellable(id: id, inner)
    }
  }
}

/// A tree of effects to run in a store, generated from a seed (see ``generate(seed:maxNodes:)``).
public struct EffectProgram: Equatable, Sendable, CustomStringConvertible {
  /// The effect of each node; node 0 is `.start`.
  public var nodes: [ProgramEffect]
  /// The bodies of the runs, referenced by `ProgramEffect.run`.
  public var runs: [[RunOp]]

  public init(nodes: [ProgramEffect], runs: [[RunOp]]) {
    self.nodes = nodes
    self.runs = runs
  }

  /// One second after the latest deadline of any sleep: advancing a test clock by this much
  /// wakes every sleeper.
  public var horizon: Int {
    ((try? simulate())?.deadlines.max() ?? 0) + 1
  }

  public var description: String {
    var lines = ["\(nodes.count) nodes, horizon \(horizon)s:"]
    for (index, effect) in nodes.enumerated() {
      lines.append("  \(index == 0 ? "start" : "\(index)"): \(describe(effect))")
    }
    return lines.joined(separator: "\n")
  }

  private func describe(_ effect: ProgramEffect) -> String {
    switch effect {
    case .none: return "none"
    case .send(let node): return "send \(node)"
    case .run(let index):
      let ops = runs[index].map { op -> String in
        switch op {
        case .send(let node): "send \(node)"
        case .sleepFor(let amount): "sleep(for: \(amount))"
        case .sleepUntil(let amount): "sleep(until: \(amount))"
        }
      }
      return "run { " + ops.joined(separator: "; ") + " }"
    case .merge(let effects): return "merge(" + effects.map(describe).joined(separator: ", ") + ")"
    case .concatenate(let effects):
      return "concatenate(" + effects.map(describe).joined(separator: ", ") + ")"
    case .cancellable(let id, let inner): return "cancellable(id: \(id), \(describe(inner)))"
    case .cancel(let id): return "cancel(id: \(id))"
    }
  }
}

// MARK: - Running a program in a store

/// Counts, for a test that moves a `TestClock` by hand, what a program's effects have done: a
/// number that only grows for each kind of event, so that a test can wait for exactly the
/// events the model predicts before it moves time again.
public final class ProgramProbe: Sendable {
  /// Events so far.
  public struct Counts: Equatable, Sendable, CustomStringConvertible {
    /// Actions reduced.
    public var reduced = 0
    /// Sleeps called (the deadline is fixed before this is counted).
    public var sleepsStarted = 0
    /// Sleeps that returned or threw.
    public var sleepsEnded = 0

    public init(reduced: Int = 0, sleepsStarted: Int = 0, sleepsEnded: Int = 0) {
      self.reduced = reduced
      self.sleepsStarted = sleepsStarted
      self.sleepsEnded = sleepsEnded
    }

    public var description: String {
      "\(reduced) reduced, \(sleepsStarted) sleeps started, \(sleepsEnded) ended"
    }
  }

  private struct Storage {
    var counts = Counts()
    var nextID: UInt64 = 0
    var waiters: [UInt64: (target: Counts, continuation: CheckedContinuation<Bool, Never>)] = [:]
  }

  private let storage = Locked(Storage())

  public init() {}

  /// The events so far.
  public var counts: Counts { storage.withLock { $0.counts } }

  func count(_ change: (inout Counts) -> Void) {
    let ready = storage.withLock { storage -> [CheckedContinuation<Bool, Never>] in
      change(&storage.counts)
      let counts = storage.counts
      let ready = storage.waiters.filter { $0.value.target == counts }
      for id in ready.keys { storage.waiters[id] = nil }
      return ready.values.map(\.continuation)
    }
    for continuation in ready { continuation.resume(returning: true) }
  }

  /// Sleeps on `clock` until `deadline`, counting the sleep.
  func sleep(on clock: TestClock, until deadline: TestClock.Instant) async throws {
    count { $0.sleepsStarted += 1 }
    defer { count { $0.sleepsEnded += 1 } }
    try await clock.sleep(until: deadline)
  }

  /// Waits until the counts are exactly `target`, for at most `timeout` of wall-clock time.
  ///
  /// - Returns: Whether they were.
  // wall-clock: the limit of a wait that returns as soon as what it waits for happens.
  public func wait(for target: Counts, timeout: Duration) async -> Bool {
    await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
      let id = storage.withLock { storage -> UInt64? in
        guard storage.counts != target else { return nil }
        let id = storage.nextID
        storage.nextID += 1
        storage.waiters[id] = (target, continuation)
        return id
      }
      guard let id else { return continuation.resume(returning: true) }
      Task { [self] in
        // wall-clock: polls a condition under a failure bound; a passing run stops once it holds.
        try? await Task.sleep(for: timeout)
        let expired = storage.withLock { $0.waiters.removeValue(forKey: id) }
        expired?.continuation.resume(returning: false)
      }
    }
  }
}

/// Runs an ``EffectProgram``: reducing node k appends k to the log and returns node k's effect,
/// whose runs sleep on `clock`.
public struct ProgramReducer: Reducer {
  public let program: EffectProgram
  public let clock: TestClock
  /// Counts events, for tests that step the clock by hand; `nil` to call the clock directly.
  public let probe: ProgramProbe?

  public init(program: EffectProgram, clock: TestClock, probe: ProgramProbe? = nil) {
    self.program = program
    self.clock = clock
    self.probe = probe
  }

  public func reduce(into state: inout ProgramState, action: ProgramAction) -> Effect<ProgramAction>
  {
    state.log.append(action.node)
    probe?.count { $0.reduced += 1 }
    return effect(program.nodes[action.node])
  }

  private func effect(_ effect: ProgramEffect) -> Effect<ProgramAction> {
    switch effect {
    case .none:
      return .none
    case .send(let node):
      return .send(.step(node))
    case .run(let index):
      let ops = program.runs[index]
      return .run { [clock, probe] send in
        for op in ops {
          switch op {
          case .send(let node):
            await send(.step(node))
          case .sleepFor(let seconds):
            if let probe {
              try await probe.sleep(on: clock, until: clock.now.advanced(by: .seconds(seconds)))
            } else {
              try await clock.sleep(for: .seconds(seconds))
            }
          case .sleepUntil(let seconds):
            let deadline = TestClock.Instant(offset: .seconds(seconds))
            if let probe {
              try await probe.sleep(on: clock, until: deadline)
            } else {
              try await clock.sleep(until: deadline)
            }
          }
        }
      }
    case .merge(let effects):
      return .merge(effects.map(self.effect))
    case .concatenate(let effects):
      return .concatenate(effects.map(self.effect))
    case .cancellable(let id, let inner):
      return self.effect(inner).cancellable(id: id)
    case .cancel(let id):
      return .cancel(id: id)
    }
  }
}

// MARK: - The model

/// What the model of a production `Store` predicts for a program.
public struct ProgramTrace: Sendable {
  /// The state of the store after an instant of the test clock: after `.start` at time 0, then
  /// after each sleeper woke (one per instant) and everything it caused was done.
  public struct Phase: Equatable, Sendable {
    /// The time, in seconds.
    public var time: Int
    /// Events counted by a ``ProgramProbe`` since the start.
    public var counts: ProgramProbe.Counts
    /// Tasks asleep on the clock.
    public var sleepers: Int
  }

  /// The nodes in the order the store reduces them.
  public var log: [Int] = []
  public var phases: [Phase] = []
  /// The deadlines of every sleep registered, in seconds (all different).
  public var deadlines: [Int] = []
  /// The shapes this program exercised.
  public var features: ProgramFeatures = []
}

/// Shapes a program exercised when it ran, for checking the generator's coverage.
public struct ProgramFeatures: OptionSet, Sendable, Hashable {
  public let rawValue: Int
  public init(rawValue: Int) { self.rawValue = rawValue }

  /// A `.send` effect whose action returned another `.send`.
  public static let sendChain = Self(rawValue: 1 << 0)
  /// A run started by an action that a run sent.
  public static let nestedRun = Self(rawValue: 1 << 1)
  public static let sleepFor = Self(rawValue: 1 << 2)
  public static let sleepUntil = Self(rawValue: 1 << 3)
  /// A `.merge` returned by a reducer.
  public static let merge = Self(rawValue: 1 << 4)
  /// A concatenation of synchronous effects.
  public static let synchronousConcatenate = Self(rawValue: 1 << 5)
  /// A concatenation run in a task.
  public static let concatenate = Self(rawValue: 1 << 6)
  /// A merge inside a concatenation, run as child tasks.
  public static let mergeInTask = Self(rawValue: 1 << 7)
  /// A `.cancel` that cancelled a sleeping run of another task.
  public static let cancelledSleeper = Self(rawValue: 1 << 8)
  /// A run cancelled by an action it sent.
  public static let selfCancel = Self(rawValue: 1 << 9)
  /// A send of a cancelled run, dropped.
  public static let droppedSend = Self(rawValue: 1 << 10)
  /// A concatenation that went on after a run ended.
  public static let concatenateContinued = Self(rawValue: 1 << 11)

  public static let all: [(String, Self)] = [
    ("send chain", .sendChain), ("nested run", .nestedRun), ("sleep(for:)", .sleepFor),
    ("sleep(until:)", .sleepUntil), ("merge", .merge),
    ("synchronous concatenate", .synchronousConcatenate), ("concatenate in a task", .concatenate),
    ("merge in a task", .mergeInTask), ("cancelled sleeper", .cancelledSleeper),
    ("self-cancel", .selfCancel), ("dropped send", .droppedSend),
    ("concatenate went on", .concatenateContinued),
  ]
}

/// Why a program is outside the shapes whose production order is deterministic.
public struct ProgramViolation: Error, CustomStringConvertible {
  public let description: String
}

extension EffectProgram {
  /// The order a production `Store` reduces the program's actions in when a test sends `.start`
  /// and then wakes sleepers one instant at a time, letting each instant's work finish.
  ///
  /// - Throws: ``ProgramViolation`` if the program is outside the deterministic shapes (see
  ///   ``generate(seed:maxNodes:)``).
  public func simulate() throws(ProgramViolation) -> ProgramTrace {
    var model = Model(program: self, assigner: nil)
    return try model.run()
  }

  /// The program with a deadline chosen for every sleep as the model reaches it, different from
  /// every other deadline and later than the time the sleep is reached at; `nil` if the program
  /// is outside the deterministic shapes.
  func timed(using rng: inout SplitMix64) -> EffectProgram? {
    var model = Model(program: self, assigner: rng)
    guard (try? model.run()) != nil else { return nil }
    rng = model.assigner!
    var timed = model.program
    // Sleeps never reached (their run never starts, or it was cancelled first) keep a value
    // that reads well.
    for index in timed.runs.indices {
      for (position, op) in timed.runs[index].enumerated()
      where !model.assigned.contains(
        SleepRef(run: index, op: position))
      {
        switch op {
        case .send: break
        case .sleepFor: timed.runs[index][position] = .sleepFor(1)
        case .sleepUntil: timed.runs[index][position] = .sleepUntil(max(1, model.time + 1))
        }
      }
    }
    return timed
  }
}

private struct SleepRef: Hashable {
  let run: Int
  let op: Int
}

/// A step-by-step model of `Store` and `EffectRuntime` for program effects, with a test clock
/// that wakes one sleeper per instant and waits for its work to end before moving on.
private struct Model {
  struct ModelTask {
    var cancelIDs: [Int]
    var phase: Int
    var isCancelled = false
    var hasEnded = false
  }

  enum Frame {
    /// The rest of a run's body.
    case ops(run: Int, next: Int)
    /// The rest of a concatenation (`perform(.concatenate)` in a task).
    case sequence([ProgramEffect], next: Int)
  }

  /// A line of execution in a task: the task's own, or a child running part of a merge.
  struct Fiber {
    var task: Int
    var stack: [Frame]
    var parent: Int?
    var pendingChildren = 0
  }

  var program: EffectProgram
  var assigner: SplitMix64?
  var assigned: Set<SleepRef> = []

  var time = 0
  var phase = 0
  var tasks: [ModelTask] = []
  var fibers: [Fiber] = []
  /// Sleeping fibers and their deadlines.
  var sleepers: [Int: Int] = [:]
  var usedDeadlines: Set<Int> = []
  /// The task whose sleeper woke at this instant; `nil` at time 0 (the test sends `.start`).
  var activeTask: Int?
  var counts = ProgramProbe.Counts()
  var trace = ProgramTrace()
  var reduced: Set<Int> = []

  init(program: EffectProgram, assigner: SplitMix64?) {
    self.program = program
    self.assigner = assigner
  }

  mutating func run() throws(ProgramViolation) -> ProgramTrace {
    try send(0)
    record()
    while let (fiber, deadline) = sleepers.min(by: { ($0.value, $0.key) < ($1.value, $1.key) }) {
      phase += 1
      time = deadline
      sleepers[fiber] = nil
      counts.sleepsEnded += 1
      activeTask = fibers[fiber].task
      try resume(fiber, mustSleepFirst: false)
      record()
    }
    return trace
  }

  mutating func record() {
    trace.phases.append(.init(time: time, counts: counts, sleepers: sleepers.count))
  }

  // MARK: Reducing

  /// `await send(.step(node))` from the test or an effect: the store reduces the action, then
  /// the actions its synchronous effects queued, first in first out.
  mutating func send(_ node: Int) throws(ProgramViolation) {
    var queue = [node]
    var next = 0
    while next < queue.count {
      let node = queue[next]
      next += 1
      guard node < program.nodes.count, reduced.insert(node).inserted else {
        throw ProgramViolation(description: "node \(node) is sent twice or does not exist")
      }
      trace.log.append(node)
      counts.reduced += 1
      let effect = program.nodes[node]
      if next > 1, effect.startsWithSend { trace.features.insert(.sendChain) }
      if case .merge = effect { trace.features.insert(.merge) }
      try start(effect, cancelIDs: [], queue: &queue)
    }
  }

  /// `EffectRuntime.startSynchronously`.
  mutating func start(
    _ effect: ProgramEffect, cancelIDs: [Int], queue: inout [Int]
  ) throws(ProgramViolation) {
    switch effect {
    case .none:
      break
    case .send(let node):
      queue.append(node)
    case .cancel(let id):
      try cancel(id)
    case .merge(let effects):
      for effect in effects { try start(effect, cancelIDs: cancelIDs, queue: &queue) }
    case .concatenate(let effects):
      if effects.allSatisfy(\.isSynchronous) {
        trace.features.insert(.synchronousConcatenate)
        for effect in effects { try start(effect, cancelIDs: cancelIDs, queue: &queue) }
      } else {
        trace.features.insert(.concatenate)
        try spawn(cancelIDs: cancelIDs, .sequence(effects, next: 0))
      }
    case .run(let index):
      try spawn(cancelIDs: cancelIDs, .ops(run: index, next: 0))
    case .cancellable(let id, let inner):
      try start(inner, cancelIDs: cancelIDs + [id], queue: &queue)
    }
  }

  mutating func spawn(cancelIDs: [Int], _ frame: Frame) throws(ProgramViolation) {
    if activeTask != nil, case .ops = frame { trace.features.insert(.nestedRun) }
    tasks.append(ModelTask(cancelIDs: cancelIDs, phase: phase))
    fibers.append(Fiber(task: tasks.count - 1, stack: [frame]))
    // The task runs at the same time as whoever started it: until it sleeps, it must do nothing
    // the store can see.
    try resume(fibers.count - 1, mustSleepFirst: true)
  }

  // MARK: Tasks

  /// Runs a fiber until it sleeps, waits for children, or ends.
  mutating func resume(_ fiber: Int, mustSleepFirst: Bool) throws(ProgramViolation) {
    func unsupported(_ what: String) -> ProgramViolation {
      ProgramViolation(description: "a task \(what) before its first sleep")
    }
    while true {
      let isCancelled = tasks[fibers[fiber].task].isCancelled
      guard let frame = fibers[fiber].stack.popLast() else {
        return try ended(fiber)
      }
      switch frame {
      case .ops(let run, let next):
        let ops = program.runs[run]
        guard next < ops.count else { continue }
        fibers[fiber].stack.append(.ops(run: run, next: next + 1))
        switch ops[next] {
        case .send(let node):
          if mustSleepFirst { throw unsupported("sends") }
          if isCancelled {
            trace.features.insert(.droppedSend)
          } else {
            try send(node)
          }
        case .sleepFor, .sleepUntil:
          counts.sleepsStarted += 1
          if isCancelled {
            // `Task.checkCancellation()` throws: the run ends, and so does everything around it.
            counts.sleepsEnded += 1
            fibers[fiber].stack.removeLast()
            continue
          }
          let deadline = try deadline(run: run, op: next)
          sleepers[fiber] = deadline
          return
        }
      case .sequence(let effects, let next):
        // `perform(.concatenate)` stops once its task is cancelled.
        guard !isCancelled, next < effects.count else { continue }
        // Past the first element, which slept: the concatenation goes on after it ended.
        if next > 0 { trace.features.insert(.concatenateContinued) }
        fibers[fiber].stack.append(.sequence(effects, next: next + 1))
        switch effects[next] {
        case .none:
          break
        case .send(let node):
          if mustSleepFirst { throw unsupported("sends") }
          try send(node)
        case .cancel(let id):
          if mustSleepFirst { throw unsupported("cancels") }
          try cancel(id)
        case .run(let index):
          fibers[fiber].stack.append(.ops(run: index, next: 0))
        case .concatenate(let inner):
          fibers[fiber].stack.append(.sequence(inner, next: 0))
        case .merge(let children):
          // Child tasks, started together: each must sleep before doing anything else.
          trace.features.insert(.mergeInTask)
          fibers[fiber].pendingChildren = children.count
          let task = fibers[fiber].task
          for child in children {
            fibers.append(Fiber(task: task, stack: [.sequence([child], next: 0)], parent: fiber))
            try resume(fibers.count - 1, mustSleepFirst: true)
          }
          return
        case .cancellable:
          throw ProgramViolation(description: "a cancellable effect inside a concatenation")
        }
      }
    }
  }

  mutating func ended(_ fiber: Int) throws(ProgramViolation) {
    guard let parent = fibers[fiber].parent else {
      tasks[fibers[fiber].task].hasEnded = true
      return
    }
    fibers[parent].pendingChildren -= 1
    if fibers[parent].pendingChildren == 0 {
      try resume(parent, mustSleepFirst: false)
    }
  }

  /// `.cancel(id:)`: cancels every task started under `id` that has not ended.
  mutating func cancel(_ id: Int) throws(ProgramViolation) {
    for task in tasks.indices
    where tasks[task].cancelIDs.contains(id) && !tasks[task].isCancelled
      && !tasks[task].hasEnded
    {
      if tasks[task].phase == phase {
        // Whether its first sleep registers before the cancellation is a race.
        throw ProgramViolation(
          description: "cancels a task started at the same instant (id \(id))")
      }
      tasks[task].isCancelled = true
      trace.features.insert(task == activeTask ? .selfCancel : .cancelledSleeper)
      // Its sleepers wake with `CancellationError`: each run ends, and so do the
      // concatenations and merges around it.
      for fiber in sleepers.keys.sorted() where fibers[fiber].task == task {
        guard sleepers.removeValue(forKey: fiber) != nil else { continue }
        counts.sleepsEnded += 1
        fibers[fiber].stack.removeLast()
        try resume(fiber, mustSleepFirst: false)
      }
    }
  }

  // MARK: Deadlines

  mutating func deadline(run: Int, op: Int) throws(ProgramViolation) -> Int {
    if var rng = assigner {
      switch program.runs[run][op] {
      case .sleepFor:
        var amount = Int.random(in: 1...3, using: &rng)
        while usedDeadlines.contains(time + amount) { amount += 1 }
        program.runs[run][op] = .sleepFor(amount)
      case .sleepUntil:
        var instant = time + Int.random(in: 1...3, using: &rng)
        while usedDeadlines.contains(instant) { instant += 1 }
        program.runs[run][op] = .sleepUntil(instant)
      case .send:
        preconditionFailure("not a sleep")
      }
      assigner = rng
      assigned.insert(SleepRef(run: run, op: op))
    }
    let deadline: Int
    switch program.runs[run][op] {
    case .sleepFor(let amount):
      trace.features.insert(.sleepFor)
      guard amount >= 1 else {
        throw ProgramViolation(description: "a sleep of less than a second")
      }
      deadline = time + amount
    case .sleepUntil(let instant):
      trace.features.insert(.sleepUntil)
      guard instant > time else {
        throw ProgramViolation(description: "a sleep until \(instant) reached at \(time)")
      }
      deadline = instant
    case .send:
      preconditionFailure("not a sleep")
    }
    guard usedDeadlines.insert(deadline).inserted else {
      throw ProgramViolation(description: "two sleeps share the deadline \(deadline)")
    }
    trace.deadlines.append(deadline)
    return deadline
  }
}

extension ProgramEffect {
  fileprivate var startsWithSend: Bool {
    switch self {
    case .send: true
    case .merge(let effects), .concatenate(let effects): effects.contains(where: \.startsWithSend)
    case .cancellable(_, let inner): inner.startsWithSend
    case .none, .run, .cancel: false
    }
  }
}

// MARK: - Generating

extension EffectProgram {
  /// A random program from `seed`, within the shapes whose production order is deterministic.
  ///
  /// Every run's body starts with a sleep, and a concatenation run in a task starts with a run
  /// (or a merge of such): a task started by an action does nothing the store can see until it
  /// has slept, so it cannot race with whoever started it. Every sleep gets a deadline that no
  /// other sleep of the program has, later than the instant the model reaches it at, so that
  /// one sleeper wakes per instant. Actions a reducer or a woken run sends are reduced on that
  /// one thread, so the order within an instant is fixed. Left out: `.cancellable` inside a
  /// concatenation (when it is cancelled, the concatenation goes on at the same time as the run
  /// that cancelled it), and a `.cancel` that reaches a task started at the same instant
  /// (whether that task's first sleep registers before it is cancelled is a race).
  ///
  /// - Parameters:
  ///   - seed: The seed; the same seed gives the same program.
  ///   - maxNodes: The most nodes (actions) the program has.
  public static func generate(seed: UInt64, maxNodes: Int = 12) -> EffectProgram {
    var rng = SplitMix64(seed: seed)
    while true {
      let size = Int.random(in: 2...maxNodes, using: &rng)
      var builder = Builder(rng: rng, maxNodes: size)
      let structure = builder.build()
      rng = builder.rng
      if let program = structure.timed(using: &rng) { return program }
    }
  }
}

private struct Builder {
  var rng: SplitMix64
  let maxNodes: Int
  var nodes: [ProgramEffect] = [.none]
  var runs: [[RunOp]] = []
  var cancelIDCount = 0
  /// Nodes to generate, with the cancellation ids of the run that sends them.
  var queue: [(node: Int, sender: [Int])] = [(0, [])]

  init(rng: SplitMix64, maxNodes: Int) {
    self.rng = rng
    self.maxNodes = maxNodes
  }

  mutating func build() -> EffectProgram {
    var next = 0
    while next < queue.count {
      let (node, sender) = queue[next]
      next += 1
      nodes[node] = nodeEffect(sender: sender)
    }
    return EffectProgram(nodes: nodes.map(\.normalized), runs: runs)
  }

  mutating func chance(_ probability: Double) -> Bool {
    Double.random(in: 0..<1, using: &rng) < probability
  }

  mutating func newNode(sender: [Int]) -> Int? {
    guard nodes.count < maxNodes else { return nil }
    nodes.append(.none)
    queue.append((nodes.count - 1, sender))
    return nodes.count - 1
  }

  mutating func cancelID() -> Int {
    if cancelIDCount == 0 || chance(0.5) {
      cancelIDCount += 1
      return cancelIDCount - 1
    }
    return Int.random(in: 0..<cancelIDCount, using: &rng)
  }

  /// The effect of a node sent by a run with the cancellation ids `sender` (empty otherwise).
  mutating func nodeEffect(sender: [Int]) -> ProgramEffect {
    if let id = sender.randomElement(using: &rng), chance(0.4) {
      // The run cancels itself through the action it sent.
      return chance(0.5)
        ? .cancel(id: id)
        : .merge([effect(depth: 1, sender: sender), .cancel(id: id)].shuffled(using: &rng))
    }
    return effect(depth: 0, sender: sender)
  }

  /// An effect a reducer returns.
  mutating func effect(depth: Int, sender: [Int], cancelIDs: [Int] = []) -> ProgramEffect {
    let roll = Int.random(in: 0..<20, using: &rng)
    switch roll {
    case 0:
      return .none
    case 1...3:
      // Synchronous sends keep the sender's ids: they are reduced during its `send`.
      return newNode(sender: sender).map(ProgramEffect.send) ?? run(cancelIDs: cancelIDs)
    case 4...8:
      return run(cancelIDs: cancelIDs)
    case 9...10 where depth < 3:
      return .merge(
        (0..<Int.random(in: 2...3, using: &rng)).map { _ in
          effect(depth: depth + 1, sender: sender, cancelIDs: cancelIDs)
        })
    case 11:
      return .concatenate(
        (0..<Int.random(in: 2...3, using: &rng)).map { _ in synchronousEffect(sender: sender) })
    case 12...14 where depth < 3:
      var elements = [taskStart(depth: depth + 1, cancelIDs: cancelIDs)]
      for _ in 0..<Int.random(in: 1...2, using: &rng) {
        elements.append(taskElement(depth: depth + 1, cancelIDs: cancelIDs))
      }
      return .concatenate(elements)
    case 15...17 where depth < 3:
      let id = cancelID()
      return .cancellable(
        id: id, effect(depth: depth + 1, sender: sender, cancelIDs: cancelIDs + [id]))
    case 18 where cancelIDCount > 0:
      return .cancel(id: Int.random(in: 0..<cancelIDCount, using: &rng))
    default:
      return run(cancelIDs: cancelIDs)
    }
  }

  mutating func synchronousEffect(sender: [Int]) -> ProgramEffect {
    if cancelIDCount > 0, chance(0.3) {
      return .cancel(id: Int.random(in: 0..<cancelIDCount, using: &rng))
    }
    return newNode(sender: sender).map(ProgramEffect.send) ?? .none
  }

  /// The first element of a concatenation run in a task: it must sleep before anything else.
  mutating func taskStart(depth: Int, cancelIDs: [Int]) -> ProgramEffect {
    let roll = Int.random(in: 0..<10, using: &rng)
    if roll == 0, depth < 4 {
      return .merge([taskStart(depth: depth + 1, cancelIDs: cancelIDs), run(cancelIDs: cancelIDs)])
    }
    if roll == 1, depth < 4 {
      return .concatenate([
        taskStart(depth: depth + 1, cancelIDs: cancelIDs),
        taskElement(depth: depth + 1, cancelIDs: cancelIDs),
      ])
    }
    return run(cancelIDs: cancelIDs)
  }

  /// A later element of a concatenation run in a task.
  mutating func taskElement(depth: Int, cancelIDs: [Int]) -> ProgramEffect {
    let roll = Int.random(in: 0..<10, using: &rng)
    switch roll {
    case 0...4:
      return taskStart(depth: depth, cancelIDs: cancelIDs)
    case 5...8:
      // Sent from the concatenation's task: it may cancel that task.
      return newNode(sender: cancelIDs).map(ProgramEffect.send) ?? run(cancelIDs: cancelIDs)
    default:
      if cancelIDCount > 0 { return .cancel(id: Int.random(in: 0..<cancelIDCount, using: &rng)) }
      return run(cancelIDs: cancelIDs)
    }
  }

  /// A run: a sleep first, then sends and sleeps, at most four sleeps in all.
  mutating func run(cancelIDs: [Int]) -> ProgramEffect {
    var ops = [sleep()]
    var sleeps = 1
    for _ in 0..<Int.random(in: 0...5, using: &rng) {
      if sleeps < 4, chance(0.4) {
        ops.append(sleep())
        sleeps += 1
      } else if let node = newNode(sender: cancelIDs) {
        ops.append(.send(node))
      }
    }
    runs.append(ops)
    return .run(runs.count - 1)
  }

  mutating func sleep() -> RunOp {
    chance(0.5) ? .sleepFor(0) : .sleepUntil(0)
  }
}

// MARK: - Shrinking

extension EffectProgram {
  /// Smaller programs to try when this one fails, biggest cuts first, each within the
  /// deterministic shapes: a node's effect simplified (its sends gone with the nodes they
  /// sent), or a run's step removed.
  public func smallerCandidates() -> [EffectProgram] {
    var candidates: [EffectProgram] = []
    for node in nodes.indices {
      for simpler in nodes[node].simplifications {
        var candidate = self
        candidate.nodes[node] = simpler
        candidates.append(candidate)
      }
    }
    for run in runs.indices {
      for op in runs[run].indices {
        var candidate = self
        candidate.runs[run].remove(at: op)
        candidates.append(candidate)
      }
    }
    return candidates.compactMap { $0.compacted().retimed() }
  }

  /// Keeps the deadlines if they are still valid, or chooses new ones.
  private func retimed() -> EffectProgram? {
    if (try? simulate()) != nil { return self }
    var rng = SplitMix64(seed: 0)
    return timed(using: &rng)
  }

  /// Drops the nodes and runs nothing refers to any more, and numbers the rest in order.
  private func compacted() -> EffectProgram {
    var nodeNumbers: [Int: Int] = [0: 0]
    var runNumbers: [Int: Int] = [:]
    var order = [0]
    var runOrder: [Int] = []
    var next = 0
    func visit(_ effect: ProgramEffect) {
      switch effect {
      case .send(let node):
        if nodeNumbers[node] == nil {
          nodeNumbers[node] = order.count
          order.append(node)
        }
      case .run(let run):
        if runNumbers[run] == nil {
          runNumbers[run] = runOrder.count
          runOrder.append(run)
          for case .send(let node) in runs[run] { visit(.send(node)) }
        }
      case .merge(let effects), .concatenate(let effects): effects.forEach(visit)
      case .cancellable(_, let inner): visit(inner)
      case .none, .cancel: break
      }
    }
    while next < order.count {
      visit(nodes[order[next]].normalized)
      next += 1
    }
    func renumber(_ effect: ProgramEffect) -> ProgramEffect {
      switch effect {
      case .send(let node): .send(nodeNumbers[node]!)
      case .run(let run): .run(runNumbers[run]!)
      case .merge(let effects): .merge(effects.map(renumber))
      case .concatenate(let effects): .concatenate(effects.map(renumber))
      case .cancellable(let id, let inner): .cancellable(id: id, renumber(inner))
      case .none, .cancel: effect
      }
    }
    return EffectProgram(
      nodes: order.map { renumber(nodes[$0].normalized) },
      runs: runOrder.map { run in
        runs[run].map { op in
          if case .send(let node) = op { return .send(nodeNumbers[node]!) }
          return op
        }
      })
  }
}

extension ProgramEffect {
  /// Every effect one step simpler than this one.
  fileprivate var simplifications: [ProgramEffect] {
    switch self {
    case .none:
      return []
    case .send, .run, .cancel:
      return [.none]
    case .merge(let effects), .concatenate(let effects):
      let rebuild: ([ProgramEffect]) -> ProgramEffect = {
        if case .merge = self { return .merge($0) }
        return .concatenate($0)
      }
      var result: [ProgramEffect] = [.none]
      result += effects
      for index in effects.indices {
        var fewer = effects
        fewer.remove(at: index)
        result.append(rebuild(fewer))
      }
      for index in effects.indices {
        for simpler in effects[index].simplifications {
          var changed = effects
          changed[index] = simpler
          result.append(rebuild(changed))
        }
      }
      return result
    case .cancellable(let id, let inner):
      return [.none, inner] + inner.simplifications.map { .cancellable(id: id, $0) }
    }
  }
}
