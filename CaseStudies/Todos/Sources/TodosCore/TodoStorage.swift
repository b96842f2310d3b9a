import Foundation
import Unidirectional

/// Where the to-do list is saved: the dependency behind the store's save effect.
///
/// The program uses ``file(_:)``; tests use ``inMemory(_:)`` and read what was saved.
public struct TodoStorage: Sendable {
  /// Saves the whole list. Throws if it could not be saved (the previous save is then intact).
  public var save: @Sendable (IdentifiedArray<Todo>) async throws -> Void

  /// Creates a storage from a save function.
  public init(save: @escaping @Sendable (IdentifiedArray<Todo>) async throws -> Void) {
    self.save = save
  }

  /// Saves to `file`, one save at a time. A save whose effect was cancelled before it began
  /// writing (because a newer save replaced it) writes nothing, so the file always ends with the
  /// newest list.
  public static func file(_ file: TodoFile) -> Self {
    let lock = NSLock()
    return Self { todos in
      try lock.withLock {
        guard !Task.isCancelled else { return }
        try file.save(todos)
      }
    }
  }

  /// Saves into `saved` (each save appended), for tests and for trying the program without a
  /// file.
  public static func inMemory(_ saved: SavedLists) -> Self {
    Self { todos in saved.append(todos) }
  }
}

/// The lists an in-memory ``TodoStorage`` saved, oldest first.
public final class SavedLists: Sendable {
  private let lists = Locked<[IdentifiedArray<Todo>]>([])

  /// Creates an empty record.
  public init() {}

  /// Every saved list, oldest first.
  public var all: [IdentifiedArray<Todo>] { lists.withLock { $0 } }

  /// The newest saved list, if any.
  public var last: IdentifiedArray<Todo>? { lists.withLock { $0.last } }

  func append(_ todos: IdentifiedArray<Todo>) {
    lists.withLock { $0.append(todos) }
  }
}

extension TodoStorage: DependencyKey {
  /// Saves to the default file (see ``TodoFile/resolvedPath(option:environment:)``). The
  /// program overrides it with the file it loaded.
  public static var liveValue: TodoStorage {
    .file(
      TodoFile(
        path: TodoFile.resolvedPath(option: nil, environment: ProcessInfo.processInfo.environment))
    )
  }
}

extension DependencyValues {
  /// Where the to-do list is saved.
  public var todoStorage: TodoStorage {
    get { self[TodoStorage.self] }
    set { self[TodoStorage.self] = newValue }
  }
}
