import Foundation
import Synchronization
import Testing
import Unidirectional
import UnidirectionalTestSupport

// Other threads reading row stores and child stores (their `SpinLocked` last states) and
// registering observers while the owner runs observers. Run under ThreadSanitizer.

extension ObservationLentPathsTests {
  /// Other threads read a row store (present, removed, re-inserted) and the root while the owner
  /// runs observers and rewrites the row: the last known state (`SpinLocked`) and
  /// `activeThread` are shared between them. Run under ThreadSanitizer.
  @Test(.timeLimit(.minutes(1))) func readsFromOtherThreadsWhileTheOwnerRunsObservers() async {
    let store = makeHashedIDRowsStore(Array(0..<4))
    let row = store.scope(
      state: \.rows, id: 1,
      action: { (v: Int) in
        HashedIDRowsAction { $0.rows[id: 1]?.title = v }
      })!
    let runs = Atomic<Int>(0)
    let token = store.observe {
      _ = store[\.rows, id: 1, \.title]
      _ = store.other
      runs.add(1, ordering: .relaxed)
    }
    let rowToken = row.observe {
      _ = row.title
      runs.add(1, ordering: .relaxed)
    }
    let done = Atomic<Bool>(false)
    let finished = Atomic<Int>(0)
    let readers = (0..<2).map { _ in
      Thread {
        defer { finished.add(1, ordering: .releasing) }
        var sum = 0
        while !done.load(ordering: .relaxed) {
          sum &+= row.title
          sum &+= row.id
          sum &+= store.other
          sum &+= store[\.rows, id: 1, \.title] ?? 0
        }
        _ = sum
      }
    }
    for reader in readers { reader.start() }
    for value in 1...2_000 {
      switch value % 4 {
      case 1: store.send(HashedIDRowsAction { _ = $0.rows.remove(id: 1) })
      case 2: store.send(HashedIDRowsAction { $0.rows.append(HashedIDRow(id: 1, title: value)) })
      case 3: row.send(value)
      default: store.send(HashedIDRowsAction { $0.other = value })
      }
    }
    done.store(true, ordering: .relaxed)
    // Let the readers stop before the store goes.
    while finished.load(ordering: .acquiring) < readers.count {
      // wall-clock: paces a poll of a count the readers keep; no result depends on the time.
      try? await Task.sleep(for: .milliseconds(5))
    }
    #expect(runs.load(ordering: .relaxed) > 0)
    withExtendedLifetime((token, rowToken)) {}
  }

  /// Observers of a row store and of the root registered from other threads (first runs on
  /// recorders that do not own the store) while the owner runs the existing observers with its
  /// drain recorder: each must end subscribed to what it read, and fire on the next change.
  @Test(.timeLimit(.minutes(1))) func observersRegisteredFromOtherThreadsWhileTheOwnerRuns() async {
    let store = makeHashedIDRowsStore(Array(0..<4))
    let row = store.scope(
      state: \.rows, id: 2,
      action: { (v: Int) in
        HashedIDRowsAction { $0.rows[id: 2]?.title = v }
      })!
    let existing = store.observe {
      _ = store[\.rows, id: 2, \.title]
      _ = row.title
    }
    let tokens = Locked<[ObservationToken]>([])
    let lastSeen = Locked<[Int: Int]>([:])
    let finished = Atomic<Int>(0)
    let threads = (0..<2).map { thread in
      Thread {
        defer { finished.add(1, ordering: .releasing) }
        for index in 0..<100 {
          let key = thread * 1_000 + index
          let token: ObservationToken
          if index % 2 == 0 {
            token = row.observe {
              let title = row.title
              lastSeen.withLock { $0[key] = title }
            }
          } else {
            token = store.observe {
              let title = store[\.rows, id: 2, \.title] ?? -1
              lastSeen.withLock { $0[key] = title }
            }
          }
          tokens.withLock { $0.append(token) }
        }
      }
    }
    for thread in threads { thread.start() }
    var value = 0
    // A bounded number of sends while the threads register: each send re-runs every observer
    // registered so far, and under ThreadSanitizer the threads can be starved of the store for
    // as long as it sends.
    while finished.load(ordering: .acquiring) < threads.count, value < 500 {
      value += 1
      row.send(value)
      let other = value
      store.send(HashedIDRowsAction { $0.other = other })
    }
    while finished.load(ordering: .acquiring) < threads.count {
      // wall-clock: paces a poll of a count the readers keep; no result depends on the time.
      try? await Task.sleep(for: .milliseconds(5))
    }
    value += 1
    row.send(value)
    let seen = lastSeen.withLock { $0 }
    #expect(seen.count == 200)
    #expect(seen.values.allSatisfy { $0 == value }, "\(seen.filter { $0.value != value })")
    for token in tokens.withLock({ $0 }) { token.cancel() }
    withExtendedLifetime(existing) {}
  }

  /// A child store's last known state (`SpinLocked`) is written by the owner after each action
  /// that writes the child and read by other threads once the child is gone: the child comes
  /// and goes while they read. Run under ThreadSanitizer.
  @Test(.timeLimit(.minutes(1))) func optionalChildComingAndGoingWhileOtherThreadsRead() async {
    struct Child: Sendable, Equatable {
      var value = 0
      var name = "child"
    }
    struct Parent: Sendable {
      var child: Child? = Child()
      var other = 0
    }
    struct ParentAction: Sendable {
      let apply: @Sendable (inout Parent) -> Void
    }
    let store = Store(
      initialState: Parent(),
      reducer: Reduce<Parent, ParentAction> { state, action in
        action.apply(&state)
        return .none
      })
    let child = store.scope(
      state: \.child,
      action: { (v: Int) in
        ParentAction { $0.child?.value = v }
      })!
    let runs = Atomic<Int>(0)
    let token = child.observe {
      _ = child.value
      runs.add(1, ordering: .relaxed)
    }
    let done = Atomic<Bool>(false)
    let finished = Atomic<Int>(0)
    let readers = (0..<2).map { _ in
      Thread {
        defer { finished.add(1, ordering: .releasing) }
        var sum = 0
        while !done.load(ordering: .relaxed) {
          sum &+= child.value
          sum &+= child.name.count
        }
        _ = sum
      }
    }
    for reader in readers { reader.start() }
    for value in 1...2_000 {
      switch value % 3 {
      case 0: store.send(ParentAction { $0.child = nil })
      case 1: store.send(ParentAction { $0.child = Child(value: value, name: "child \(value)") })
      default: child.send(value)
      }
    }
    done.store(true, ordering: .relaxed)
    while finished.load(ordering: .acquiring) < readers.count {
      // wall-clock: paces a poll of a count the readers keep; no result depends on the time.
      try? await Task.sleep(for: .milliseconds(5))
    }
    // Gone now (2,000 % 3 == 2 wrote it; 1,999 % 3 == 1 made it): the last value stays readable.
    store.send(ParentAction { $0.child = nil })
    #expect(child.value == 2_000)
    #expect(runs.load(ordering: .relaxed) > 0)
    withExtendedLifetime(token) {}
  }
}
