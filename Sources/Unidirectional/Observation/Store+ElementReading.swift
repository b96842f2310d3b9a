extension Store {
  /// Reads one element of an ``IdentifiedArray`` by id, tracked as that element alone.
  ///
  /// ```swift
  /// let todo = store[\.todos, id: todoID]   // nil once the element is gone
  /// ```
  ///
  /// Inside an observer, the read re-runs the observer only when this element changes, appears
  /// or goes away. It is the precise way to read a row from a root store: when `array` is a
  /// stored property (or a chain of them), an action costs the same whatever the number of
  /// rows and of observers reading rows like this, because the array records which element
  /// each write touched.
  ///
  /// - Parameters:
  ///   - array: Where the array lives in the state.
  ///   - id: The element's id.
  /// - Returns: The element, or `nil` if no element has this id.
  @inlinable
  public subscript<Element: Identifiable>(
    array: KeyPath<State, IdentifiedArray<Element>>, id id: Element.ID
  ) -> Element? {
    readElement(array, id: id, field: \Element.self)
  }

  /// Reads a value inside one element of an ``IdentifiedArray``, tracked as exactly that value.
  ///
  /// ```swift
  /// let title = store[\.todos, id: todoID, \.title]   // String?
  /// ```
  ///
  /// Inside an observer, the read re-runs the observer only when this value of this element
  /// changes, or when the element appears or goes away. Like `store[\.todos, id: todoID]`, it
  /// costs nothing after an action that did not write this element.
  ///
  /// - Parameters:
  ///   - array: Where the array lives in the state.
  ///   - id: The element's id.
  ///   - field: The value inside the element.
  /// - Returns: The value, or `nil` if no element has this id.
  @inlinable
  public subscript<Element: Identifiable, Value>(
    array: KeyPath<State, IdentifiedArray<Element>>, id id: Element.ID,
    field: KeyPath<Element, Value>
  ) -> Value? {
    readElement(array, id: id, field: field)
  }

  @inlinable
  func readElement<Element: Identifiable, Value>(
    _ array: KeyPath<State, IdentifiedArray<Element>>, id: Element.ID,
    field: KeyPath<Element, Value>
  ) -> Value? {
    if let scope {
      // Tracked as the field of the row, not the whole row (a child store's own element reads go
      // through a key path, which is rare enough to pay for).
      return scope.read(
        array.appending(path: \IdentifiedArray<Element>.[id: id])
          .appending(path: \Element?.[unwrapping: field]))
    }
    return record(ElementRead(array: array, id: id, field: field, fallback: nil))
  }
}

/// A read of a value inside the element with a given id of an `IdentifiedArray` of the state.
@usableFromInline
struct ElementRead<State: Sendable, Element: Identifiable, Field>: StateRead {
  @usableFromInline let array: KeyPath<State, IdentifiedArray<Element>>
  @usableFromInline let id: Element.ID
  @usableFromInline let field: KeyPath<Element, Field>
  /// For a read through a child store: answers from the child's last state once the element is
  /// gone.
  @usableFromInline let fallback: ChildFallback<Element>?

  @inlinable
  init(
    array: KeyPath<State, IdentifiedArray<Element>>, id: Element.ID,
    field: KeyPath<Element, Field>, fallback: ChildFallback<Element>?
  ) {
    self.array = array
    self.id = id
    self.field = field
    self.fallback = fallback
  }

  @inlinable
  func isRead(of probe: Probe) -> Bool {
    probe.arrayKeyPath === array && probe.keyPath === field
      && probe.reader == fallback?.reader
      && unsafeDowncast(probe, to: ElementProbe<Element.ID, Field>.self).id == id
  }

  @inlinable
  func value(in state: UnsafeMutablePointer<State>) -> Field? {
    let fieldOffset = MemoryLayout<Element>.offset(of: field)
    let value: Field?
    if let offset = MemoryLayout<State>.offset(of: array) {
      value = IdentifiedArray<Element>.value(
        in: (UnsafeRawPointer(state) + offset).assumingMemoryBound(
          to: IdentifiedArray<Element>.self),
        id: id, field: field, fieldOffset: fieldOffset)
    } else {
      value = state.pointee[keyPath: array].value(id: id, field: field, fieldOffset: fieldOffset)
    }
    guard let fallback else { return value }
    return value ?? fallback.lastValue(field)
  }

  @inlinable
  func sharedValue<Action>(in store: Store<State, Action>) -> (value: Field?, generation: UInt32) {
    let fieldOffset = MemoryLayout<Element>.offset(of: field)
    let value: Field?
    let generation: UInt32
    if let offset = MemoryLayout<State>.offset(of: array) {
      // The array is copied (retains only); the look-up by id (user `Hashable` code) runs once
      // the gate is let go.
      let array: IdentifiedArray<Element>
      (array, generation) = store.copyShared {
        (UnsafeRawPointer($0) + offset).load(as: IdentifiedArray<Element>.self)
      }
      value = array.value(id: id, field: field, fieldOffset: fieldOffset)
    } else {
      let state: State
      (state, generation) = store.copyShared { $0.pointee }
      value = state[keyPath: array].value(id: id, field: field, fieldOffset: fieldOffset)
    }
    guard let fallback else { return (value, generation) }
    return (value ?? fallback.lastValue(field), generation)
  }

  @inlinable
  func makeProbe(value: Field?, generation: UInt64) -> Probe {
    let field = field
    return makeElementProbe(
      array: array, arrayOffset: MemoryLayout<State>.offset(of: array), id: id, field: field,
      value: value, generation: generation, reader: fallback?.reader,
      fallback: fallback.map { fallback in { fallback.lastValue(field) } })
  }
}

/// Where a child store whose state can go away keeps its last state, to answer reads once the
/// state is gone (see `ChildReader`).
@usableFromInline
struct ChildFallback<State> {
  /// The id of the child store's reader (see `ChildReader.id`).
  @usableFromInline let reader: UInt64
  @usableFromInline let lastKnown: SpinLocked<State>

  @usableFromInline
  init(reader: UInt64, lastKnown: SpinLocked<State>) {
    self.reader = reader
    self.lastKnown = lastKnown
  }

  /// The value at `keyPath` in the last state.
  @usableFromInline
  func lastValue<Value>(_ keyPath: KeyPath<State, Value>) -> Value {
    // Copied out first: the key path's getter runs outside the lock.
    let state = lastKnown.withLock { $0 }
    return state[keyPath: keyPath]
  }
}

/// A read of an optional key path of the state through a child store whose state can go away:
/// answered from the child's last state once the value is `nil`.
struct FallbackRead<State: Sendable, Child, Field>: StateRead {
  /// The root key path of the child's read.
  let keyPath: KeyPath<State, Field?>
  /// The child's key path.
  let childKeyPath: KeyPath<Child, Field>
  let fallback: ChildFallback<Child>

  func isRead(of probe: Probe) -> Bool {
    probe.keyPath === keyPath && probe.reader == fallback.reader
  }

  func value(in state: UnsafeMutablePointer<State>) -> Field? {
    state.pointee[keyPath: keyPath] ?? fallback.lastValue(childKeyPath)
  }

  func sharedValue<Action>(in store: Store<State, Action>) -> (value: Field?, generation: UInt32) {
    let (value, generation) = store.sharedValue(keyPath)
    return (value ?? fallback.lastValue(childKeyPath), generation)
  }

  func makeProbe(value: Field?, generation: UInt64) -> Probe {
    let fallback = fallback
    let childKeyPath = childKeyPath
    return keyPath.makeFallbackProbe(
      value: value, generation: generation, reader: fallback.reader,
      fallback: { fallback.lastValue(childKeyPath) })
  }
}
