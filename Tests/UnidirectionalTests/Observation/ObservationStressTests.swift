// Over 300 lines on purpose: one stress test, whose iteration (one function) sets up every kind
// of observer and runs the senders, the canceller and the registrar against them at once.

import Foundation
import Testing
import Unidirectional
import UnidirectionalTestSupport

/// Observation under concurrency, meant to run under ThreadSanitizer as well:
/// `swift test --sanitize=thread --filter ObservationStressTests`.
///
/// Each iteration builds a root store with rows, row stores (`scope(state: \.rows, id:action:)`)
/// and observers of both. Some observers' closures hold the only references to other tokens
/// and to row stores, so releasing a closure runs those deinits, which call back into the store.
/// Observers cancel themselves and each other while they run; other threads send actions
/// (through the root store and through row stores), remove and re-add rows, register observers
/// and cancel tokens while observers run.
///
/// It checks that every action is applied; that an observer never sees the state go back, never
/// sees a half-applied action, and that one never cancelled saw the last state; that no observer
/// runs, and no closure is released, under a store lock; and that once every token is gone the
/// store's observation footprint is empty and everything was freed. Iterations run in batches on
/// a thread of their own, so that a deadlock fails the test instead of hanging it.
@Suite struct ObservationStressTests {
  struct Row: Identifiable, Equatable, Sendable {
    let id: Int
    var value: Int
  }

  struct State: Sendable {
    var counter = 0
    /// Always equal to `counter` in a committed state (the reducer writes both).
    var shadow = 0
    var rows = IdentifiedArray(uniqueElements: (0..<6).map { Row(id: $0, value: 0) })
    var noise = 0
  }

  enum RowAction: Sendable {
    case set(Int)
  }

  enum Action: Sendable {
    case increment
    case noise(Int)
    case row(id: Int, RowAction)
    case removeRow(id: Int)
    case addRow(id: Int)
  }

  static let reducer = Reduce<State, Action> { state, action in
    switch action {
    case .increment:
      state.counter += 1
      state.shadow = state.counter
    case .noise(let value): state.noise = value
    case .row(let id, .set(let value)): state.rows[id: id]?.value = value
    case .removeRow(let id): state.rows.remove(id: id)
    case .addRow(let id):
      if state.rows[id: id] == nil { state.rows.append(Row(id: id, value: 0)) }
    }
    return .none
  }

  /// Captured by observer closures: its deinit runs when the closure is released, and must not
  /// run under a store lock.
  final class Canary: Sendable {
    let name: String
    let problems: Log<String>

    init(_ name: String, problems: Log<String>) {
      self.name = name
      self.problems = problems
    }

    deinit {
      if StoreLockDiagnostics.isHeldByCurrentThread {
        problems.append("\(name) was released under a store lock")
      }
    }
  }

  /// Holds one token; any thread may take it out and cancel it (outside the slot's lock).
  final class Slot: Sendable {
    private let token = Locked<ObservationToken?>(nil)

    func put(_ new: ObservationToken) {
      let old = token.withLock { token in
        defer { token = new }
        return token
      }
      old?.cancel()
    }

    func cancel() {
      let taken = token.withLock { token in
        defer { token = nil }
        return token
      }
      taken?.cancel()
    }
  }

  /// What an iteration does. All on by default; `UNIDIRECTIONAL_STRESS_OFF` lists the ones to
  /// switch off (comma-separated), to isolate a failure.
  enum Feature: String, CaseIterable, Sendable {
    /// Observer closures holding the only references to row stores.
    case capturedRowStores
    /// Observer closures holding the only references to other tokens.
    case capturedTokens
    /// Observers cancelling themselves while running.
    case selfCancel
    /// Observers cancelling other observers while running.
    case cancelOther
    /// A thread cancelling tokens while observers run.
    case crossThreadCancel
    /// A thread registering observers while the store is busy.
    case lateRegistration
    /// Rows removed and added again while row stores read them.
    case rowChurn
    /// The footprint must be empty once every token is gone.
    case footprintCheck

    static var enabled: Set<Feature> {
      let off = ProcessInfo.processInfo.environment["UNIDIRECTIONAL_STRESS_OFF"] ?? ""
      return Set(allCases).subtracting(
        off.split(separator: ",").compactMap { Feature(rawValue: String($0)) })
    }
  }

  static let senders = 2
  static let incrementsPerSender = 20

  static func checkLock(_ place: String, _ problems: Log<String>) {
    if StoreLockDiagnostics.isHeldByCurrentThread {
      problems.append("\(place) ran under a store lock")
    }
  }

  /// One iteration; problems go to `problems`, objects that must be freed to `leaks`.
  static func iteration(
    seed: UInt64, features: Set<Feature>, problems: Log<String>, leaks: LeakTracker
  ) {
    let capturesTokens = features.contains(.capturedTokens)
    let capturesRowStores = features.contains(.capturedRowStores)
    let cancelsSelf = features.contains(.selfCancel)
    let cancelsOther = features.contains(.cancelOther)
    let store = Store(initialState: State(), reducer: reducer, onIssue: { _ in })
    leaks.track(store, "the store of iteration \(seed)")
    let slots = (0..<10).map { _ in Slot() }

    // Never cancelled until the end: sees the state only move forward, and sees the last one.
    let stableLast = Locked(-1)
    let stable = store.observe { [weak store] in
      guard let store else { return }
      checkLock("the stable observer", problems)
      let counter = store.counter
      stableLast.withLock { last in
        if counter < last { problems.append("the stable observer saw \(counter) after \(last)") }
        last = counter
      }
    }

    // Reads two values an action writes together: from its second run on (runs after an
    // action), it must never see one without the other.
    let pairRuns = Locked(0)
    let pair = store.observe { [weak store] in
      guard let store else { return }
      checkLock("the pair observer", problems)
      let counter = store.counter
      let shadow = store.shadow
      let run = pairRuns.withLock { runs in
        runs += 1
        return runs
      }
      if run > 1, counter != shadow {
        problems.append("an observer saw counter \(counter) with shadow \(shadow)")
      }
    }

    // Observers whose closures hold the only references to other tokens and to row stores.
    for index in 0..<4 {
      let canary = Canary(
        "the closure of observer \(index) (iteration \(seed))", problems: problems)
      leaks.track(canary, "canary \(index) of iteration \(seed)")
      let inner =
        capturesTokens
        ? store.observe { [weak store] in
          checkLock("an inner observer", problems)
          _ = store?.noise
        } : nil
      guard
        let scoped = store.scope(state: \.rows, id: index, action: { Action.row(id: index, $0) })
      else {
        problems.append("no store for row \(index)")
        continue
      }
      leaks.track(scoped, "row store \(index) of iteration \(seed)")
      let rowCanary = Canary("the closure of row observer \(index)", problems: problems)
      let rowToken =
        capturesTokens
        ? scoped.observe { [weak scoped] in
          checkLock("a row observer", problems)
          withExtendedLifetime(rowCanary) {}
          _ = scoped?.value
        } : nil
      let row = capturesRowStores ? scoped : nil
      let selfPeriod = 3 + index
      let otherPeriod = 4 + index
      slots[index].put(
        store.observe { [weak store] in
          withExtendedLifetime((canary, inner, row, rowToken)) {}
          guard let store else { return }
          checkLock("observer \(index)", problems)
          let counter = store.counter
          _ = row?.value
          if cancelsSelf, counter > 0, counter % selfPeriod == 0 { slots[index].cancel() }
          if cancelsOther, counter > 0, counter % otherPeriod == 0 {
            slots[(index + 1) % 4].cancel()
          }
        })
    }

    // Observers registered on row stores that only their closures keep alive, capturing
    // another row store too.
    for index in 4..<6 where capturesRowStores {
      guard
        let host = store.scope(state: \.rows, id: index, action: { Action.row(id: index, $0) }),
        let other = store.scope(
          state: \.rows, id: index - 4, action: { Action.row(id: index - 4, $0) })
      else { continue }
      let canary = Canary("the closure of row-hosted observer \(index)", problems: problems)
      leaks.track(canary, "row-hosted canary \(index) of iteration \(seed)")
      slots[index].put(
        host.observe {
          withExtendedLifetime((canary, other)) {}
          checkLock("row-hosted observer \(index)", problems)
          if cancelsSelf, host.value % 3 == 2 { slots[index].cancel() }
          _ = other.value
        })
    }

    // Senders, a canceller and a registrar, at once.
    let seedBase = seed
    DispatchQueue.concurrentPerform(iterations: senders + 2) { worker in
      var random = SplitMix64(seed: seedBase &* 31 &+ UInt64(worker))
      switch worker {
      case 0..<senders:
        let rowStores = (0..<6).compactMap { id in
          store.scope(state: \.rows, id: id) { Action.row(id: id, $0) }
        }
        for step in 0..<incrementsPerSender {
          store.send(.increment)
          let id = Int.random(in: 0..<6, using: &random)
          switch Int.random(in: 0..<5, using: &random) {
          case 0: store.send(.row(id: id, .set(step)))
          case 1: rowStores.randomElement(using: &random)?.send(.set(step))
          case 2 where features.contains(.rowChurn): store.send(.removeRow(id: id))
          case 3 where features.contains(.rowChurn): store.send(.addRow(id: id))
          default: store.send(.noise(step))
          }
        }
      case senders:
        guard features.contains(.crossThreadCancel) else { return }
        for _ in 0..<12 {
          slots[Int.random(in: 0..<6, using: &random)].cancel()
          sched_yield()
        }
      default:
        guard features.contains(.lateRegistration) else { return }
        for index in 6..<10 {
          let canary = Canary("the closure of late observer \(index)", problems: problems)
          leaks.track(canary, "late canary \(index) of iteration \(seedBase)")
          slots[index].put(
            store.observe { [weak store] in
              withExtendedLifetime(canary) {}
              checkLock("late observer \(index)", problems)
              guard let store else { return }
              if cancelsSelf, store.counter % 5 == 4 { slots[index].cancel() }
            })
        }
        slots[Int.random(in: 6..<10, using: &random)].cancel()
      }
    }

    // Every sender's `send` returned, so every action was reduced (an action queued by one
    // thread is reduced before the draining thread's `send` returns).
    let last = stableLast.withLock { $0 }
    stable.cancel()
    pair.cancel()
    for slot in slots { slot.cancel() }
    let footprint = store.observationFootprint
    if features.contains(.footprintCheck),
      footprint != ObservationFootprint(observers: 0, probes: 0, trackedReads: 0)
    {
      problems.append("iteration \(seed): with every token cancelled, the store holds \(footprint)")
    }
    let total = senders * incrementsPerSender
    let counter = store.counter
    if counter != total { problems.append("iteration \(seed): counter \(counter), not \(total)") }
    if last != total {
      problems.append("iteration \(seed): the stable observer last saw \(last), not \(total)")
    }
  }

  /// 10,000 iterations in batches of 100, each batch given two minutes (ThreadSanitizer is slow).
  @Test func observersCancelledAndRegisteredWhileOtherThreadsSend() async {
    let iterations = 10_000
    let batch = 100
    let features = Feature.enabled
    for start in stride(from: 0, to: iterations, by: batch) {
      let problems = Log<String>()
      let leaks = LeakTracker()
      let finished = await finishes(within: .seconds(120)) {
        for seed in start..<(start + batch) {
          Self.iteration(seed: UInt64(seed), features: features, problems: problems, leaks: leaks)
        }
      }
      guard finished else {
        Issue.record(
          Comment(
            rawValue: "iterations \(start)..<\(start + batch) did not finish within two minutes: "
              + "the store deadlocked"))
        return
      }
      let found = problems.values
      if !found.isEmpty {
        Issue.record(
          Comment(
            rawValue: "iterations \(start)..<\(start + batch): \(found.count) problems, first: "
              + found.prefix(5).joined(separator: "; ")))
        return
      }
      let alive = leaks.alive
      if !alive.isEmpty {
        Issue.record(
          Comment(
            rawValue: "iterations \(start)..<\(start + batch): still alive: "
              + alive.prefix(5).joined(separator: ", ")))
        return
      }
    }
  }
}
