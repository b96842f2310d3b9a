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
