import Synchronization

/// Source of the versions of `IdentifiedArray`s (`membershipVersion`, `removalVersion`,
/// `writeVersion`): unique across the process, so a replaced array never looks like the one it
/// replaced.
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

  /// Changes whenever an element is added or removed (and differs between arrays created
  /// separately): two arrays with one membership version hold the same ids. With
  /// `removalVersion` and the count, `forEach` tells in O(1) that no element left, so that no
  /// element's effects need cancelling (see `ForEachReducer.Membership`). Not part of the value:
  /// `==`, hashing and coding ignore it, as they do the other versions.
  @usableFromInline var membershipVersion: UInt64

  /// Changes whenever an element is removed (and differs between arrays created separately).
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
  /// Where the element last edited by id was (by `subscript(id:)` or `forEach`): successive
  /// actions often edit one row, and the observers of that row read it right after the edit;
  /// checking that position's id costs less than hashing the id. Only a hint, checked before
  /// use, so no other mutation keeps it. Not part of the value.
  @usableFromInline var lastUpdatedPosition = 0

  /// Creates an empty array.
  @inlinable
  public init() {
    self.elements = []
    self.positions = [:]
    self.membershipVersion = identifiedArrayVersions.add(1, ordering: .relaxed).newValue
    self.removalVersion = membershipVersion
    self.writeVersion = identifiedArrayVersions.add(1, ordering: .relaxed).newValue
    self.previousWriteVersion = 0
    self.lastWrittenID = nil
  }

  /// Records a write that changed only the element with `id` (or, for `nil`, possibly several).
  ///
  /// Writes to one element in a row count as one: `previousWriteVersion` stays the version
  /// before the first of them, so an observer of the array's versions still learns that only
  /// that element changed (two edits of one row in one action refresh that row alone).
  ///
  /// - Parameter membership: Whether the write added or removed elements: then the membership
  ///   version changes too, and for a removal the removal version, each to the new write
  ///   version (itself unique).
  @inlinable
  mutating func noteWrite(to id: Element.ID?, changing membership: MembershipChange = .none) {
    if id == nil || id != lastWrittenID {
      previousWriteVersion = writeVersion
    }
    writeVersion = identifiedArrayVersions.add(1, ordering: .relaxed).newValue
    switch membership {
    case .none:
      break
    case .addition:
      membershipVersion = writeVersion
    case .removal:
      membershipVersion = writeVersion
      removalVersion = writeVersion
    }
    lastWrittenID = id
  }

  /// What a write did to the set of ids.
  @usableFromInline
  enum MembershipChange {
    case none, addition, removal
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
      // A trivial element (no references) is copied: that costs less than moving it out.
      // Otherwise it is moved out rather than copied (swapped to the end and popped), so that the
      // storage inside the element stays uniquely referenced: `rows[id: id]?.items.append(x)`
      // appends in place instead of copying `items`.
      let movedFrom: Int?
      var element: Element?
      if _isPOD(Element.self) {
        movedFrom = nil
        element = elements[position]
      } else {
        let last = elements.count - 1
        elements.swapAt(position, last)
        movedFrom = last
        element = elements.removeLast()
      }
      defer { storeEdited(element, at: position, id: id, movedFrom: movedFrom) }
      yield &element
    }
  }
}

extension IdentifiedArray {
  /// Stores an element edited through `subscript(id:)` back at `position`, or removes the
  /// element there if the edit made it `nil`.
  ///
  /// - Parameter movedFrom: If the element was moved out (swapped with the last element, at
  ///   this position, and popped), that position: the element is pushed and swapped back.
  @inlinable
  mutating func storeEdited(
    _ element: consuming Element?, at position: Int, id: Element.ID, movedFrom last: Int?
  ) {
    guard let element else {
      guard let last else {
        remove(at: position)
        return
      }
      // The element that was last sits at `position`: put it back at the end, which leaves the
      // others in order, then forget the removed id.
      if position < last { elements.append(elements.remove(at: position)) }
      positions[id] = nil
      reindex(from: position)
      noteWrite(to: id, changing: .removal)
      _checkInvariants()
      return
    }
    precondition(
      element.id == id,
      "IdentifiedArray: an element's id changed from \(id) to \(element.id) through subscript(id:)")
    if let last {
      elements.append(element)
      elements.swapAt(position, last)
    } else {
      elements[position] = element
    }
    lastUpdatedPosition = position
    noteWrite(to: id)
    _checkInvariants(at: position)
  }

  /// Runs `body` on the element at `position`, whose id is `id`, in place, and records the write
  /// as one to that element.
  ///
  /// What `self[id: id]!` edits do, without the accessor's coroutine: `forEach` runs an element
  /// reducer through this on every element action, and the coroutine's frame was a heap
  /// allocation each time.
  ///
  /// - Precondition: `position` is the position of `id`; `body` leaves the element's id as it
  ///   was.
  @inlinable
  mutating func updateElement<Result>(
    at position: Int, id: Element.ID, _ body: (inout Element) -> Result
  ) -> Result {
    let result = body(&elements[position])
    let newID = elements[position].id
    precondition(
      newID == id,
      "IdentifiedArray: an element's id changed from \(id) to \(newID) in an element reducer")
    noteWrite(to: id)
    lastUpdatedPosition = position
    _checkInvariants(at: position)
    return result
  }

  /// The position of the element with `id` in the array at `array`: the last updated position
  /// if its element has that id, else a look-up by hash.
  ///
  /// Static, given a pointer: a method called on `pointee` would copy the whole array value.
  @inlinable
  static func position(of id: Element.ID, in array: UnsafePointer<Self>) -> Int? {
    let hinted = array.pointee.lastUpdatedPosition
    if hinted < array.pointee.elements.count, array.pointee.elements[hinted].id == id {
      return hinted
    }
    return array.pointee.positions[id]
  }
}

extension IdentifiedArray: Sendable where Element: Sendable, Element.ID: Sendable {}
