/// A FIFO queue of actions waiting to be reduced.
///
/// An array with a moving head: append and pop are amortized O(1), and the space of popped
/// elements is reclaimed when the queue empties or the popped prefix outgrows the rest.
@usableFromInline
struct ActionQueue<Element> {
  @usableFromInline var elements: [Element?] = []
  @usableFromInline var head = 0

  @inlinable
  init() {}

  @inlinable
  var isEmpty: Bool { head == elements.count }

  @inlinable
  mutating func append(_ element: Element) {
    elements.append(element)
  }

  @inlinable
  mutating func popFirst() -> Element? {
    guard head < elements.count else { return nil }
    let element = elements[head].take()
    head += 1
    if head == elements.count {
      elements.removeAll(keepingCapacity: true)
      head = 0
    } else if head >= 64 && head * 2 >= elements.count {
      elements.removeFirst(head)
      head = 0
    }
    return element
  }
}
