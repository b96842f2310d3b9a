import Synchronization

/// Source of stack identities: unique in the process, so that the effects of the elements of two
/// stacks never share a cancellation id.
private let stackIdentities = Atomic<UInt64>(0)

/// A stack of child features (screens, modes), each element with a ``StackElementID`` that
/// stays with it while it is on the stack. Drive it with
/// ``Reducer/forEach(_:action:destination:fileID:line:)``.
///
/// ```swift
/// struct State: Equatable, Sendable {
///   var path = StackState<Path.State>()
/// }
/// …
/// case .itemTapped(let item):
///   state.path.append(.detail(Detail.State(item: item)))
/// ```
///
/// Ids are assigned in push order, counted from 0 in each stack (see ``nextID``), and never
/// reused within the stack: popping `#2` and pushing again gives `#3`. So an action meant for an
/// element that was popped can never reach an element pushed later.
///
/// Two stacks are equal when their ids and elements are. The next id and the stack's identity
/// (which keeps the effects of two stacks apart) are bookkeeping, not compared; a copy of a
/// stack is the same stack. Two copies kept side by side in one store (a tab duplicated with
/// its stack) are kept apart where `Scope`, `ifLet` or a `forEach` row holds each, except for
/// the ids their elements' own effects use: element `#0` of one copy can cancel those of `#0`
/// in the other. Give a duplicate a new stack (`StackState(copy)`) to keep them apart.
///
/// - Complexity: Access by position and `append` are O(1); access by id is O(log n) (ids are
///   kept in increasing order).
public struct StackState<Element> {
  /// The elements, bottom first.
  @usableFromInline var elements: [Element]

  /// The id of each element in `elements`, increasing.
  public private(set) var ids: [StackElementID]

  /// The generation the next pushed element gets.
  var nextGeneration: Int

  /// Tells this stack's element effects from those of other stacks.
  @usableFromInline var identity: UInt64

  /// Changes whenever an element is pushed or popped, to a value no stack had before: two
  /// stacks with one identity and one membership version hold the same ids. Lets the stack's
  /// reducer tell in O(1) that no element left (including by a restored earlier copy).
  @usableFromInline var membershipVersion: UInt64

  /// Creates an empty stack.
  public init() {
    self.elements = []
    self.ids = []
    self.nextGeneration = 0
    self.identity = stackIdentities.add(1, ordering: .relaxed).newValue
    self.membershipVersion = identity
  }

  /// Records that elements were pushed or popped.
  mutating func noteMembershipChange() {
    // The identities' counter: its values are unique, which is all a version needs.
    membershipVersion = stackIdentities.add(1, ordering: .relaxed).newValue
  }

  /// Creates a stack of `elements`, bottom first, with ids `#0`, `#1`, … in order.
  ///
  /// - Parameter elements: The elements.
  public init(_ elements: some Sequence<Element>) {
    self.init()
    for element in elements { append(element) }
  }

  /// The id the next pushed element gets.
  public var nextID: StackElementID {
    StackElementID(generation: nextGeneration)
  }

  /// The position of the element with id `id`, if it is on the stack.
  ///
  /// - Complexity: O(log n).
  ///
  /// - Parameter id: The element's id.
  /// - Returns: The position, or `nil` if no element with this id is on the stack.
  @inlinable
  public func index(id: StackElementID) -> Int? {
    ids.withUnsafeBufferPointer { ids in
      // The top element, the screen in front, is the usual target of an element action: one
      // comparison finds it.
      guard let top = ids.last, id <= top else { return nil }
      if id == top { return ids.count &- 1 }
      var low = 0
      var high = ids.count &- 1
      // Wrapping arithmetic: positions are far from overflowing, and a check is a branch per
      // step.
      while low < high {
        let middle = (low &+ high) &>> 1
        if ids[middle] < id { low = middle &+ 1 } else { high = middle }
      }
      return ids[low] == id ? low : nil
    }
  }

  /// The element with id `id`.
  ///
  /// Getting returns `nil` if no element has that id. Setting replaces that element; setting
  /// `nil` removes it alone (the elements above stay). Setting a value for an id that is not on
  /// the stack does nothing: ids are given by pushing.
  ///
  /// - Complexity: O(log n), except O(n) for a removal.
  ///
  /// - Parameter id: The element's id.
  public subscript(id id: StackElementID) -> Element? {
    get {
      index(id: id).map { elements[$0] }
    }
    set {
      guard let position = index(id: id) else { return }
      if let newValue {
        elements[position] = newValue
      } else {
        elements.remove(at: position)
        ids.remove(at: position)
        noteMembershipChange()
      }
    }
    _modify {
      guard let position = index(id: id) else {
        var none: Element? = nil
        yield &none
        return
      }
      var element: Element? = elements[position]
      // In a `defer`, so that an edit that throws is kept, as for an `inout` variable.
      defer {
        if let element {
          elements[position] = element
        } else {
          elements.remove(at: position)
          ids.remove(at: position)
          noteMembershipChange()
        }
      }
      yield &element
    }
  }

  /// Runs `body` on the element with id `id` in place (no copy of the element), if it is on the
  /// stack.
  mutating func modify<R>(id: StackElementID, _ body: (inout Element) -> R) -> R? {
    guard let position = index(id: id) else { return nil }
    return body(&elements[position])
  }

  /// Pushes `element` with the next id.
  ///
  /// - Parameter element: The new top element.
  /// - Complexity: O(1) amortized.
  public mutating func append(_ element: Element) {
    push(element, id: nextID)
  }

  /// Pushes `element` with id `id`, which must be ``nextID`` or later.
  mutating func push(_ element: Element, id: StackElementID) {
    precondition(id >= nextID, "StackState: the id \(id) was already used in this stack")
    elements.append(element)
    ids.append(id)
    nextGeneration = id.generation + 1
    noteMembershipChange()
  }

  /// Pops the top element.
  ///
  /// - Returns: The popped element, or `nil` if the stack is empty.
  @discardableResult
  public mutating func popLast() -> Element? {
    guard !elements.isEmpty else { return nil }
    ids.removeLast()
    noteMembershipChange()
    return elements.removeLast()
  }

  /// Pops the top `k` elements.
  ///
  /// - Parameter k: How many to pop; 1 by default. More than ``count`` is a precondition
  ///   failure.
  public mutating func removeLast(_ k: Int = 1) {
    precondition(
      k >= 0 && k <= elements.count,
      "StackState: cannot remove \(k) elements from a stack of \(elements.count)")
    guard k > 0 else { return }
    elements.removeLast(k)
    ids.removeLast(k)
    noteMembershipChange()
  }

  /// Pops the element with id `id` and every element above it. Does nothing if no element has
  /// that id.
  ///
  /// - Parameter id: The lowest element to pop.
  public mutating func pop(from id: StackElementID) {
    guard let position = index(id: id) else { return }
    removeLast(elements.count - position)
  }

  /// Pops every element above the one with id `id`, which stays on top. Does nothing if no
  /// element has that id.
  ///
  /// - Parameter id: The element to keep on top.
  public mutating func pop(to id: StackElementID) {
    guard let position = index(id: id) else { return }
    removeLast(elements.count - position - 1)
  }

  /// Pops every element. Ids used so far stay used.
  public mutating func removeAll() {
    elements.removeAll()
    ids.removeAll()
    noteMembershipChange()
  }
}

extension StackState: RandomAccessCollection {
  /// The position of the bottom element: 0.
  public var startIndex: Int { 0 }

  /// One past the position of the top element: the number of elements.
  public var endIndex: Int { elements.count }

  /// The element at `position`, counted from the bottom.
  ///
  /// - Parameter position: A valid position; an invalid one is a precondition failure.
  public subscript(position: Int) -> Element {
    elements[position]
  }
}

extension StackState: Equatable where Element: Equatable {
  /// Whether both stacks hold equal elements under the same ids, in the same order.
  ///
  /// - Parameters:
  ///   - lhs: A stack.
  ///   - rhs: Another stack.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.ids == rhs.ids && lhs.elements == rhs.elements
  }
}

extension StackState: Hashable where Element: Hashable {
  /// Hashes the ids and elements.
  ///
  /// - Parameter hasher: The hasher to feed.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(ids)
    hasher.combine(elements)
  }
}

extension StackState: Sendable where Element: Sendable {}

extension StackState: ExpressibleByArrayLiteral {
  /// Creates a stack of the given elements, bottom first, with ids `#0`, `#1`, … in order.
  ///
  /// - Parameter elements: The elements.
  public init(arrayLiteral elements: Element...) {
    self.init(elements)
  }
}

extension StackState: CustomReflectable {
  /// Shows each element under its id, so that test failures name the ids, without the
  /// bookkeeping.
  public var customMirror: Mirror {
    Mirror(
      self,
      children: zip(ids, elements).map { (label: $0.0.description, value: $0.1 as Any) },
      displayStyle: .struct)
  }
}
