import Synchronization

/// Source of `removalVersion`s: unique across the process, so a replaced array never looks
/// like the one it replaced.
@usableFromInline let identifiedArrayVersions = Atomic<UInt64>(0)

/// An ordered collection of `Identifiable` elements with unique ids and O(1) access by id.
///
/// Use it for lists in feature state: rows are addressed by id, so an action for row `42` finds
/// row `42` wherever it has moved, and a removed row cannot be confused with another.
///
/// ```swift
/// var todos: IdentifiedArray<Todo> = [Todo(id: 1, title: "Write docs")]
/// todos[id: 1]?.title = "Write better docs"
/// todos[id: 2] = Todo(id: 2, title: "Ship")   // appends
/// todos[id: 1] = nil                          // removes
/// ```
///
/// Ids are unique: inserting an element whose id is already present is a programming error and
/// stops with a precondition failure naming the id. Decoding duplicates throws instead. Like
/// `Array`, a position out of bounds (in `remove(at:)`, `insert(_:at:)`, `swapAt(_:_:)`,
/// `move(fromOffsets:toOffset:)` or the position subscript) stops with a precondition failure
/// naming the position and the valid range, before anything changes. No operation can leave two
/// elements with one id or a lookup by id finding the wrong element.
///
/// - Complexity: Lookup, replacement and append by id are O(1) on average. Inserting or
///   removing anywhere but the end is O(n), like `Array`.
public struct IdentifiedArray<Element: Identifiable> {
  /// The elements, in order.
  @usableFromInline var elements: [Element]

  /// The position of each element's id in `elements`.
  @usableFromInline var positions: [Element.ID: Int]

  /// Changes whenever an element may have been removed (and differs between arrays created
  /// separately), so `forEach` can tell in O(1) that no element's effects need cancelling.
  /// Not part of the value: `==`, hashing and coding ignore it.
  @usableFromInline var removalVersion: UInt64

  /// Changes with every write (unique across arrays), so that observers of single elements can
  /// tell in O(1) whether the array changed, and which element if only one did. Not part of the
  /// value: `==`, hashing and coding ignore it.
  @usableFromInline var writeVersion: UInt64
  /// `writeVersion` before the latest write.
  @usableFromInline var previousWriteVersion: UInt64
  /// The id of the only element the latest write changed, added or removed; `nil` when it may
  /// have changed several (a sort, a move, a bulk removal).
  @usableFromInline var lastWrittenID: Element.ID?

  /// Creates an empty array.
  @inlinable
  public init() {
    self.elements = []
    self.positions = [:]
    self.removalVersion = identifiedArrayVersions.add(1, ordering: .relaxed).newValue
    self.writeVersion = identifiedArrayVersions.add(1, ordering: .relaxed).newValue
    self.previousWriteVersion = 0
    self.lastWrittenID = nil
  }

  /// Records that an element may have been removed.
  @inlinable
  mutating func noteRemoval() {
    removalVersion = identifiedArrayVersions.add(1, ordering: .relaxed).newValue
  }

  /// Records a write that changed only the element with `id` (or, for `nil`, possibly several).
  ///
  /// Writes to one element in a row count as one: `previousWriteVersion` stays the version
  /// before the first of them, so an observer of the array's versions still learns that only
  /// that element changed (two edits of one row in one action refresh that row alone).
  @inlinable
  mutating func noteWrite(to id: Element.ID?) {
    if id == nil || id != lastWrittenID {
      previousWriteVersion = writeVersion
    }
    writeVersion = identifiedArrayVersions.add(1, ordering: .relaxed).newValue
    lastWrittenID = id
  }

  /// Creates an array of the given elements, in order.
  ///
  /// - Parameter elements: Elements with unique ids. A repeated id is a precondition failure.
  public init(uniqueElements elements: some Sequence<Element>) {
    self.init()
    for element in elements { appendWithoutChecking(element) }
    _checkInvariants()
  }

  /// The ids of the elements, in order.
  ///
  /// - Complexity: O(n).
  public var ids: [Element.ID] {
    elements.map(\.id)
  }

  /// The elements as an array, in order.
  public var elementsArray: [Element] {
    elements
  }

  /// Whether an element with this id is present.
  ///
  /// - Complexity: O(1) on average.
  ///
  /// - Parameter id: The id to look for.
  @inlinable
  public func contains(id: Element.ID) -> Bool {
    positions[id] != nil
  }

  /// The position of the element with this id.
  ///
  /// - Complexity: O(1) on average.
  ///
  /// - Parameter id: The id to look for.
  /// - Returns: The position, or `nil` if no element has this id.
  @inlinable
  public func index(id: Element.ID) -> Int? {
    positions[id]
  }

  /// The element with this id.
  ///
  /// Getting returns `nil` if there is none. Setting an element replaces the element with that
  /// id in place, or appends it if there is none; setting `nil` removes it. The new element must
  /// have the id it is stored under: storing one with another id, or changing an element's id
  /// in place (`rows[id: 1]?.id = 2`), stops with a precondition failure naming both ids.
  ///
  /// An in-place edit that throws (`try edit(&rows[id: 1])`) keeps what it changed before
  /// throwing, as it would for an `inout` variable.
  ///
  /// - Complexity: O(1) on average, except O(n) for a removal.
  ///
  /// - Parameter id: The element's id.
  @inlinable
  public subscript(id id: Element.ID) -> Element? {
    get {
      positions[id].map { elements[$0] }
    }
    set {
      guard let newValue else {
        remove(id: id)
        return
      }
      precondition(
        newValue.id == id,
        "IdentifiedArray: cannot store an element with id \(newValue.id) under id \(id)")
      if let position = positions[id] {
        elements[position] = newValue
        noteWrite(to: id)
        _checkInvariants(at: position)
      } else {
        append(newValue)
      }
    }
    _modify {
      guard let position = positions[id] else {
        var element: Element? = nil
        // In a `defer`, so that an edit that throws is kept, as for an `inout` variable.
        defer {
          if let element { self[id: id] = element }
        }
        yield &element
        return
      }
      var element: Element? = elements[position]
      defer {
        if let element {
          precondition(
            element.id == id,
            "IdentifiedArray: an element's id changed from \(id) to \(element.id) through subscript(id:)"
          )
          elements[position] = element
          noteWrite(to: id)
          _checkInvariants(at: position)
        } else {
          remove(at: position)
        }
      }
      yield &element
    }
  }

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
    noteWrite(to: element.id)
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
    noteWrite(to: element.id)
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
    noteRemoval()
    noteWrite(to: element.id)
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
    noteRemoval()
    noteWrite(to: nil)
    _checkInvariants()
  }

  /// Removes every element.
  public mutating func removeAll() {
    elements.removeAll()
    positions.removeAll()
    noteRemoval()
    noteWrite(to: nil)
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

extension IdentifiedArray: RandomAccessCollection {
  /// The position of the first element.
  @inlinable public var startIndex: Int { 0 }

  /// The position after the last element.
  @inlinable public var endIndex: Int { elements.count }

  /// The element at a position.
  ///
  /// Setting replaces the element; the new element must have the same id (ids cannot change
  /// through this subscript, which would break uniqueness), or it is a precondition failure
  /// naming both ids. A position outside `0..<count` is a precondition failure naming it.
  ///
  /// - Complexity: O(1).
  ///
  /// - Parameter position: A position from `0` to `count - 1`.
  @inlinable
  public subscript(position: Int) -> Element {
    get {
      precondition(
        position >= 0 && position < elements.count,
        "IdentifiedArray: position \(position) is out of bounds 0..<\(elements.count)")
      return elements[position]
    }
    set {
      precondition(
        position >= 0 && position < elements.count,
        "IdentifiedArray: position \(position) is out of bounds 0..<\(elements.count)")
      precondition(
        newValue.id == elements[position].id,
        "IdentifiedArray: cannot replace the element with id \(elements[position].id) at \(position) by one with id \(newValue.id)"
      )
      elements[position] = newValue
      noteWrite(to: newValue.id)
      _checkInvariants(at: position)
    }
  }
}

extension IdentifiedArray: ExpressibleByArrayLiteral {
  /// Creates an array from a literal; ids must be unique.
  ///
  /// - Parameter elements: The elements, in order, each with its own id.
  public init(arrayLiteral elements: Element...) {
    self.init(uniqueElements: elements)
  }
}

extension IdentifiedArray: Equatable where Element: Equatable {
  /// Arrays are equal when they have equal elements in the same order.
  ///
  /// - Parameters:
  ///   - lhs: A array.
  ///   - rhs: Another array.
  @inlinable
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.elements == rhs.elements
  }
}

extension IdentifiedArray: Hashable where Element: Hashable {
  /// Hashes the elements in order.
  ///
  /// - Parameter hasher: The hasher to feed.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(elements)
  }
}

extension IdentifiedArray: Sendable where Element: Sendable, Element.ID: Sendable {}

extension IdentifiedArray: Encodable where Element: Encodable {
  /// Encodes the elements as an unkeyed container (a JSON array), in order.
  ///
  /// - Parameter encoder: The encoder to write to.
  public func encode(to encoder: any Encoder) throws {
    try elements.encode(to: encoder)
  }
}

extension IdentifiedArray: Decodable where Element: Decodable {
  /// Decodes an array of elements.
  ///
  /// - Throws: `DecodingError.dataCorrupted` naming the id if two elements share an id.
  ///
  /// - Parameter decoder: The decoder to read from.
  public init(from decoder: any Decoder) throws {
    let elements = try [Element](from: decoder)
    self.init()
    for element in elements {
      guard positions[element.id] == nil else {
        throw DecodingError.dataCorrupted(
          DecodingError.Context(
            codingPath: decoder.codingPath,
            debugDescription: "IdentifiedArray: duplicate id \(element.id)"))
      }
      appendWithoutChecking(element)
    }
    _checkInvariants()
  }
}

extension IdentifiedArray: CustomStringConvertible {
  /// The elements, as an array prints them.
  public var description: String {
    elements.description
  }
}

extension IdentifiedArray: CustomReflectable {
  /// The elements as a collection, so that dumps and debuggers show them and not the index.
  public var customMirror: Mirror {
    Mirror(self, unlabeledChildren: elements, displayStyle: .collection)
  }
}
