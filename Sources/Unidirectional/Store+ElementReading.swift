extension Store {
  /// Reads one element of an ``IdentifiedArray`` by id, tracked as that element alone.
  ///
  /// ```swift
  /// let todo = store[\.todos, id: todoID]   // nil once the element is gone
  /// ```
  ///
  /// Inside an observer, the read re-runs the observer only when this element changes, appears
  /// or goes away. It is the precise way to read a row from a root store, and its cost per
  /// action does not grow with the number of rows or of observers like it.
  ///
  /// - Parameters:
  ///   - array: Where the array lives in the state.
  ///   - id: The element's id.
  /// - Returns: The element, or `nil` if no element has this id.
  public subscript<Element: Identifiable>(
    array: KeyPath<State, IdentifiedArray<Element>>, id id: Element.ID
  ) -> Element? {
    self[array, id: id, \Element.self]
  }

  /// Reads a value inside one element of an ``IdentifiedArray``, tracked as exactly that value.
  ///
  /// ```swift
  /// let title = store[\.todos, id: todoID, \.title]   // String?
  /// ```
  ///
  /// Inside an observer, the read re-runs the observer only when this value of this element
  /// changes, or when the element appears or goes away.
  ///
  /// - Parameters:
  ///   - array: Where the array lives in the state.
  ///   - id: The element's id.
  ///   - field: The value inside the element.
  /// - Returns: The value, or `nil` if no element has this id.
  public subscript<Element: Identifiable, Value>(
    array: KeyPath<State, IdentifiedArray<Element>>, id id: Element.ID,
    field: KeyPath<Element, Value>
  ) -> Value? {
    read(
      array.appending(path: \IdentifiedArray<Element>.[id: id])
        .appending(path: \Element?.[unwrapping: field]))
  }
}
