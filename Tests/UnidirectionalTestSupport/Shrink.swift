/// Finds a small sub-sequence of `events` that still fails, for printing with a failure.
///
/// A delta-debugging pass: it tries removing chunks of halving size, keeping each removal after
/// which `fails` still returns `true`, and repeats until removing any single event makes the
/// failure go away. Then it tries removing every pair of events, which catches steps that only
/// matter together (an action and the one that undoes it).
///
/// - Parameters:
///   - events: A sequence for which `fails` returns `true`.
///   - fails: Replays a candidate sequence and reports whether it still fails. It must be
///     deterministic.
/// - Returns: A sub-sequence of `events`, in the original order, for which `fails` is `true`.
/// - Complexity: O(*n* log *n*) calls to `fails` in the common case, O(*n*²) at worst, plus
///   O(*m*²) for the pairs, where *m* is the length after the first pass.
public func shrink<Event>(_ events: [Event], while fails: ([Event]) -> Bool) -> [Event] {
  var events = events
  var chunk = max(events.count / 2, 1)
  while !events.isEmpty {
    var removedAny = false
    var start = 0
    while start < events.count {
      var candidate = events
      candidate.removeSubrange(start..<min(start + chunk, events.count))
      if fails(candidate) {
        events = candidate
        removedAny = true
      } else {
        start += chunk
      }
    }
    if chunk == 1 && !removedAny { break }
    chunk = removedAny ? chunk : max(chunk / 2, 1)
  }
  var first = 0
  while first < events.count {
    var second = first + 1
    while second < events.count {
      var candidate = events
      candidate.remove(at: second)
      candidate.remove(at: first)
      if fails(candidate) {
        events = candidate
        second = first + 1
      } else {
        second += 1
      }
    }
    first += 1
  }
  return events
}

/// ``shrink(_:while:)`` for a replay that suspends (one that awaits deliveries between events,
/// for example): the same passes, awaiting `fails`.
///
/// - Parameters:
///   - events: A sequence for which `fails` returns `true`.
///   - fails: Replays a candidate sequence and reports whether it still fails. It must be
///     deterministic.
/// - Returns: A sub-sequence of `events`, in the original order, for which `fails` is `true`.
public func shrink<Event>(
  _ events: [Event], while fails: ([Event]) async -> Bool
) async -> [Event] {
  var events = events
  var chunk = max(events.count / 2, 1)
  while !events.isEmpty {
    var removedAny = false
    var start = 0
    while start < events.count {
      var candidate = events
      candidate.removeSubrange(start..<min(start + chunk, events.count))
      if await fails(candidate) {
        events = candidate
        removedAny = true
      } else {
        start += chunk
      }
    }
    if chunk == 1 && !removedAny { break }
    chunk = removedAny ? chunk : max(chunk / 2, 1)
  }
  var first = 0
  while first < events.count {
    var second = first + 1
    while second < events.count {
      var candidate = events
      candidate.remove(at: second)
      candidate.remove(at: first)
      if await fails(candidate) {
        events = candidate
        second = first + 1
      } else {
        second += 1
      }
    }
    first += 1
  }
  return events
}
