import Foundation
import Unidirectional

/// The whole to-do program: the list, its filter, the undo of the last delete, the title editor
/// presented over it, the stack of modes above it (item, then tags), and saving.
public struct Todos: Reducer {
  /// How long a deleted item can be restored with `undo`.
  public static let undoWindow: Duration = .seconds(5)

  /// The program's state.
  public struct State: Equatable, Sendable {
    /// Every item, in the user's order: the list kept in the file (see ``list``), changed
    /// through it.
    public var todos: IdentifiedArray<Todo> {
      get { list.value }
      set {
        // A row written back unchanged is no change to save.
        guard newValue != list.value else { return }
        list.withLock { $0 = newValue }
      }
    }
    /// The list, shared with the file it is kept in (``TodoFile/sharedList(default:)``): saved
    /// after every change, and followed when another program changes the file.
    public var list: Shared<IdentifiedArray<Todo>>
    /// Which items the list shows.
    public var filter: Filter
    /// The last deleted item, while it can be restored, and then the fact that it cannot.
    public var undo: Undo?
    /// The last save failure, if a save failed; the file then still holds an earlier list.
    public var saveError: String?
    /// The title editor, while it is presented.
    @PresentationState public var editor: Editor.State?
    /// The modes above the list: an item, then its tags.
    public var path: StackState<Mode.State>

    /// Creates a state.
    ///
    /// - Parameters:
    ///   - todos: The items of a list of its own, kept in memory, when `list` is `nil`.
    ///   - list: The list kept in a file (``TodoFile/sharedList(default:)``); `nil` for a list
    ///     of this state's own, in memory.
    public init(
      todos: IdentifiedArray<Todo> = [], list: Shared<IdentifiedArray<Todo>>? = nil,
      filter: Filter = .all, undo: Undo? = nil, saveError: String? = nil,
      editor: Editor.State? = nil, path: StackState<Mode.State> = StackState()
    ) {
      // A name no other state uses: states made apart never share their lists.
      self.list = list ?? Shared(.inMemory("Todos.State \(UUID().uuidString)"), default: todos)
      self.filter = filter
      self.undo = undo
      self.saveError = saveError
      self.editor = editor
      self.path = path
    }

    /// The items the filter shows, in order; the list numbers them from 1.
    public var visibleTodos: [Todo] {
      todos.filter { filter.shows($0) }
    }
  }

  /// The last delete, for `undo`.
  public enum Undo: Equatable, Sendable {
    /// `todo` was deleted from position `index` and can still be restored.
    case available(Todo, index: Int)
    /// The time to restore the item with this title has passed.
    case expired(title: String)
  }

  /// What the user and the effects can do.
  public enum Action: Equatable, Sendable {
    /// Adds an item with this title at the end (ignored if the title is invalid).
    case addTapped(title: String)
    /// An action of one item's row.
    case todos(IdentifiedActionOf<TodoRow>)
    /// Presents the title editor for the item.
    case editTapped(id: Todo.ID)
    /// An action of the title editor, or its dismissal.
    case editor(PresentationAction<Editor.Action>)
    /// Opens the item mode for the item, above the list.
    case openTapped(id: Todo.ID)
    /// An action of the stack of modes.
    case path(StackAction<Mode.State, Mode.Action>)
    /// Deletes the item, and leaves the modes about it; it can be restored for
    /// ``Todos/undoWindow``.
    case deleteTapped(id: Todo.ID)
    /// Moves the item to the position the other item has now.
    case moveTapped(id: Todo.ID, toPositionOf: Todo.ID)
    /// Shows all, active or completed items.
    case filterChanged(Filter)
    /// Restores the last deleted item, if it can still be restored.
    case undoTapped
    /// The time to restore the last deleted item has passed.
    case undoExpired
    /// Saving failed with this message.
    case saveFailed(String)
    /// The list's file was changed by another program: the list is its new contents.
    case listChanged(SharedChange<IdentifiedArray<Todo>>)
    /// The program is about to exit: stops the undo timer, so nothing is left running.
    case exiting
  }

  /// Cancellation ids of the program's long-running effects.
  public enum CancelID: Hashable, Sendable {
    /// The timer that ends the undo window.
    case undoTimer
  }

  @Dependency(\.continuousClock) var clock
  @Dependency(\.uuid) var uuid

  /// Creates the feature.
  public init() {}

  /// The list's reducer with its rows, the editor and the modes. Every change of the items is a
  /// change of the shared list, which the library saves.
  public var body: some Reducer<State, Action> {
    Reduce(core)
      .forEach(\.todos, action: .todos) { TodoRow() }
      .ifLet(\.$editor, action: .editor) { Editor() }
      .forEach(\.path, action: .path) { Mode() }
  }

  /// The program's reducer: ``Todos``, receiving the changes another program makes to the
  /// list's file.
  public static func receivingList() -> ReceiveSharedReducer<Todos, IdentifiedArray<Todo>> {
    Todos().receivingShared(\.list, action: .case(Action.listChanged))
  }

  private func core(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .addTapped(let title):
      guard Title.problem(with: title) == nil else { return .none }
      state.todos.append(Todo(id: uuid(), title: Title.normalized(title)))
      return .none

    case .todos:
      return .none

    case .editTapped(let id):
      guard let todo = state.todos[id: id] else { return .none }
      state.editor = Editor.State(todo: todo)
      return .none

    case .editor(.presented(.delegate(.save(let title)))):
      guard let id = state.editor?.id else { return .none }
      state.todos[id: id]?.title = title
      return .none

    case .editor:
      return .none

    case .openTapped(let id):
      guard state.todos.contains(id: id) else { return .none }
      state.path.append(.detail(Detail.State(todoID: id)))
      return .none

    case .path(.element(let id, .detail(.tagsTapped))):
      guard let mode = state.path[id: id] else { return .none }
      state.path.append(.tags(TagsMode.State(todoID: mode.todoID)))
      return .none

    case .path:
      return .none

    case .deleteTapped(let id):
      guard let index = state.todos.index(id: id) else { return .none }
      // Leave the modes about the item (from the lowest one up); their effects end with them.
      if let mode = state.path.ids.first(where: { state.path[id: $0]?.todoID == id }) {
        state.path.pop(from: mode)
      }
      if state.editor?.id == id { state.editor = nil }
      let todo = state.todos.remove(at: index)
      state.undo = .available(todo, index: index)
      return .run { [clock] send in
        try await clock.sleep(for: Self.undoWindow)
        await send(.undoExpired)
      }
      .cancellable(id: CancelID.undoTimer, cancelInFlight: true)

    case .moveTapped(let id, let target):
      guard let from = state.todos.index(id: id), let to = state.todos.index(id: target),
        from != to
      else { return .none }
      state.todos.move(fromOffsets: [from], toOffset: from < to ? to + 1 : to)
      return .none

    case .filterChanged(let filter):
      state.filter = filter
      return .none

    case .undoTapped:
      guard case .available(let todo, let index) = state.undo else { return .none }
      // Another item with its id cannot have appeared (ids are new UUIDs), but never trap.
      if !state.todos.contains(id: todo.id) {
        state.todos.insert(todo, at: min(index, state.todos.count))
      }
      state.undo = nil
      return .cancel(id: CancelID.undoTimer)

    case .undoExpired:
      guard case .available(let todo, _) = state.undo else { return .none }
      state.undo = .expired(title: todo.title)
      return .none

    case .saveFailed(let message):
      state.saveError = message
      return .none

    case .listChanged:
      // The list is the file's already. Leave what shows an item that is gone: the modes about
      // it (from the lowest one up; their effects end with them) and its editor.
      let todos = state.todos
      let gone = state.path.ids.first { id in
        state.path[id: id].map { !todos.contains(id: $0.todoID) } ?? false
      }
      if let gone { state.path.pop(from: gone) }
      if let id = state.editor?.id, !state.todos.contains(id: id) { state.editor = nil }
      return .none

    case .exiting:
      return .cancel(id: CancelID.undoTimer)
    }
  }
}

extension CasePath where Root == Todos.Action {
  /// Routes row actions.
  public static var todos: CasePath<Todos.Action, IdentifiedActionOf<TodoRow>> {
    .case(Todos.Action.todos)
  }

  /// Routes the editor's actions.
  public static var editor: CasePath<Todos.Action, PresentationAction<Editor.Action>> {
    .case(Todos.Action.editor)
  }

  /// Routes the actions of the stack of modes.
  public static var path: CasePath<Todos.Action, StackAction<Mode.State, Mode.Action>> {
    .case(Todos.Action.path)
  }
}
