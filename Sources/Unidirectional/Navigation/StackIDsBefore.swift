/// The ids of a stack before an action, which its reducer compares with those after.
@usableFromInline
protocol StackIDsBefore {
  /// Whether `id` is one of the ids.
  func contains(_ id: StackElementID) -> Bool
  /// The ids, in increasing order.
  var all: [StackElementID] { get }
}

extension Array: StackIDsBefore where Element == StackElementID {
  @usableFromInline var all: [StackElementID] { self }
}

/// Consecutive ids of a stack, told by the lowest and the highest.
@usableFromInline
struct ConsecutiveStackIDs: StackIDsBefore {
  @usableFromInline let low: Int
  /// Below `low` for no ids.
  @usableFromInline let high: Int

  /// The ids of `stack`, or `nil` if they are not consecutive.
  @inlinable @inline(__always)
  init?<Element>(_ stack: UnsafeMutablePointer<StackState<Element>>) {
    // Read in place: a copy of the array would be a reference.
    let count = stack.pointee.ids.count
    guard count > 0 else {
      (low, high) = (0, -1)
      return
    }
    low = stack.pointee.ids[0].generation
    high = stack.pointee.ids[count &- 1].generation
    // A stack's ids strictly increase: `count` of them span `count` values only if they are
    // every value between the lowest and the highest.
    guard high &- low == count &- 1 else { return nil }
  }

  @usableFromInline
  func contains(_ id: StackElementID) -> Bool {
    low <= id.generation && id.generation <= high
  }

  @usableFromInline
  var all: [StackElementID] {
    (low..<high &+ 1).map { StackElementID(generation: $0) }
  }
}
