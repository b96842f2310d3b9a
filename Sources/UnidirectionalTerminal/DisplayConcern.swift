import Unidirectional

/// One part of a program's output, drawn by its own observer of the store: it is printed again
/// only when a value it read changed.
///
/// A program lists its concerns once. The executable shows them on a terminal with
/// `store.display(_:errors:on:)`; its tests register the same renderings as
/// named observers of a test store, so they prove which parts of the output each action
/// redraws.
///
/// ```swift
/// let count = DisplayConcern<Counter.State, Counter.Action>("count", showsInitialValue: true) {
///   store, styler in
///   "count: " + styler.styled("\(store.count)", .bold)
/// }
/// ```
public struct DisplayConcern<State: Sendable, Action: Sendable>: Sendable {
  /// The concern's name (a test store's observer name).
  public let name: String
  /// Whether the concern is drawn when the display starts, or only when it changes.
  public let showsInitialValue: Bool
  /// The text to print for the store's current state (read through the store, which is what
  /// the observer tracks), or `nil` to print nothing; styled with the stream's styler.
  public let render: @Sendable (Store<State, Action>, Styler) -> String?

  /// Creates a concern.
  ///
  /// - Parameters:
  ///   - name: The concern's name.
  ///   - showsInitialValue: Whether to draw it when the display starts.
  ///   - render: The text for the store's current state, or `nil` for none. Read the state
  ///     through the store, and only what the text shows: each read value is tracked.
  public init(
    _ name: String,
    showsInitialValue: Bool = false,
    render: @escaping @Sendable (Store<State, Action>, Styler) -> String?
  ) {
    self.name = name
    self.showsInitialValue = showsInitialValue
    self.render = render
  }
}
