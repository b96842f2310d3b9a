// Changing an identified array: appending, inserting, removing, moving and sorting, each keeping
// ids unique and `positions` in step (see `IdentifiedArray+Invariants.swift`).
extension IdentifiedArray {
  /// Appends an element.
  ///
  /// - Parameter element: An element whose id is not present yet; a repeated id is a
  ///   precondition failure.
  /// - Complexity: O(1) on average.
  @inlinable
  public mutating func append(_ element: Element) {
    appendWithoutChecking(element)
    _checkInvariants(at: elements.count - 1)
  }

  /// `append(_:)` without the debug check of the invariants, for appending many elements.
  @inlinable
  mutating func appendWithoutChecking(_ element: Element) {
    precondition(
      positions[element.id] == nil,
      "IdentifiedArray: an element with id \(element.id) is already present; ids must be unique")
    positions[element.id] = elements.count
    elements.append(element)
    noteWrite(to: element.id, changing: .addition)
  }

  /// Appends elements, in order.
  ///
  /// - Parameter newElements: Elements whose ids are neither present yet nor repeated; a
  ///   repeated id is a precondition failure.
  public mutating func append(contentsOf newElements: some Sequence<Element>) {
    let start = elements.count
    for element in newElements { appendWithoutChecking(element) }
    for position in start..<elements.count { _checkInvariants(at: position) }
  }

  /// Inserts an element at a position.
  ///
  /// - Parameters:
  ///   - element: An element whose id is not present yet; a repeated id is a precondition
  ///     failure.
  ///   - position: Where to insert, from `0` to `count` (the end). Any other position is a
  ///     precondition failure.
  /// - Complexity: O(n).
  public mutating func insert(_ element: Element, at position: Int) {
    precondition(
      positions[element.id] == nil,
      "IdentifiedArray: an element with id \(element.id) is already present; ids must be unique")
    precondition(
      position >= 0 && position <= elements.count,
      "IdentifiedArray: insertion position \(position) is out of bounds 0...\(elements.count)")
    elements.insert(element, at: position)
    reindex(from: position)
    noteWrite(to: element.id, changing: .addition)
    _checkInvariants()
  }

  /// Removes the element with this id and returns it, or returns `nil` if there is none.
  ///
  /// - Complexity: O(n).
  ///
  /// - Parameter id: The id of the element to remove.
  @inlinable
  @discardableResult
  public mutating func remove(id: Element.ID) -> Element? {
    guard let position = positions[id] else { return nil }
    return remove(at: position)
  }

  /// Removes the element at a position and returns it.
  ///
  /// - Parameter position: A position from `0` to `count - 1`; any other is a precondition
  ///   failure.
  /// - Complexity: O(n).
  @inlinable
  @discardableResult
  public mutating func remove(at position: Int) -> Element {
    precondition(
      position >= 0 && position < elements.count,
      "IdentifiedArray: removal position \(position) is out of bounds 0..<\(elements.count)")
    let element = elements.remove(at: position)
    positions[element.id] = nil
    reindex(from: position)
    noteWrite(to: element.id, changing: .removal)
    _checkInvariants()
    return element
  }

  /// Removes the elements that satisfy a predicate, keeping the order of the others.
  ///
  /// The predicate sees every element once, in order, before anything is removed, so if it
  /// throws the array is left unchanged.
  ///
  /// - Complexity: O(n).
  ///
  /// - Parameter shouldBeRemoved: Returns `true` for the elements to remove.
  public mutating func removeAll(where shouldBeRemoved: (Element) throws -> Bool) rethrows {
    let isRemoved = try elements.map(shouldBeRemoved)
    let firstRemoved = isRemoved.firstIndex(of: true) ?? elements.count
    // Shift the kept elements forward over the removed ones, keeping their order.
    var kept = firstRemoved
    for position in firstRemoved..<elements.count where !isRemoved[position] {
      elements.swapAt(kept, position)
      kept += 1
    }
    for element in elements[kept...] { positions[element.id] = nil }
    elements.removeSubrange(kept...)
    reindex(from: firstRemoved)
    noteWrite(to: nil, changing: .removal)
    _checkInvariants()
  }

  /// Removes every element.
  public mutating func removeAll() {
    elements.removeAll()
    positions.removeAll()
    noteWrite(to: nil, changing: .removal)
    _checkInvariants()
  }

  /// Moves the elements at the given offsets to just before the element at `destination`,
  /// keeping their order, as SwiftUI's `move(fromOffsets:toOffset:)` does.
  ///
  /// The offsets are a set, as an `IndexSet` would be: their order does not matter and a repeated
  /// offset moves its element once. `destination` is a position before the move, from `0` to
  /// `count` (the end); the moved elements land just before the first element at or after it
  /// that does not move, or at the end if there is none.
  ///
  /// ```swift
  /// var rows: IdentifiedArray<Row> = [a, b, c, d]
  /// rows.move(fromOffsets: [3, 0, 3], toOffset: 2)   // [b, a, d, c]
  /// ```
  ///
  /// An offset outside `0..<count` or a destination outside `0...count` is a precondition
  /// failure naming it, and nothing moves.
  ///
  /// - Complexity: O(n).
  ///
  /// - Parameters:
  ///   - source: The positions of the elements to move.
  ///   - destination: Where they go, as a position in the array before the move.
  public mutating func move(fromOffsets source: [Int], toOffset destination: Int) {
    let count = elements.count
    precondition(
      destination >= 0 && destination <= count,
      "IdentifiedArray: move destination \(destination) is out of bounds 0...\(count)")
    var isMoving = [Bool](repeating: false, count: count)
    var firstChanged = destination
    for offset in source {
      precondition(
        offset >= 0 && offset < count,
        "IdentifiedArray: move offset \(offset) is out of bounds 0..<\(count)")
      isMoving[offset] = true
      firstChanged = Swift.min(firstChanged, offset)
    }
    var moved: [Element] = []
    var result: [Element] = []
    result.reserveCapacity(count)
    for position in 0..<count where isMoving[position] { moved.append(elements[position]) }
    for position in 0..<count {
      if position == destination { result.append(contentsOf: moved) }
      if !isMoving[position] { result.append(elements[position]) }
    }
    if destination == count { result.append(contentsOf: moved) }
    elements = result
    // Elements before the first moved one and before the destination have not moved.
    reindex(from: firstChanged)
    noteWrite(to: nil)
    _checkInvariants()
  }

  /// Exchanges the elements at two positions.
  ///
  /// Both positions must be from `0` to `count - 1`, even when they are equal (which changes
  /// nothing); any other is a precondition failure naming it.
  ///
  /// - Complexity: O(1) on average.
  ///
  /// - Parameters:
  ///   - i: The position of the first element.
  ///   - j: The position of the second element.
  public mutating func swapAt(_ i: Int, _ j: Int) {
    precondition(
      i >= 0 && i < elements.count,
      "IdentifiedArray: swap position \(i) is out of bounds 0..<\(elements.count)")
    precondition(
      j >= 0 && j < elements.count,
      "IdentifiedArray: swap position \(j) is out of bounds 0..<\(elements.count)")
    elements.swapAt(i, j)
    positions[elements[i].id] = i
    positions[elements[j].id] = j
    noteWrite(to: nil)
    _checkInvariants(at: i)
    _checkInvariants(at: j)
  }

  /// Sorts the elements in place.
  ///
  /// The sort is not guaranteed to be stable. If the predicate throws, the elements are left in
  /// an unspecified order, as `Array`'s are, but lookups by id still find them.
  ///
  /// - Complexity: O(n log n).
  ///
  /// - Parameter areInIncreasingOrder: Returns `true` if its first argument goes before its second.
  public mutating func sort(by areInIncreasingOrder: (Element, Element) throws -> Bool) rethrows {
    defer {
      reindex(from: 0)
      noteWrite(to: nil)
      _checkInvariants()
    }
    try elements.sort(by: areInIncreasingOrder)
  }

  /// Rebuilds `positions` for the elements from `start` on.
  @usableFromInline
  mutating func reindex(from start: Int) {
    for position in start..<elements.count {
      positions[elements[position].id] = position
    }
  }
}
