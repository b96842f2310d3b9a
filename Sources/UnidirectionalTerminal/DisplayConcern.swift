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
///
/// ``render`` may return `nil`: nothing is printed for this state. A concern that shows a line
/// only sometimes (`"computing a fact…"` while a request is in flight) returns `nil` otherwise;
/// its observer still runs whenever a value it read changes, and prints again once it returns
/// text.
///
/// In tests, register each concern as an observer of a `TestStore` (product
/// `UnidirectionalTesting`) under its name, so that each step's `fires:` names the parts of the
/// output it redraws (it says the observer ran, even when it rendered `nil`):
///
/// ```swift
/// for concern in CounterDisplay.concerns {
///   store.observe(concern.name) { _ = concern.render($0, .plain) }
/// }
/// await store.send(.increment, fires: ["count"]) { $0.count = 1 }
/// ```
public struct DisplayConcern<State: Sendable, Action: Sendable>: Sendable {
  /// The concern's name (a test store's observer name).
  public let name: String
  /// Whether the concern is drawn when the display starts, or only when it changes.
  public let showsInitialValue: Bool
  /// The text to print for the store's current state (read through the store, which is what
  /// the observer tracks), or `nil` to print nothing for this state (the observer keeps
  /// watching what it read); styled with the stream's styler.
  public let render: @Sendable (Store<State, Action>, Styler) -> String?

  /// Creates a concern.
  ///
  /// - Parameters:
  ///   - name: The concern's name.
  ///   - showsInitialValue: Whether to draw it when the display starts.
  ///   - render: The text for the store's current state, or `nil` to print nothing for this
  ///     state. Read the state through the store, and only what the text shows: each read
  ///     value is tracked, and a change of one runs it again.
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
