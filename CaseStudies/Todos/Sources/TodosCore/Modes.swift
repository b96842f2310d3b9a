import Unidirectional

/// The item mode: one item, its status and tags. Pushed on the list's stack of modes by `open N`.
///
/// The item itself stays in the list (the element holds its id), so a change made here is a
/// change of the list: `done`, `reopen` and tags are row actions, `edit` and `delete` the list's.
public struct Detail: Reducer {
  /// The item mode's state.
  public struct State: Equatable, Sendable {
    /// The item shown.
    public var todoID: Todo.ID

    /// The mode for the item with id `todoID`.
    public init(todoID: Todo.ID) {
      self.todoID = todoID
    }
  }

  /// What the user can do in the item mode itself.
  public enum Action: Equatable, Sendable {
    /// Leaves the mode (it dismisses itself).
    case backTapped
    /// Opens the item's tags (the parent pushes the tags mode).
    case tagsTapped
  }

  @Dependency(\.dismiss) var dismiss

  /// Creates the feature.
  public init() {}

  /// Dismisses the mode on `back`.
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .backTapped: .run { [dismiss] _ in await dismiss() }
    case .tagsTapped: .none
    }
  }
}

/// The tags mode: an item's tags, added with `tag NAME` and removed with `untag NAME` (row
/// actions of the item). Pushed above the item mode by `tags`.
public struct TagsMode: Reducer {
  /// The tags mode's state.
  public struct State: Equatable, Sendable {
    /// The item whose tags are shown.
    public var todoID: Todo.ID

    /// The mode for the item with id `todoID`.
    public init(todoID: Todo.ID) {
      self.todoID = todoID
    }
  }

  /// What the user can do in the tags mode itself.
  public enum Action: Equatable, Sendable {
    /// Leaves the mode (it dismisses itself).
    case backTapped
  }

  @Dependency(\.dismiss) var dismiss

  /// Creates the feature.
  public init() {}

  /// Dismisses the mode on `back`.
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .backTapped: .run { [dismiss] _ in await dismiss() }
    }
  }
}

/// One mode on the stack above the list: the element reducer of the list's `forEach` over
/// its ``Todos/State/path``.
public struct Mode: Reducer {
  /// A mode's state.
  public enum State: Equatable, Sendable {
    /// An item.
    case detail(Detail.State)
    /// An item's tags.
    case tags(TagsMode.State)

    /// The item the mode is about.
    public var todoID: Todo.ID {
      switch self {
      case .detail(let detail): detail.todoID
      case .tags(let tags): tags.todoID
      }
    }
  }

  /// A mode's actions.
  public enum Action: Equatable, Sendable {
    /// An action of the item mode.
    case detail(Detail.Action)
    /// An action of the tags mode.
    case tags(TagsMode.Action)
  }

  /// Creates the feature.
  public init() {}

  /// Routes each action to its mode.
  public var body: some Reducer<State, Action> {
    Scope(state: .detail, action: .detail) { Detail() }
    Scope(state: .tags, action: .tags) { TagsMode() }
  }
}

extension CasePath where Root == Mode.State {
  /// The item mode's state.
  public static var detail: CasePath<Mode.State, Detail.State> {
    .case(Mode.State.detail)
  }

  /// The tags mode's state.
  public static var tags: CasePath<Mode.State, TagsMode.State> {
    .case(Mode.State.tags)
  }
}

extension CasePath where Root == Mode.Action {
  /// Routes the item mode's actions.
  public static var detail: CasePath<Mode.Action, Detail.Action> {
    .case(Mode.Action.detail)
  }

  /// Routes the tags mode's actions.
  public static var tags: CasePath<Mode.Action, TagsMode.Action> {
    .case(Mode.Action.tags)
  }
}
