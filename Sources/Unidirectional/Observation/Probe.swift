#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// What an observer read: a key path of the state, or a value inside one element of an
/// `IdentifiedArray`, found by id. Probes are keyed by it, so that observers making the same read
/// share one probe.
enum ReadKey: Hashable, @unchecked Sendable {
  // Safe: key paths are immutable, and ids are `Sendable` where they are made.
  case keyPath(AnyKeyPath)
  case element(array: AnyKeyPath, id: AnyHashable, field: AnyKeyPath)
  /// A read through a child store whose state can go away: answered from the child's last state
  /// once it is gone, so a probe of its own (`reader` is the id of the child's `ChildReader`).
  indirect case child(ReadKey, reader: UInt64)
}

/// Watches one read of a store's state for the observers that made it, and says after an action
/// whether its value changed.
///
/// There is one probe per distinct read, shared by every observer that made it, so a value read
/// by a thousand observers is compared once per action.
///
/// ## Kinds, and when a probe is evaluated
///
/// - `stored`: a chain of stored properties, whose value lives at known bytes of the state. The
///   graph evaluates it only after those bytes changed (see `ByteIndex`). A load: never traps.
/// - `element`: a value inside one element of an `IdentifiedArray` stored in the state, found by
///   id. The graph evaluates it only after a write to that element (see `ElementGroup`). Safe
///   when the value inside the element is a stored property (the lookup gives `nil` for a
///   missing element); otherwise it is evaluated like a computed read, in order.
/// - `computed`: any other key path (subscripts, computed properties, optional chains). Nothing
///   says when it changed, so the observers that made it are checked after every action, and it
///   is evaluated lazily, only when an observer's check reaches it in the order of its reads
///   (DESIGN invariant 1: an earlier guard such as `count > 7` protects a later `items[7]`).
/// - `alwaysChanged`: a value that is neither `Equatable` nor a class instance: changed after
///   every action, never evaluated.
///
/// ## Rules of change
///
/// `!=` for `Equatable` values, except that a value bit-for-bit identical to the last one is
/// unchanged (so a `Double.nan` that keeps its bits is unchanged, for every kind alike); `!==`
/// for class instances. A probe always keeps the value it saw last, even when it compares equal
/// (DESIGN invariant 4): equal values can live in different storage, and the bytes of the state
/// prove a stored value unchanged only while the probe shares that storage.
///
/// Probes are used only by the thread that owns their store (see `StoreGate`), or by the thread
/// that builds one before handing it to that owner.
@usableFromInline
class Probe: @unchecked Sendable {
  // Safe: see above; a probe is never used by two threads at once.

  @usableFromInline
  enum Kind: UInt8 {
    case stored, element, computed, alwaysChanged
  }

  @usableFromInline final let kind: Kind

  /// Whether evaluating the probe can never trap, so it may be evaluated eagerly.
  @usableFromInline final let isSafe: Bool

  /// Whether this is a row store's keeper probe (see `ElementKeeping`): its element group files
  /// it after the other probes of its element. Set before the probe is filed.
  @usableFromInline @exclusivity(unchecked) final var isKeeper = false

  /// The key path read; for an element read, the key path of the value inside the element.
  @usableFromInline final let keyPath: AnyKeyPath

  /// For an element read, the key path of the array in the state; `nil` otherwise.
  @usableFromInline final let arrayKeyPath: AnyKeyPath?

  /// For a read through a child store that answers from its last state once the state is gone:
  /// the id of the child's reader (see `ChildReader.id`).
  @usableFromInline final let reader: UInt64?

  /// For a stored read, where its value lives in the state (`byteCount` is 0 otherwise).
  @usableFromInline final let byteStart: Int
  final let byteCount: Int

  /// The observers whose latest run made this read, ordered by registration. Changed only by
  /// the graph's `update`, `remove` and `removeAll`.
  @exclusivity(unchecked) final var subscribers: [ObserverRecord] = []

  /// The generation (the graph's count of actions) after which the value last changed.
  @exclusivity(unchecked) final var changedAt: UInt64 = 0

  /// The generation of the state the value was last taken from, for probes evaluated lazily.
  @usableFromInline @exclusivity(unchecked) final var verifiedAt: UInt64

  /// For an element probe that is not safe: the generation whose action wrote its element, so
  /// it must be evaluated (in order) before it can be trusted.
  @exclusivity(unchecked) final var dirtyAt: UInt64 = 0

  /// The last refresh pass that looked at this probe (the byte index looks once per pass).
  /// Stored probes only: a keeper probe keeps `keptAt` here.
  @usableFromInline @exclusivity(unchecked) final var refreshedAt: UInt64 = 0

  /// For a row store's keeper probe: the generation whose write of the row a field probe of the
  /// same row store already remembered, so that the graph skips the keeper then (see
  /// `ElementKeeping`). Kept in `refreshedAt`, which only stored probes use otherwise: a field
  /// of its own would grow every probe.
  @inlinable final var keptAt: UInt64 {
    get { refreshedAt }
    set { refreshedAt = newValue }
  }

  /// The element group the probe belongs to, if any.
  @exclusivity(unchecked) final var group: ElementGroup?

  /// Whether the graph holds the probe (a recorder may still hold a probe the graph dropped when
  /// its last observer was cancelled during a run).
  @exclusivity(unchecked) final var isFiled = false

  /// Evaluates the read on a state, remembers the new value (always), and returns whether it
  /// changed; the flag says the refresh follows any action (a tracked read), when identical bits
  /// count as unchanged whatever the rule. Made where the types of the read are known (see
  /// `Probe+Making`), so the refresh after every action is specialized code, not generic code
  /// comparing through witness tables. Not optional: a closure stored as a `let` is called
  /// without taking a reference to its context.
  @usableFromInline final let refresher: (UnsafeRawPointer, Probe, _ afterAnyAction: Bool) -> Bool

  init(
    kind: Kind, isSafe: Bool, keyPath: AnyKeyPath, arrayKeyPath: AnyKeyPath? = nil,
    reader: UInt64? = nil, byteRange: Range<Int>? = nil, generation: UInt64,
    refresher: @escaping (UnsafeRawPointer, Probe, _ afterAnyAction: Bool) -> Bool
  ) {
    self.refresher = refresher
    self.kind = kind
    self.isSafe = isSafe
    self.keyPath = keyPath
    self.arrayKeyPath = arrayKeyPath
    self.reader = reader
    self.byteStart = byteRange?.lowerBound ?? 0
    self.byteCount = byteRange?.count ?? 0
    self.verifiedAt = generation
  }

  /// The key the graph files the probe under.
  var key: ReadKey {
    let key = ReadKey.keyPath(keyPath)
    return reader.map { .child(key, reader: $0) } ?? key
  }

  /// Evaluates the read on `state`, remembers the new value (always), and returns whether it
  /// changed.
  @inline(__always)
  final func refresh(_ state: UnsafeRawPointer) -> Bool {
    refresher(state, self, false)
  }

  /// Like `refresh`, for a probe checked after every action whatever changed (a tracked read):
  /// a value whose bits are unchanged is unchanged, for a stored probe too.
  final func refreshAfterAnyAction(_ state: UnsafeRawPointer) -> Bool {
    refresher(state, self, true)
  }

  /// A probe of a value that can be compared neither by value nor by identity: changed after
  /// every action, and never evaluated.
  @usableFromInline
  static func alwaysChanged(keyPath: AnyKeyPath, reader: UInt64? = nil, generation: UInt64)
    -> Probe
  {
    Probe(
      kind: .alwaysChanged, isSafe: true, keyPath: keyPath, reader: reader,
      generation: generation, refresher: { _, _, _ in true })
  }

  #if DEBUG
    /// Debug builds, for ``PerformanceHints``: if the value is a collection of `Equatable`
    /// elements, how many of them the value in `state` changes; `nil` otherwise. Neither
    /// remembers the new value nor traps (called for stored probes only).
    func elementChanges(in state: UnsafeRawPointer) -> ElementChanges? {
      nil
    }
  #endif

  /// Takes the value of `other`, a probe of the same read made on the current state by an
  /// observer that has just run (so the value is current without evaluating anything).
  func adopt(_ other: Probe) {}

  /// Makes the element group of this element probe's array, as of `state`.
  func makeGroup(state: UnsafeRawPointer) -> ElementGroup {
    preconditionFailure("Unidirectional: not an element probe")
  }

  /// For an element probe, the hash of its element's id, as its group files it.
  var elementIDHash: Int {
    preconditionFailure("Unidirectional: not an element probe")
  }

  /// Whether the probe must be evaluated (in order) before its `changedAt` can be trusted at
  /// `generation`.
  @inline(__always)
  final func needsEvaluation(at generation: UInt64) -> Bool {
    switch kind {
    case .stored: false
    case .element: !isSafe && dirtyAt == generation && verifiedAt != generation
    case .computed, .alwaysChanged: verifiedAt != generation
    }
  }

  /// Evaluates the probe for `generation` and records whether it changed.
  @inline(__always)
  final func verify(_ state: UnsafeRawPointer, at generation: UInt64) {
    if kind == .alwaysChanged || refresh(state) { changedAt = generation }
    verifiedAt = generation
  }

  // MARK: Subscribers

  /// Inserts `observer` among the subscribers, keeping registration order.
  final func subscribe(_ observer: ObserverRecord) {
    let index = subscribers.position(of: observer)
    if index < subscribers.count, subscribers[index] === observer { return }
    subscribers.insert(observer, at: index)
  }

  /// Removes `observer` from the subscribers.
  final func unsubscribe(_ observer: ObserverRecord) {
    let index = subscribers.position(of: observer)
    if index < subscribers.count, subscribers[index] === observer {
      subscribers.remove(at: index)
    }
  }

  /// Whether no observer uses the probe any more.
  final var isUnused: Bool { subscribers.isEmpty }

  /// Whether the probe is evaluated only when an observer's ordered check reaches it, so that its
  /// value is current only if `verifiedAt` is the current generation.
  @usableFromInline final var isLazy: Bool {
    switch kind {
    case .stored: false
    case .element: !isSafe
    case .computed, .alwaysChanged: true
    }
  }
}
