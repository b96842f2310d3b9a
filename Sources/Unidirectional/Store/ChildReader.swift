import Synchronization

/// The next `ChildReader.id`.
let childReaderIDs = Atomic<UInt64>(2)

/// How a child store reads its state from its root store, and the last state it had there.
///
/// Holds no reference to the root store, so that an observer made by the child's
/// `observe(_:_:)` can read through it without keeping the root alive, and keeps working after
/// the child store object is gone.
final class ChildReader<RootState: Sendable, State: Sendable>: Sendable {
  /// Identifies the reads made through this reader, which answer from `lastKnown` once the
  /// child state is gone (`id + 1` is kept for reads that do not; see `ElementAccess`).
  ///
  /// Not the object's address: a probe made by a reader can outlive it, and a reader made later
  /// at the same address would take the probe over, with the dead reader's last state.
  let id = childReaderIDs.wrappingAdd(2, ordering: .relaxed).oldValue

  let toState: ScopePath<RootState, State>
  let element: (any ElementLink<RootState, State>)?

  /// The child state when last seen present, answering reads once it is gone. Kept current by
  /// the child store's keeper observer (see `ScopedStore`).
  let lastKnown: SpinLocked<State>

  /// Root key paths for child key paths read lately, direct-mapped by the child key path's
  /// address: composing a key path costs microseconds, and literals without subscript arguments
  /// are the same object each time. Bounded, so that reads of many key paths leave nothing
  /// behind but the latest few.
  private let paths = Locked(
    [(child: AnyKeyPath, root: AnyKeyPath)?](repeating: nil, count: ChildReader.pathSlots))
  private static var pathSlots: Int { 64 }

  /// `\State.self`, made once: in generic code a key-path literal is a new object each time.
  private let whole = UncheckedSendable(\State.self)

  /// `toState.offset`, computed once: walking a deep key path costs more than the read.
  private let offset: Int?

  init(
    toState: ScopePath<RootState, State>, element: (any ElementLink<RootState, State>)?,
    initialState: State
  ) {
    self.toState = toState
    self.element = element
    self.lastKnown = SpinLocked(initialState)
    self.offset = toState.offset
  }

  /// Whether the child state is in `root` now, read without tracking.
  func isPresent<RootAction>(in root: Store<RootState, RootAction>) -> Bool {
    if case .required = toState { return true }
    return isOptionalPresent(in: root)
  }

  /// `isPresent` of an optional child state. Out of line: this generic code is not specialized,
  /// and its look-up of `State?` (about 300 instructions) was hoisted above the check for a
  /// required child, which every send through a child store paid.
  @inline(never)
  private func isOptionalPresent<RootAction>(in root: Store<RootState, RootAction>) -> Bool {
    guard let offset else { return toState.current(in: root) != nil }
    return root.copyShared {
      UnsafeRawPointer($0).load(fromByteOffset: offset, as: State?.self) != nil
    }.copy
  }

  /// Whether the child state can go away (so that a keeper must remember its last value).
  var isOptional: Bool {
    if case .optional = toState { return true }
    return false
  }

  /// Reads `keyPath` of the child state from `root`, tracked as the child's precise read; once
  /// the child state is gone, from the last state it had, and a read of a value that did not
  /// change that way is no change for observers.
  func read<Value, RootAction>(
    _ keyPath: KeyPath<State, Value>, from root: Store<RootState, RootAction>
  ) -> Value {
    let fallback = ChildFallback(reader: id, lastKnown: lastKnown)
    if let element {
      // Never `nil`: the fallback answers once the element is gone.
      return element.read(keyPath, from: root, fallback: fallback)!
    }
    switch toState {
    case .required(let toState):
      return root.read(rootPath(of: keyPath) { toState.appending(path: keyPath) })
    case .optional(let toState):
      let path = rootPath(of: keyPath) { toState.appending(path: \State?.[unwrapping: keyPath]) }
      return root.record(FallbackRead(keyPath: path, childKeyPath: keyPath, fallback: fallback))!
    }
  }

  /// Reads the whole child state from `root`, tracked; `nil` if it is gone.
  func readWhole<RootAction>(from root: Store<RootState, RootAction>) -> State? {
    if let element { return element.read(whole.value, from: root, fallback: nil) }
    switch toState {
    case .required(let toState): return root.read(toState)
    case .optional(let toState): return root.read(toState)
    }
  }

  /// The observer that keeps `lastKnown` current while the child state can go away (see
  /// `keepLastKnown(in:)`). Held here, so that it runs as long as anything reads through this
  /// reader: the child store, or an observer its `observe(_:_:)` made, which outlives it.
  private let keeper = Locked<ObservationToken?>(nil)

  /// Starts keeping `lastKnown` current from `root`, if the child state can go away: an observer
  /// of the whole child state, registered before any observer of the child, so it runs first.
  ///
  /// - Parameter byOwner: For the store of an element, its keeper's work when the root store's
  ///   owner runs it, in code specialized for the element (see `ElementAccess`); returns
  ///   `false` when run otherwise.
  func keepLastKnown<RootAction>(
    in root: Store<RootState, RootAction>, byOwner: (@Sendable () -> Bool)? = nil
  ) {
    guard isOptional else { return }
    let token = root.observeInternally { [weak root, weak self] in
      // First, without loading the weak references: the root store is alive while its owner
      // runs this.
      if let byOwner, byOwner() { return }
      guard let root, let self, let state = self.readWhole(from: root) else { return }
      self.remember(state)
    }
    keeper.withLock { $0 = token }
  }

  /// Remembers `state` as the last one the child had.
  func remember(_ state: State) {
    var state = state
    lastKnown.withLock { swap(&$0, &state) }
    // The previous state is released here, outside the lock: its deinit may call back in.
  }

  private func rootPath<Path: AnyKeyPath>(of keyPath: AnyKeyPath, make: () -> Path) -> Path {
    let address = UInt(bitPattern: ObjectIdentifier(keyPath))
    let slot = Int(truncatingIfNeeded: (address >> 4) ^ (address >> 10)) & (Self.pathSlots - 1)
    if let entry = paths.withLock({ $0[slot] }), entry.child === keyPath {
      // Stored under this child key path by the line below, so always a `Path`.
      return unsafeDowncast(entry.root, to: Path.self)
    }
    let path = make()
    // The entry it replaces is released after the lock.
    var entry: (child: AnyKeyPath, root: AnyKeyPath)? = (keyPath, path)
    paths.withLock { swap(&$0[slot], &entry) }
    return path
  }
}
