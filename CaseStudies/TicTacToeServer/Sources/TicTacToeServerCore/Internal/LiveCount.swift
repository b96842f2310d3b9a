import Synchronization

/// How many objects of one kind are alive: each ``Counted`` adds one while it lives.
///
/// A count of objects, not of table entries: a session or game that leaves the server's tables
/// but is still held (by a cycle through an observer, a timer's task, a frame waiting for the
/// journal) stays counted until it is freed. That is what a leak looks like.
final class LiveCount: Sendable {
  private let count = Atomic<Int>(0)

  /// The objects alive now.
  var value: Int { count.load(ordering: .relaxed) }

  fileprivate func add(_ delta: Int) {
    count.add(delta, ordering: .relaxed)
  }
}

/// One object of a ``LiveCount``: held by the object counted (a field, or a closure's capture),
/// it is freed with it.
final class Counted: Sendable {
  private let tally: LiveCount

  init(_ tally: LiveCount) {
    self.tally = tally
    tally.add(1)
  }

  deinit { tally.add(-1) }
}
