extension IdentifiedArray {
  #if DEBUG
    /// Stops with a precondition failure unless the array is consistent: every element's id maps
    /// to that element's position, and `positions` has exactly one entry per element (which,
    /// together, mean the ids are unique).
    ///
    /// Every mutating method that is O(n) anyway calls this last, so that debug builds and tests
    /// catch any corruption where it happens; the O(1) ones call `_checkInvariants(at:)`, so that
    /// they stay O(1). Release builds compile both to nothing.
    ///
    /// - Complexity: O(n).
    @usableFromInline
    @inline(never)
    func _checkInvariants() {
      for (position, element) in elements.enumerated() {
        guard let recorded = positions[element.id] else {
          preconditionFailure(
            "IdentifiedArray invariant: id \(element.id) at \(position) has no position")
        }
        if recorded != position, elements.indices.contains(recorded),
          elements[recorded].id == element.id
        {
          preconditionFailure(
            "IdentifiedArray invariant: id \(element.id) is at both \(recorded) and \(position)")
        }
        precondition(
          recorded == position,
          "IdentifiedArray invariant: id \(element.id) at \(position) is indexed at \(recorded)")
      }
      precondition(
        positions.count == elements.count,
        "IdentifiedArray invariant: \(positions.count) positions for \(elements.count) elements")
    }

    /// `_checkInvariants()` for an operation that changed only the element at `position` (an
    /// operation that changed a few calls it for each): stops with a precondition failure
    /// unless that element's id maps to `position` and `positions` has one entry per element.
    ///
    /// With the invariants holding before, these are the ones such an operation can break, so
    /// an append or an edit stays O(1) in debug builds instead of making a loop over the
    /// elements quadratic.
    ///
    /// - Complexity: O(1) on average.
    @usableFromInline
    @inline(never)
    func _checkInvariants(at position: Int) {
      precondition(
        positions.count == elements.count,
        "IdentifiedArray invariant: \(positions.count) positions for \(elements.count) elements")
      let id = elements[position].id
      guard let recorded = positions[id] else {
        preconditionFailure(
          "IdentifiedArray invariant: id \(id) at \(position) has no position")
      }
      precondition(
        recorded == position,
        "IdentifiedArray invariant: id \(id) at \(position) is indexed at \(recorded)")
    }
  #else
    /// Checks the array's invariants in debug builds; in release builds it does nothing.
    @inlinable
    @inline(__always)
    func _checkInvariants() {}

    /// Checks the element at `position` in debug builds; in release builds it does nothing.
    @inlinable
    @inline(__always)
    func _checkInvariants(at position: Int) {}
  #endif
}
