/// The identity of an element of a ``StackState``: assigned when the element is pushed, kept
/// while it stays on the stack, never given to another element of that stack.
///
/// Ids are generations counted from 0 in each stack, so tests can write them as literals:
///
/// ```swift
/// await store.send(.path(.element(id: 0, action: .saveTapped)))
/// ```
public struct StackElementID: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// The element's generation in its stack: the number of elements pushed before it.
  @usableFromInline let generation: Int

  init(generation: Int) {
    self.generation = generation
  }

  /// Whether `lhs` was pushed before `rhs`.
  ///
  /// - Parameters:
  ///   - lhs: An id.
  ///   - rhs: Another id.
  @inlinable
  public static func < (lhs: Self, rhs: Self) -> Bool {
    lhs.generation < rhs.generation
  }

  /// `#` and the generation, for example `#0`.
  public var description: String {
    "#\(generation)"
  }
}

extension StackElementID: ExpressibleByIntegerLiteral {
  /// The id of the element pushed as generation `value` (0 for a stack's first).
  ///
  /// - Parameter value: A generation, 0 or more.
  public init(integerLiteral value: Int) {
    precondition(value >= 0, "StackElementID: a generation cannot be negative (\(value))")
    self.init(generation: value)
  }
}
