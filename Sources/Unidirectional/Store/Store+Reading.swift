import Observation

extension Store {
  /// A snapshot of the whole state.
  ///
  /// Inside an observer, reading `state` tracks the whole state: the observer re-runs after
  /// every action that changes it (or after every action, if `State` is not `Equatable`).
  /// Prefer reading the fields you need.
  @inlinable
  public var state: State {
    read(\State.self)
  }

  /// Reads one field of the state.
  ///
  /// Inside an observer, the read is tracked as `keyPath`: `store.board` tracks the whole
  /// `board`, even if the code goes on to use one cell of it.
  ///
  /// - Parameter keyPath: A property of the state, such as `\.count`.
  @inlinable
  public subscript<Value>(dynamicMember keyPath: KeyPath<State, Value>) -> Value {
    read(keyPath)
  }

  /// Reads a value anywhere in the state, tracked as exactly `keyPath`.
  ///
  /// `store[\.board.cells[4]]` makes an observer re-run only when that cell changes, where
  /// `store.board.cells[4]` would track the whole `board`.
  ///
  /// A key path made only of stored properties costs nothing after an action that did not
  /// change its bytes. Any other key path (a subscript, a computed property, an optional chain)
  /// is checked again after every action, at the cost of evaluating it (a few hundred
  /// nanoseconds through the Swift runtime): for rows of an ``IdentifiedArray``, prefer
  /// `store[\.rows, id: id, \.field]`, which is checked only when that row is written.
  ///
  /// - Parameter keyPath: Where the value lives in the state, such as `\.board.cells[4]`.
  @inlinable
  public subscript<Value>(keyPath: KeyPath<State, Value>) -> Value {
    read(keyPath)
  }

  // MARK: Reading and recording

  @inlinable @inline(__always)
  func read<Value>(_ keyPath: KeyPath<State, Value>) -> Value {
    // An observer re-running makes the stored read it made last time: a few loads, inlined
    // where the store is read. Every other read makes a call.
    if let elementAccess = lentElementAccess {
      // A row store's: specialized, and no existential in between.
      if let value = elementAccess._withUnsafeGuaranteedRef({ $0.predictedStoredRead(keyPath) }) {
        return value
      }
    } else if scope == nil, let value = predictedStoredRead(keyPath) {
      return value
    }
    return readUnpredicted(keyPath)
  }

  /// The read a root store's observer re-running on the owner's thread makes, if it is the
  /// stored read it made last time (only a re-run has predicted reads, and only the drain
  /// recorder re-runs observers); `nil` for any other read. No action can commit meanwhile,
  /// and the value is a plain load.
  @inlinable @inline(__always)
  func predictedStoredRead<Value>(_ keyPath: KeyPath<State, Value>) -> Value? {
    guard let recorder = activeDrainRecorder else { return nil }
    return recorder._withUnsafeGuaranteedRef { recorder -> Value? in
      guard
        let probe = recorder.takePredicted(where: {
          $0.keyPath === keyPath && $0.kind == .stored
        })
      else { return nil }
      let byteStart = probe._withUnsafeGuaranteedRef { $0.byteStart }
      return UnsafeRawPointer(statePointer).load(fromByteOffset: byteStart, as: Value.self)
    }
  }

  /// `read` of anything but a predicted stored read.
  @inlinable @inline(never)
  func readUnpredicted<Value>(_ keyPath: KeyPath<State, Value>) -> Value {
    if let elementAccess = lentElementAccess,
      let value = elementAccess._withUnsafeGuaranteedRef({ elementAccess -> Value? in
        guard let recorder = elementAccess.ownerRecorder else { return nil }
        return recorder._withUnsafeGuaranteedRef { elementAccess.recordedRead(keyPath, by: $0) }
      })
    {
      return value
    }
    if let scope { return scope.read(keyPath) }
    return record(KeyPathRead(keyPath))
  }

  /// The store's drain recorder, if this thread is running one of the store's observers with it
  /// now: found without the thread-local slot (see `AccessRecorder.activeThread`).
  @inlinable
  var activeDrainRecorder: Unmanaged<AccessRecorder>? {
    let recorder = Unmanaged.passUnretained(drainRecorder)
    return recorder._withUnsafeGuaranteedRef { $0.isActiveOnThisThread } ? recorder : nil
  }

  /// Reads a value and records the read for the observer running on this thread, if any; or,
  /// outside observers, reports it to Apple's Observation if a tracking is active. Otherwise
  /// the read leaves nothing behind.
  @inlinable
  func record<Read: StateRead>(_ read: Read) -> Read.Value where Read.State == State {
    // The store's drain recorder re-running an observer (the common case), found without the
    // thread-local slot (about 45 instructions); otherwise a first run's recorder, by the slot.
    guard let recorder = activeDrainRecorder ?? AccessRecorder.current,
      recorder._withUnsafeGuaranteedRef({ $0.store == ObjectIdentifier(self) })
    else {
      let (value, generation) = read.sharedValue(in: self)
      if TrackingDetector.isTracking(registrar) {
        track(read.makeProbe(value: value, generation: 0), readAt: generation)
      }
      return value
    }
    return recorder._withUnsafeGuaranteedRef { recorder in
      guard recorder.isOwning else {
        // A first run the owner files later: read from the state the run was given (a copy, if
        // another thread owns the store), and keep a standalone probe.
        let state = recorder.state?.assumingMemoryBound(to: State.self) ?? statePointer
        let value = read.value(in: state)
        recorder.append(read.makeProbe(value: value, generation: 0))
        return value
      }
      // The owner runs an observer: no action can commit meanwhile, and the state is read
      // directly.
      if let predicted = recorder.takePredicted(where: { read.isRead(of: $0) }) {
        // Alive for the run (see `AccessRecorder.running`), even if the observer is cancelled
        // by user code that `value(in:)` runs.
        return predicted._withUnsafeGuaranteedRef { probe in
          if !probe.isLazy {
            // Refreshed whenever its value may change: its value is the current one.
            return unsafeDowncast(probe, to: ValueProbe<Read.Value>.self).value
          }
          let value = read.value(in: statePointer)
          graph.freshen(probe, with: value)
          return value
        }
      }
      let value = read.value(in: statePointer)
      let made = read.makeProbe(value: value, generation: graph.generation)
      recorder.append(graph.probe(made, state: statePointer))
      return value
    }
  }

  /// Copies what `copy` loads from the state as a reader of the gate: waits while the owner is
  /// reducing, and keeps the owner from reducing until it returns. `copy` must not run user code
  /// (a load, or a copy of the whole state, only retains): user code run while holding the state
  /// could wait for the owner to reduce, which waits for this read. Not for the owner's own
  /// reads during observer runs, which need no gate.
  ///
  /// - Returns: The copy, and the generation of the state it was taken from.
  @inlinable
  func copyShared<Copy>(_ copy: (UnsafeMutablePointer<State>) -> Copy) -> (
    copy: Copy, generation: UInt32
  ) {
    gate.beginReading()
    defer { gate.endReading() }
    // Taken while reading: no action can commit until the read ends.
    return (copy(statePointer), gate.generation)
  }

  /// The value at `keyPath` of a state copied as a reader of the gate: a load for stored
  /// properties; otherwise a copy of the state, on which the key path runs once the gate is let
  /// go (its getters are user code).
  @inlinable
  func sharedValue<Value>(_ keyPath: KeyPath<State, Value>) -> (value: Value, generation: UInt32) {
    if let offset = MemoryLayout<State>.offset(of: keyPath) {
      let (value, generation) = copyShared {
        UnsafeRawPointer($0).load(fromByteOffset: offset, as: Value.self)
      }
      return (value, generation)
    }
    let (state, generation) = copyShared { $0.pointee }
    return (state[keyPath: keyPath], generation)
  }

  // MARK: Apple's Observation

  /// The member a tracked read is reported to the registrar as: one key path per distinct read,
  /// equal for equal reads, so that the registrar matches the `willSet` the store posts for a
  /// change with the `access` it reported for the read. Never evaluated by the registrar.
  subscript(trackedRead key: TrackedReadKey) -> Int { 0 }

  /// Remembers a read made while Apple's Observation tracked (`probe` holds the value read, on
  /// the state of `generation`), and reports it to the registrar, so that the tracking hears of
  /// the first action that changes it.
  @usableFromInline
  func track(_ probe: Probe, readAt generation: UInt32) {
    let key = TrackedReadKey(key: probe.key)
    let storeKeyPath = TrackingInstalls.ownCall {
      let storeKeyPath = trackedKeyPath(for: key)
      registrar.access(self, keyPath: storeKeyPath)
      return storeKeyPath
    }
    let posted = UncheckedSendable(storeKeyPath)
    let post: @Sendable () -> Void = { [weak self] in
      guard let self else { return }
      TrackingInstalls.ownCall {
        self.registrar.willSet(self, keyPath: posted.value)
        self.registrar.didSet(self, keyPath: posted.value)
      }
    }
    TrackingInstalls.expect(
      key,
      TrackingInstalls.Pending(
        readAt: generation, generation: { [weak self] in self?.gate.generation ?? generation },
        post: post))
    let entry = TrackedReads.Entry(probe: probe, post: post)
    let thread = StoreGate.currentThread
    if gate.isOwnedByCurrentThread {
      graph.perform(.track(entry, thread: thread, generation: generation), state: statePointer)
    } else if gate.submit({
      self.pending.requests.append(.track(entry, thread: thread, generation: generation))
    }) {
      drain()
    }
  }

  /// The key path a tracked read is reported as, made once per read: making a key path with a
  /// subscript argument costs microseconds.
  private func trackedKeyPath(for key: TrackedReadKey) -> KeyPath<Store, Int> {
    if let existing = trackedKeyPaths.withLock({ $0[key] }) {
      return unsafeDowncast(existing, to: KeyPath<Store, Int>.self)
    }
    let made: KeyPath<Store, Int> = \Store.[trackedRead: key]
    let kept = trackedKeyPaths.withLock { paths in
      if let existing = paths[key] { return existing }
      // Only a cache (equal key paths match in the registrar): bounded, never a leak.
      if paths.count >= 1_024 { paths.removeAll(keepingCapacity: true) }
      paths[key] = made
      return made
    }
    return unsafeDowncast(kept, to: KeyPath<Store, Int>.self)
  }

  // MARK: Untracked reads

  /// Reads a value without recording it for any observer or registrar.
  func peek<Value>(_ keyPath: KeyPath<State, Value>) -> Value {
    sharedValue(keyPath).value
  }
}

/// One kind of read of a store's state, as `Store.record` makes it: how to tell its probe, how
/// to evaluate it, how to make its probe.
@usableFromInline
protocol StateRead<State, Value> {
  associatedtype State: Sendable
  associatedtype Value

  /// Whether `probe` is the probe of this read.
  func isRead(of probe: Probe) -> Bool

  /// The value in `state`, for the store's owner (which may run user code as it reads).
  func value(in state: UnsafeMutablePointer<State>) -> Value

  /// The value, for a thread that does not own the store: read as a reader of the gate, without
  /// running user code while holding it (see `Store.copyShared`); with the generation of the
  /// state read.
  func sharedValue<Action>(in store: Store<State, Action>) -> (value: Value, generation: UInt32)

  /// A probe of this read holding `value`, read on the state of `generation`.
  func makeProbe(value: Value, generation: UInt64) -> Probe
}

/// A read of a key path of the state.
@usableFromInline
struct KeyPathRead<State: Sendable, Value>: StateRead {
  @usableFromInline let keyPath: KeyPath<State, Value>

  @inlinable
  init(_ keyPath: KeyPath<State, Value>) {
    self.keyPath = keyPath
  }

  @usableFromInline
  func isRead(of probe: Probe) -> Bool {
    guard probe.arrayKeyPath == nil, probe.reader == nil else { return false }
    // A key path with subscript arguments is a new object each time its literal is evaluated:
    // equal components are the same read.
    return probe.keyPath === keyPath || probe.keyPath == keyPath
  }

  @usableFromInline
  func value(in state: UnsafeMutablePointer<State>) -> Value {
    if let offset = MemoryLayout<State>.offset(of: keyPath) {
      return UnsafeRawPointer(state).load(fromByteOffset: offset, as: Value.self)
    }
    return state.pointee[keyPath: keyPath]
  }

  @usableFromInline
  func sharedValue<Action>(in store: Store<State, Action>) -> (value: Value, generation: UInt32) {
    store.sharedValue(keyPath)
  }

  @inlinable
  func makeProbe(value: Value, generation: UInt64) -> Probe {
    keyPath.makeProbe(
      value: value, offset: MemoryLayout<State>.offset(of: keyPath), generation: generation)
  }
}
