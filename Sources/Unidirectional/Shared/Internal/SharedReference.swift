import Dispatch

/// The one value behind every ``Shared`` of a key in a storage: the value, its version, and the
/// key's storage (loaded once, saved in the background, watched for changes from outside).
///
/// ## States of the stored copy
///
/// - *in step*: the value was loaded (or there was nothing to load) and every change is saved,
///   a burst of changes once (`isSaveScheduled`).
/// - *not loadable* (`loadFailure` set): the stored copy could not be loaded, or a change from
///   outside made it unreadable. The value lives in memory; nothing is saved, so that nothing is
///   overwritten. The first refused save is reported. A change from outside that loads brings
///   the reference back *in step*, with that value.
@usableFromInline
final class SharedReference<Value: Sendable>: Sendable {
  /// What the value is, for issues: the file's path, or the key's id.
  let name: String

  @usableFromInline let state: Locked<State>

  @usableFromInline
  struct State {
    @usableFromInline var value: Value
    /// Counts the changes: 0 for the default, 1 for a value loaded from the storage, then one
    /// more per change. A loaded value is a change from the default: a replay that starts from
    /// the default takes it (see `Shared.currentChange`).
    @usableFromInline var version: UInt64 = 0
    var loadFailure: SharedStorageError?
    /// Whether a refused save was reported since `loadFailure` was set.
    var refusalReported = false
    /// Whether a save is waiting on `saveQueue`: it saves the value current when it runs.
    var isSaveScheduled = false
    /// Called after each change with the new value, its version and the `Shared.instance` whose
    /// `withLock` made it (`nil` for a change from outside), by subscription number.
    var subscribers: [UInt64: @Sendable (Value, UInt64, UInt64?) -> Void] = [:]
    var nextSubscriber: UInt64 = 0
    /// Whether a change needs more than the new value and version: a save (the key saves, and
    /// no save waits yet), a refusal to report (`loadFailure`), or subscribers to tell. Kept
    /// current by every change of those, so that a change of a value kept in memory that no
    /// store receives is a lock, the closure and a count.
    @usableFromInline var hasFollowUp = false

    init(value: Value) {
      self.value = value
    }

    /// Sets `hasFollowUp` from what it depends on.
    mutating func updateFollowUp(savesValues: Bool) {
      hasFollowUp =
        (savesValues && !isSaveScheduled) || loadFailure != nil || !subscribers.isEmpty
    }
  }

  /// The storage, held weakly: it holds this reference.
  weak let storage: SharedStorage?
  private let save: @Sendable (Value, SharedStorage) throws -> Void
  private let watch:
    @Sendable (SharedStorage, @escaping @Sendable (Result<Value, any Error>) -> Void) ->
      ObservationToken?
  /// Whether the key stores the value anywhere (an in-memory key does not: no save is
  /// scheduled for it).
  let savesValues: Bool
  /// Saves run here, one at a time, in order.
  private let saveQueue = DispatchQueue(label: "Unidirectional.SharedReference.save")

  /// Makes the reference of `key` in `storage`, loading it (an issue is reported if it cannot be
  /// loaded; the value is then `makeDefault()`).
  init<Key: SharedKey>(key: Key, storage: SharedStorage, default makeDefault: () -> Value)
  where Key.Value == Value {
    self.name = (key as? FileKey<Value>)?.path ?? "\(Key.self)(\(key.id))"
    self.storage = storage
    self.save = { value, storage in try key.save(value, to: storage) }
    self.watch = { storage, onChange in key.watch(in: storage, onChange: onChange) }
    let savesValues = !(key is any ValueKeptInMemory)
    self.savesValues = savesValues
    var initial = State(value: makeDefault())
    do {
      if let loaded = try key.load(from: storage) {
        initial.value = loaded
        initial.version = 1
      }
    } catch {
      let failure = Self.storageError(error, name: name)
      initial.loadFailure = failure
      storage.onIssue(failure)
    }
    initial.updateFollowUp(savesValues: savesValues)
    self.state = Locked(initial)
  }

  /// Starts the key's watch (once the reference is filed in its storage), which the storage
  /// keeps for its life.
  ///
  /// The watch holds the reference strongly, as the save queue's jobs and the subscriptions'
  /// tokens do: a weak reference would give the reference a side table, which makes every
  /// retain and release of it (each copy of a `Shared`, each observer's read of one) several
  /// times dearer, and contended between the threads of stores reading one value. The storage
  /// holds its references for its life anyway; its watches end with it.
  func startWatching() -> ObservationToken? {
    guard let storage else { return nil }
    return watch(storage) { result in self.changedOutside(result) }
  }

  /// The value and its version now.
  var current: (value: Value, version: UInt64) {
    state.withLock { ($0.value, $0.version) }
  }

  /// Why the stored copy cannot be loaded now, if it cannot.
  var loadFailure: SharedStorageError? {
    state.withLock { $0.loadFailure }
  }

  /// Changes the value under the reference's lock, schedules its save, and tells subscribers.
  ///
  /// - Parameter origin: The `Shared.instance` making the change.
  /// - Returns: What `body` returned, the new value and its version.
  @inlinable
  func withLock<Result>(_ body: (inout Value) throws -> Result, by origin: UInt64? = nil) rethrows
    -> (result: Result, value: Value, version: UInt64)
  {
    state.lock()
    let result: Result
    do {
      result = try body(&state.value.value)
    } catch {
      state.unlock()
      throw error
    }
    state.value.version &+= 1
    let value = state.value.value
    let version = state.value.version
    guard state.value.hasFollowUp else {
      state.unlock()
      return (result, value, version)
    }
    followUp(value: value, version: version, origin: origin)
    return (result, value, version)
  }

  /// The rest of a change, with the lock held (it unlocks): schedules the save, or reports the
  /// refused one, and tells the subscribers. Out of line: most changes need none of it.
  @usableFromInline
  func followUp(value: Value, version: UInt64, origin: UInt64?) {
    var refused: SharedStorageError?
    var scheduleSave = false
    if let failure = state.value.loadFailure {
      if !state.value.refusalReported {
        state.value.refusalReported = true
        refused = .notOverwritten(path: failure.path)
      }
    } else if savesValues && !state.value.isSaveScheduled {
      state.value.isSaveScheduled = true
      scheduleSave = true
    }
    state.value.updateFollowUp(savesValues: savesValues)
    let subscribers = Array(state.value.subscribers.values)
    state.unlock()
    if let refused { storage?.onIssue(refused) }
    if scheduleSave, let storage {
      storage.schedule(on: saveQueue) { self.saveCurrent() }
    }
    for subscriber in subscribers { subscriber(value, version, origin) }
  }

  /// Takes `change` if it is newer than the value (a replayed change, in a storage that never
  /// saw it), without saving it or telling subscribers: the store that applied it has it.
  @inlinable
  func adopt(_ change: SharedChange<Value>) {
    state.withLock { state in
      guard change.version > state.version else { return }
      state.value = change.value
      state.version = change.version
    }
  }

  /// Calls `onChange` after each change, with the new value and version, until the token is
  /// cancelled or released.
  func subscribe(_ onChange: @escaping @Sendable (Value, UInt64) -> Void) -> ObservationToken {
    subscribe { value, version, _ in onChange(value, version) }
  }

  /// Calls `onChange` after each change, with the new value, its version and the
  /// `Shared.instance` that made it (`nil` for a change from outside), until the token is
  /// cancelled or released.
  func subscribe(_ onChange: @escaping @Sendable (Value, UInt64, UInt64?) -> Void)
    -> ObservationToken
  {
    let number = state.withLock { state in
      defer { state.nextSubscriber += 1 }
      state.subscribers[state.nextSubscriber] = onChange
      state.updateFollowUp(savesValues: savesValues)
      return state.nextSubscriber
    }
    // Holds the reference (never weakly: see `startWatching`); the store holding the token holds
    // a `Shared` of it anyway.
    return ObservationToken {
      // Released outside the lock: its captures' deinits may call back in.
      let removed = self.state.withLock { state in
        defer { state.updateFollowUp(savesValues: self.savesValues) }
        return state.subscribers.removeValue(forKey: number)
      }
      withExtendedLifetime(removed) {}
    }
  }

  /// Saves the value current now (the saving queue's job).
  private func saveCurrent() {
    guard let storage else { return }
    let value: Value? = state.withLock { state in
      state.isSaveScheduled = false
      state.updateFollowUp(savesValues: savesValues)
      return state.loadFailure == nil ? state.value : nil
    }
    guard let value else { return }
    do {
      try save(value, storage)
    } catch {
      storage.onIssue(Self.storageError(error, name: name))
    }
  }

  /// A change made outside the storage, heard by the key's watch.
  private func changedOutside(_ result: Result<Value, any Error>) {
    switch result {
    case .success(let value):
      let (version, subscribers) = state.withLock { state in
        state.value = value
        state.version &+= 1
        state.loadFailure = nil
        state.refusalReported = false
        state.updateFollowUp(savesValues: savesValues)
        return (state.version, Array(state.subscribers.values))
      }
      for subscriber in subscribers { subscriber(value, version, nil) }
    case .failure(let error):
      // Never overwritten from now on, until it loads again.
      let failure = Self.storageError(error, name: name)
      state.withLock { state in
        state.loadFailure = failure
        state.refusalReported = false
        state.updateFollowUp(savesValues: savesValues)
      }
      storage?.onIssue(failure)
    }
  }

  /// `error` as a storage error: as it is if it is one, otherwise described with the value's
  /// name.
  private static func storageError(_ error: any Error, name: String) -> SharedStorageError {
    (error as? SharedStorageError) ?? .unreadable(path: name, reason: "\(error)")
  }
}

/// A key whose value lives only in memory: its reference schedules no save.
protocol ValueKeptInMemory {}

extension InMemoryKey: ValueKeptInMemory {}
