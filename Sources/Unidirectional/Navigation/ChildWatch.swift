/// How a store tells, after every action, that a navigation child with effects is gone,
/// whichever reducer removed it: the child's parent, a sibling combined before or after the
/// navigation reducer, or a parent further up that replaced the whole branch.
///
/// A navigation reducer (`ifLet`, presentation `ifLet`, `ifCaseLet`, a stack's or a
/// collection's `forEach`) returns a watch with the effects of a child (`Effect.watching`). On
/// its way up, every library reducer that holds the child's state inside its own lifts the
/// watch to its own state (`lifted(_:)`), as it maps the child's actions; the store keeps the
/// watches of its root state and, after each action, asks them about the committed state (see
/// `EffectRuntime.checkWatches`). A navigation reducer still cancels at once what its own parent
/// removed; a watch catches everything else, at the end of the same action.
///
/// The check reads the identity of one child (presence, enum case, `Identifiable` id, a
/// presentation's or a stack element's number), or, for the rows of a `forEach`, the version
/// counters of the collection first and the rows only when some may be gone: after an action,
/// a store pays one check per watched child and per watched collection, never one per row.
@usableFromInline
struct ChildWatch: Sendable {
  /// Effects a check found ended.
  enum Cancellation: Sendable {
    /// The effects of the child with this id (a `ChildEffectsID`, scoped as the store sees it).
    case id(EffectID)
    /// The effects whose ids match (the rows of a `forEach` that are gone).
    case matching(@Sendable (any Hashable & Sendable) -> Bool)
  }

  /// What a check found.
  struct Verdict {
    /// The effects of the children that are gone.
    var cancellations: [Cancellation] = []
    /// Whether the watch has nothing left to watch (its child is gone).
    var isFinished = false

    /// Nothing changed.
    static var unchanged: Verdict { Verdict() }

    /// The child is gone: cancel `cancellations`, and stop watching.
    static func gone(_ cancellations: [Cancellation]) -> Verdict {
      Verdict(cancellations: cancellations, isFinished: true)
    }
  }

  /// Identifies the watch in its store: a second watch with an equal key is not kept (the first
  /// one knows what changed since it was kept). A `ChildEffectsID`, scoped as the child's ids
  /// are.
  let key: EffectID

  /// The state type `check` reads.
  let stateType: ObjectIdentifier

  /// What ends when the place that holds the child is gone (a parent's case left, an outer
  /// child removed): every effect this watch covers.
  let whenGone: [Cancellation]

  /// Reads the state at the pointer (a `stateType`) and says which children are gone.
  let check: @Sendable (UnsafeRawPointer) -> Verdict

  /// The `forEach` row the watched child lives in, if any (the outermost one): an action that
  /// wrote no such row leaves the child as it was, so the store skips the check (see
  /// `WatchSet`). Without it, after every action, a store would check one watch per row whose
  /// child has effects running.
  let row: Row?

  /// The row of a collection a watched child lives in.
  struct Row: Sendable {
    /// The collection, as one key for all its rows (scoped as the watch's key).
    let collection: EffectID
    /// The row's id.
    let id: EffectID
    /// Reads the collection's write versions from the state the watch reads, or `nil` when the
    /// collection's place is gone.
    let versions: @Sendable (UnsafeRawPointer) -> RowWrites?
  }

  /// What a collection says about its latest writes (see `IdentifiedArray.noteWrite`).
  struct RowWrites: Equatable {
    /// Changes with every write.
    let version: UInt64
    /// `version` before the latest run of writes to one row.
    let previousVersion: UInt64
    /// The only row that run of writes changed, if it changed one.
    let lastWrittenID: EffectID?
  }

  /// A watch over `State`.
  init<State>(
    key: EffectID, state: State.Type, whenGone: [Cancellation], row: Row? = nil,
    check: @escaping @Sendable (UnsafePointer<State>) -> Verdict
  ) {
    self.key = key
    self.stateType = ObjectIdentifier(State.self)
    self.whenGone = whenGone
    self.row = row
    self.check = { check($0.assumingMemoryBound(to: State.self)) }
  }

  private init(
    key: EffectID, stateType: ObjectIdentifier, whenGone: [Cancellation], row: Row?,
    check: @escaping @Sendable (UnsafeRawPointer) -> Verdict
  ) {
    self.key = key
    self.stateType = stateType
    self.whenGone = whenGone
    self.row = row
    self.check = check
  }

  /// This watch, over the state of the parent that holds its state: `child` reads the child's
  /// state from the parent's, or gives `nil` if it is not there (then everything this watch
  /// covers is gone). `nil` if this watch is not over `Child` (a reducer in between scoped by
  /// hand without lifting it: the store cannot check it, and drops it).
  ///
  /// - Parameter row: The row of a collection that `child` reads, for a `forEach`: it replaces
  ///   the row an inner `forEach` gave (a row left unwritten leaves its inner rows as they were).
  func lifted<Parent, Child>(
    from _: Child.Type, row: Row? = nil, _ child: @escaping @Sendable (Parent) -> Child?
  ) -> ChildWatch? {
    guard stateType == ObjectIdentifier(Child.self) else { return nil }
    let check = check
    let whenGone = whenGone
    return ChildWatch(
      key: key, state: Parent.self, whenGone: whenGone,
      row: row ?? self.row.map { $0.lifted(child) }
    ) { parent in
      guard let state = child(parent.pointee) else { return .gone(whenGone) }
      return withUnsafePointer(to: state) { check(UnsafeRawPointer($0)) }
    }
  }

  /// This watch as the parent's effects see it: the ids it names scoped as the ids of the
  /// child's effects are (see `EffectIDScoping`).
  func scoped(_ ids: EffectIDScoping) -> ChildWatch {
    guard ids.scope != nil || ids.compositionScope != nil else { return self }
    let check = check
    return ChildWatch(
      key: ids.scoped(key), stateType: stateType, whenGone: whenGone.map(ids.scoped),
      row: row.map { Row(collection: ids.scoped($0.collection), id: $0.id, versions: $0.versions) }
    ) { state in
      var verdict = check(state)
      verdict.cancellations = verdict.cancellations.map(ids.scoped)
      return verdict
    }
  }
}

extension ChildWatch.Row {
  /// This row, read through the parent that holds the child state its versions are read from.
  func lifted<Parent, Child>(_ child: @escaping @Sendable (Parent) -> Child?) -> Self {
    let versions = versions
    return Self(collection: collection, id: id) { parent in
      guard let state = child(parent.assumingMemoryBound(to: Parent.self).pointee) else {
        return nil
      }
      return withUnsafePointer(to: state) { versions(UnsafeRawPointer($0)) }
    }
  }
}

extension EffectIDScoping {
  /// `cancellation` as the parent's effects see it.
  func scoped(_ cancellation: ChildWatch.Cancellation) -> ChildWatch.Cancellation {
    switch cancellation {
    case .id(let id): .id(scoped(id))
    case .matching(let predicate): .matching(scoped(predicate))
    }
  }

  /// A predicate over child composition ids (`ChildEffectsID`s), as the parent's effects see
  /// them: it matches the ids scoped to this child only.
  func scoped(
    _ predicate: @escaping @Sendable (any Hashable & Sendable) -> Bool
  ) -> @Sendable (any Hashable & Sendable) -> Bool {
    guard let scope = scope ?? compositionScope else { return predicate }
    return { id in
      guard let scoped = id as? ScopedEffectID, scoped.scope == scope else { return false }
      return predicate(scoped.id.base)
    }
  }
}

extension Effect {
  /// `self`, with `watch` kept by the store from now on (see ``ChildWatch``).
  func watching(_ watch: ChildWatch) -> Self {
    merge(with: Self(.watch(watch)))
  }
}
