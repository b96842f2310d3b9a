import Unidirectional

/// The title editor, presented over the list or an item: a draft with its own validation, saved
/// or cancelled.
///
/// The draft is checked as it changes (``State/problem``), and `saveTapped` refuses a draft that
/// has a problem. A valid save tells the parent the new title (``Action/Delegate/save(title:)``)
/// and dismisses the editor; cancelling dismisses it and changes nothing.
public struct Editor: Reducer {
  /// The editor's state.
  public struct State: Equatable, Identifiable, Sendable {
    /// The item being edited (a different item is a new presentation).
    public var id: Todo.ID
    /// The title when editing began.
    public var original: String
    /// The title being written.
    public var draft: String
    /// What is wrong with the draft, if anything: why it cannot be saved now.
    public var problem: String?

    /// An editor of `todo`, its draft the current title.
    public init(todo: Todo) {
      self.init(id: todo.id, original: todo.title, draft: todo.title)
    }

    /// Creates a state.
    public init(id: Todo.ID, original: String, draft: String, problem: String? = nil) {
      self.id = id
      self.original = original
      self.draft = draft
      self.problem = problem
    }
  }

  /// What the user can do in the editor, and what it tells its parent.
  public enum Action: Equatable, Sendable {
    /// The draft is now this text; it is validated at once.
    case titleChanged(String)
    /// Saves the draft, unless it has a problem.
    case saveTapped
    /// Leaves without saving.
    case cancelTapped
    /// Messages for the parent.
    case delegate(Delegate)

    /// Messages for the parent.
    public enum Delegate: Equatable, Sendable {
      /// Save this title (valid and normalized) for the edited item.
      case save(title: String)
    }
  }

  @Dependency(\.dismiss) var dismiss

  /// Creates the feature.
  public init() {}

  /// Validates the draft, and saves or cancels.
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .titleChanged(let text):
      state.draft = text
      state.problem = Title.problem(with: text)
      return .none

    case .saveTapped:
      if let problem = Title.problem(with: state.draft) {
        state.problem = problem
        return .none
      }
      let title = Title.normalized(state.draft)
      return .run { [dismiss] send in
        await send(.delegate(.save(title: title)))
        await dismiss()
      }

    case .cancelTapped:
      return .run { [dismiss] _ in await dismiss() }

    case .delegate:
      return .none
    }
  }
}
