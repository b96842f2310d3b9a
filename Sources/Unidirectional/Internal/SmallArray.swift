/// An array that keeps its first element inline, so that holding one element allocates nothing.
///
/// Observer records use it for their reads and probes: most observers read one value, and an
/// idle observer's memory is mostly these small arrays (benchmark M1).
@usableFromInline
struct SmallArray<Element> {
  @usableFromInline var head: Element?
  @usableFromInline var tail: [Element] = []

  @inlinable
  init() {}

  init(_ elements: some Sequence<Element>) {
    for element in elements { append(element) }
  }

  @inlinable
  var count: Int { head == nil ? 0 : 1 &+ tail.count }

  @inlinable
  subscript(index: Int) -> Element {
    index == 0 ? head.unsafelyUnwrapped : tail[index &- 1]
  }

  mutating func append(_ element: Element) {
    if head == nil { head = element } else { tail.append(element) }
  }
}

extension SmallArray: Sequence {
  @usableFromInline
  struct Iterator: IteratorProtocol {
    @usableFromInline var head: Element?
    @usableFromInline var tail: IndexingIterator<[Element]>

    @inlinable
    init(head: Element?, tail: IndexingIterator<[Element]>) {
      self.head = head
      self.tail = tail
    }

    @inlinable
    mutating func next() -> Element? {
      if let element = head {
        head = nil
        return element
      }
      return tail.next()
    }
  }

  @inlinable
  func makeIterator() -> Iterator {
    Iterator(head: head, tail: tail.makeIterator())
  }
}
