import Unidirectional

/// One row of the list: what can be done to a single item in place. The list runs it for each
/// item with `forEach`.
public struct TodoRow: Reducer {
  /// A row's state is the item itself.
  public typealias State = Todo

  /// What can be done to one item.
  public enum Action: Equatable, Sendable {
    /// Marks the item done (`true`) or not done (`false`).
    case setCompleted(Bool)
    /// Adds a tag (normalized to lowercase; ignored if invalid, already there, or at the limit).
    case tagAdded(String)
    /// Removes a tag, if the item has it.
    case tagRemoved(String)
  }

  /// Creates the feature.
  public init() {}

  /// Changes the item.
  public func reduce(into state: inout Todo, action: Action) -> Effect<Action> {
    switch action {
    case .setCompleted(let isComplete):
      state.isComplete = isComplete
    case .tagAdded(let text):
      let tag = Tag.normalized(text)
      guard Tag.problem(with: tag) == nil, !state.tags.contains(tag),
        state.tags.count < Tag.maximumCount
      else { break }
      state.tags.append(tag)
    case .tagRemoved(let text):
      state.tags.removeAll { $0 == Tag.normalized(text) }
    }
    return .none
  }
}
