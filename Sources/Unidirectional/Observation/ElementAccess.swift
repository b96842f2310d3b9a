/// How the store of one element of an `IdentifiedArray`, made by `scope(state:id:action:)` on a
/// root store, reads its element while the root store's owner runs an observer: straight from
/// the root's state, with the probe found by prediction, in code specialized for the element
/// and for the value read.
///
/// Otherwise a child store reads through `StoreScope`, an existential over the root's types:
/// generic code that is not specialized, paying metadata look-ups on every read, and on every
/// evaluation of the probes it makes. Here what depends on the root's types (finding the
/// element by id, reading the array's write record) is made where they are known
/// (`scope(state:id:action:)` is inlinable), and what depends on the value read is made by the
/// read (`Store.read` is inlinable). Reads on other threads, and reads outside observers, still
/// go through the child's `ChildReader`; the probes either way are the same, under the same keys.
@usableFromInline
class ElementAccess<Element>: @unchecked Sendable {
  // Safe: the stored properties never change. `graph` and `state` are used only by the thread
  // that owns the root store, while it runs an observer (`ownerRecorder`), as the root store's
  // own reads use them; the root store is alive then, held by the child store or the running
  // observer.

  /// The root store.
  @usableFromInline final let root: ObjectIdentifier
  /// The root store's observation graph.
  @usableFromInline final let graph: ObservationGraph
  /// The root store's drain recorder (see `ownerRecorder`).
  @usableFromInline final let rootRecorder: AccessRecorder
  /// The root store's state.
  @usableFromInline final let state: UnsafeMutableRawPointer
  /// The id of the child's reader (`ChildReader.id`): its reads answer from `lastKnown` once the
  /// element is gone. The keeper's reads, which do not, use `reader + 1`.
  @usableFromInline final let reader: UInt64
  /// The element when last seen (the child reader's).
  @usableFromInline final let lastKnown: SpinLocked<Element>
  /// The address of the element in a root state, or `nil` if it has none there. Valid while that
  /// state is neither written nor released.
  @usableFromInline final let locate: @Sendable (UnsafeRawPointer) -> UnsafeRawPointer?
  /// `\Element.self`, made once, read by the keeper.
  @usableFromInline final let whole: KeyPath<Element, Element> = \Element.self
  /// How this child's field probes keep the element for its keeper.
  @usableFromInline final let keeping: ElementKeeping<Element>

  @usableFromInline
  init(
    root: ObjectIdentifier, graph: ObservationGraph, rootRecorder: AccessRecorder,
    state: UnsafeMutableRawPointer, reader: UInt64, lastKnown: SpinLocked<Element>,
    locate: @escaping @Sendable (UnsafeRawPointer) -> UnsafeRawPointer?
  ) {
    self.root = root
    self.graph = graph
    self.rootRecorder = rootRecorder
    self.state = state
    self.reader = reader
    self.lastKnown = lastKnown
    self.locate = locate
    self.keeping = ElementKeeping(graph: graph, lastKnown: lastKnown)
  }

  /// The recorder of the observer the root store's owner runs on this thread now, if any: its
  /// reads may then use `recordedRead`.
  @inlinable
  final var ownerRecorder: Unmanaged<AccessRecorder>? {
    // A re-run by the root's drain recorder (the common case), found without the thread-local
    // slot (see `AccessRecorder.activeThread`); otherwise a first run's recorder, by the slot.
    let drain = Unmanaged.passUnretained(rootRecorder)
    if drain._withUnsafeGuaranteedRef({ $0.isActiveOnThisThread }) { return drain }
    guard let recorder = AccessRecorder.current,
      recorder._withUnsafeGuaranteedRef({ $0.store == root && $0.isOwning })
    else { return nil }
    return recorder
  }

  /// Reads `field` of the element for the observer that `recorder` (an `ownerRecorder`) records,
  /// and records the read. Once the element is gone, answers from `lastKnown`.
  @inlinable
  final func recordedRead<Value>(_ field: KeyPath<Element, Value>, by recorder: AccessRecorder)
    -> Value
  {
    let value = record(field, reader: reader, lastKnown: lastKnown, isKeeper: false, by: recorder) {
      read, isUnchanged in
      { state, probe, _ in
        // The rule counts identical bits as unchanged (see `recordUnpredicted`): after any
        // action as after a write.
        unsafeDowncast(probe, to: ValueProbe<Value?>.self).take(
          optional: read.valueKeepingElement(in: state), by: isUnchanged, afterAnyAction: false)
      }
    }
    // Never `nil`: answered from `lastKnown` once the element is gone.
    return value!
  }

  /// `recordedRead` of a stored field while the root store's drain recorder re-runs an
  /// observer whose last run made this read next (the common case); `nil` for any other read.
  ///
  /// A few loads: the calls of `ownerRecorder` and `recordedRead` cost more than the read.
  @inlinable @inline(__always)
  final func predictedStoredRead<Value>(_ field: KeyPath<Element, Value>) -> Value? {
    let recorder = rootRecorder
    // Made by this read (see `record`), refreshed whenever its element is written: its value is
    // the current one, never `nil` (the read answers from `lastKnown` once the element is gone).
    // Checked anyway before the read is recorded: `recordedRead` would record it again.
    guard recorder.isActiveOnThisThread,
      let predicted = recorder.takePredicted(where: {
        $0.reader == reader && $0.keyPath === field && $0.kind == .element && $0.isSafe
          && unsafeDowncast($0, to: ValueProbe<Value?>.self).value != nil
      })
    else { return nil }
    return predicted._withUnsafeGuaranteedRef {
      unsafeDowncast($0, to: ValueProbe<Value?>.self).value
    }
  }

  /// The keeper's read of the whole element (see `ChildReader.keepLastKnown`), recorded for the
  /// keeper, which `recorder` (an `ownerRecorder`) runs; `nil` once the element is gone.
  ///
  /// Its probe does the keeper's work: whenever the element is written, it remembers the element
  /// in `lastKnown`, and it never reports a change, so the keeper does not run again. Its own key
  /// (`reader + 1`), so that no other observer shares it.
  @inlinable
  final func keeperRead(by recorder: AccessRecorder) -> Element? {
    let lastKnown = lastKnown
    let locate = locate
    return record(whole, reader: reader &+ 1, lastKnown: nil, isKeeper: true, by: recorder) {
      _, _ in
      { state, probe, _ in
        let probe = unsafeDowncast(probe, to: ValueProbe<Element?>.self)
        // The probe keeps no copy of the element: it never reports a change, so its value is
        // never read again, and a copy would keep the element's first state alive.
        if case .some = probe.value { probe.value = nil }
        if let element = locate(state) {
          Self.remember(element.assumingMemoryBound(to: Element.self).pointee, in: lastKnown)
        }
        return false
      }
    }
  }

  /// Makes a probe's refresh from the read of its field and the comparison of its values. The
  /// refresh is given the probe it was made for: a `ValueProbe<Value?>`.
  @usableFromInline
  typealias RefresherMaker<Value> = (
    _ read: FieldRead<Value>, _ isUnchanged: @escaping (Value?, Value?) -> Bool
  ) -> (UnsafeRawPointer, Probe, _ afterAnyAction: Bool) -> Bool

  /// Reads `field`, and records the read: the probe the running observer's last run had here if
  /// it is this read, or a new one, whose refresh `makeRefresher` makes.
  ///
  /// The predicted read, the one a re-run makes, is inlined into the caller; the rest is not, so
  /// that the common path is a few loads.
  ///
  /// - Parameters:
  ///   - reader: The reader id in the probe's key.
  ///   - lastKnown: Where the value is read once the element is gone, if anywhere.
  ///   - isKeeper: Whether this is the keeper's read (see `ElementKeeping`).
  @inlinable @inline(__always)
  final func record<Value>(
    _ field: KeyPath<Element, Value>, reader: UInt64, lastKnown: SpinLocked<Element>?,
    isKeeper: Bool, by recorder: AccessRecorder, refresher makeRefresher: RefresherMaker<Value>
  ) -> Value? {
    if let predicted = recorder.takePredicted(where: {
      $0.reader == reader && $0.keyPath === field && $0.kind == .element
    }) {
      // Alive for the run (see `AccessRecorder.running`), even if the observer is cancelled by
      // a getter that `value` runs.
      return predicted._withUnsafeGuaranteedRef { probe in
        // Made by this read (a reader id and a field key path object are never reused while a
        // probe holds them): a `ValueProbe<Value?>`.
        let probe = unsafeDowncast(probe, to: ValueProbe<Value?>.self)
        // Refreshed whenever its element is written: its value is the current one.
        guard probe.isLazy else { return probe.value }
        return freshen(probe, field, lastKnown: lastKnown)
      }
    }
    return recordUnpredicted(
      field, reader: reader, lastKnown: lastKnown, isKeeper: isKeeper, by: recorder,
      refresher: makeRefresher)
  }

  /// Reads `field` for a lazy probe found by prediction, and gives the probe the value.
  @inlinable @inline(never)
  final func freshen<Value>(
    _ probe: ValueProbe<Value?>, _ field: KeyPath<Element, Value>,
    lastKnown: SpinLocked<Element>?
  ) -> Value? {
    let value = Self.value(
      field, at: MemoryLayout<Element>.offset(of: field), in: state, locate: self.locate,
      lastKnown: lastKnown)
    graph.freshen(probe, with: value)
    return value
  }

  /// `record` of a read that is not the predicted one: finds or files its probe.
  @inlinable @inline(never)
  final func recordUnpredicted<Value>(
    _ field: KeyPath<Element, Value>, reader: UInt64, lastKnown: SpinLocked<Element>?,
    isKeeper: Bool, by recorder: AccessRecorder, refresher makeRefresher: RefresherMaker<Value>
  ) -> Value? {
    // The keeper's own read keeps nothing: `keeping` holds the keeper's probe, which holds
    // this read (a cycle).
    let fieldRead = FieldRead(
      field: field, offset: MemoryLayout<Element>.offset(of: field), locate: locate,
      lastKnown: lastKnown, keeping: isKeeper ? nil : keeping)
    let value = fieldRead.value(in: state)
    let isUnchanged: (Value?, Value?) -> Bool
    switch ChangeRule<Value>.forType.optional.orIdentical {
    case .compare(let rule):
      isUnchanged = rule
    case .always:
      // A value that cannot be compared: changed after every write to its element.
      isUnchanged = { _, _ in false }
    }
    // The keeper's probe keeps no copy of the element (see `keeperRead`): skipped while a field
    // probe keeps the row, it would keep the first one for good.
    let made = makeProbe(
      field: field, isSafe: fieldRead.offset != nil, reader: reader,
      value: isKeeper ? nil : value, refresher: makeRefresher(fieldRead, isUnchanged))
    made.isKeeper = isKeeper
    let filed = graph.probe(made, state: state)
    if isKeeper { keeping.setKeeper(filed) }
    recorder.append(filed)
    return value
  }

  /// A read of `field` of the element, as a value: a refresher that captures it reads the
  /// element inline, where a closure would be one more call on every refresh.
  @usableFromInline
  struct FieldRead<Value> {
    @usableFromInline let field: KeyPath<Element, Value>
    /// The field's stored offset in the element, if it is stored.
    @usableFromInline let offset: Int?
    @usableFromInline let locate: @Sendable (UnsafeRawPointer) -> UnsafeRawPointer?
    /// Where the value is read once the element is gone, if anywhere.
    @usableFromInline let lastKnown: SpinLocked<Element>?
    /// How the child's field probes keep the element for its keeper; `nil` for the keeper's
    /// own read.
    @usableFromInline let keeping: ElementKeeping<Element>?

    @inlinable
    init(
      field: KeyPath<Element, Value>, offset: Int?,
      locate: @escaping @Sendable (UnsafeRawPointer) -> UnsafeRawPointer?,
      lastKnown: SpinLocked<Element>?, keeping: ElementKeeping<Element>?
    ) {
      self.field = field
      self.offset = offset
      self.locate = locate
      self.lastKnown = lastKnown
      self.keeping = keeping
    }

    /// The value in the root state `state` (see `ElementAccess.value`).
    @inlinable @inline(__always)
    func value(in state: UnsafeRawPointer) -> Value? {
      ElementAccess.value(field, at: offset, in: state, locate: locate, lastKnown: lastKnown)
    }

    /// `value(in:)`, for the refresh of a safe probe: the element it locates is also kept for
    /// the keeper (see `ElementKeeping`). A lazy probe's refresh keeps nothing: it does not
    /// run after every write.
    @inlinable @inline(__always)
    func valueKeepingElement(in state: UnsafeRawPointer) -> Value? {
      guard let offset, let element = locate(state) else { return value(in: state) }
      keeping?.keep(element)
      return element.load(fromByteOffset: offset, as: Value.self)
    }
  }

  /// The value at `field` of the element in `state`: a load if the field is stored (at
  /// `offset`); once the element is gone, from `lastKnown`, or `nil` without it.
  @inlinable
  static func value<Value>(
    _ field: KeyPath<Element, Value>, at offset: Int?, in state: UnsafeRawPointer,
    locate: (UnsafeRawPointer) -> UnsafeRawPointer?, lastKnown: SpinLocked<Element>?
  ) -> Value? {
    guard let element = locate(state) else {
      // Copied out first: the key path's getter runs outside the lock.
      return lastKnown.map { $0.withLock { $0 }[keyPath: field] }
    }
    if let offset { return element.load(fromByteOffset: offset, as: Value.self) }
    return element.assumingMemoryBound(to: Element.self).pointee[keyPath: field]
  }

  /// Remembers `element` in `lastKnown`, as the last one the child had.
  @inlinable
  static func remember(_ element: Element, in lastKnown: SpinLocked<Element>) {
    var element = element
    lastKnown.withLock { swap(&$0, &element) }
    // The previous element is released here, outside the lock: its deinit may call back in.
  }

  /// The element probe of `field` for this child (see `makeElementProbe`, whose probes these
  /// are, made from the parts given).
  @usableFromInline
  func makeProbe<Value>(
    field: KeyPath<Element, Value>, isSafe: Bool, reader: UInt64, value: Value?,
    refresher: @escaping (UnsafeRawPointer, Probe, _ afterAnyAction: Bool) -> Bool
  ) -> Probe {
    preconditionFailure("abstract")
  }
}
