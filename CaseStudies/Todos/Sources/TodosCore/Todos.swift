import Foundation
import Unidirectional

/// The whole to-do program: the list, its filter, the undo of the last delete, and saving.
public struct Todos: Reducer {
  /// How long a deleted item can be restored with `undo`.
  public static let undoWindow: Duration = .seconds(5)

  /// The program's state.
  public struct State: Equatable, Sendable {
    /// Every item, in the user's order.
    public var todos: IdentifiedArray<Todo>
    /// Which items the list shows.
    public var filter: Filter
    /// The last deleted item, while it can be restored, and then the fact that it cannot.
    public var undo: Undo?
    /// The last save failure, if a save failed; the file then still holds an earlier list.
    public var saveError: String?

    /// Creates a state.
    public init(
      todos: IdentifiedArray<Todo> = [], filter: Filter = .all, undo: Undo? = nil,
      saveError: String? = nil
    ) {
      self.todos = todos
      self.filter = filter
      self.undo = undo
      self.saveError = saveError
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
    /// Deletes the item; it can be restored for ``Todos/undoWindow``.
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
    /// The program is about to exit: stops the undo timer, so nothing is left running.
    case exiting
  }

  /// Cancellation ids of the program's long-running effects.
  public enum CancelID: Hashable, Sendable {
    /// The timer that ends the undo window.
    case undoTimer
    /// The save in progress.
    case save
  }

  @Dependency(\.continuousClock) var clock
  @Dependency(\.uuid) var uuid
  @Dependency(\.todoStorage) var storage

  /// Creates the feature.
  public init() {}

  /// The list's reducer, its rows, and a save whenever the items change.
  public var body: some Reducer<State, Action> {
    SavingChanges(storage: storage) {
      Reduce(core)
        .forEach(\.todos, action: .todos) { TodoRow() }
    }
  }

  private func core(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .addTapped(let title):
      guard Title.problem(with: title) == nil else { return .none }
      state.todos.append(Todo(id: uuid(), title: Title.normalized(title)))
      return .none

    case .todos:
      return .none

    case .deleteTapped(let id):
      guard let index = state.todos.index(id: id) else { return .none }
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

    case .exiting:
      return .cancel(id: CancelID.undoTimer)
    }
  }
}

/// Runs `base`, then saves the list through the storage dependency if the action changed it.
///
/// Each save cancels the one before it if that one has not started writing, so saves never
/// finish out of order (see ``TodoStorage/file(_:)``).
struct SavingChanges<Base: Reducer<Todos.State, Todos.Action>>: Reducer {
  let storage: TodoStorage
  let base: Base

  init(storage: TodoStorage, @ReducerBuilder<Todos.State, Todos.Action> base: () -> Base) {
    self.storage = storage
    self.base = base()
  }

  func reduce(into state: inout Todos.State, action: Todos.Action) -> Effect<Todos.Action> {
    let before = state.todos
    let effect = base.reduce(into: &state, action: action)
    guard state.todos != before else { return effect }
    let todos = state.todos
    let save = Effect<Todos.Action>.run { [storage] _ in
      try await storage.save(todos)
    } catch: { error, send in
      await send(.saveFailed("\(error)"))
    }
    .cancellable(id: Todos.CancelID.save, cancelInFlight: true)
    return .merge(effect, save)
  }
}

extension CasePath where Root == Todos.Action {
  /// Routes row actions.
  public static var todos: CasePath<Todos.Action, (id: Todo.ID, action: TodoRow.Action)> {
    .init(
      { Todos.Action.todos(.element(id: $0.id, action: $0.action)) },
      extract: {
        if case .todos(.element(let id, let action)) = $0 { (id, action) } else { nil }
      })
  }
}

// Stand-in until the navigation API lands on this branch (same shape as its contract).
public enum IdentifiedAction<ID: Hashable & Sendable, Action> {
  case element(id: ID, action: Action)
}
extension IdentifiedAction: Equatable where Action: Equatable {}
extension IdentifiedAction: Sendable where Action: Sendable {}
public typealias IdentifiedActionOf<R: Reducer> = IdentifiedAction<R.State.ID, R.Action>
where R.State: Identifiable, R.State.ID: Sendable
