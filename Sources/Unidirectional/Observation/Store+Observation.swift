import Observation

extension Store {
  /// Runs `body` now, and again after every action that changes a value it read.
  ///
  /// Every read of this store's state inside `body` is recorded: `store.count` as `\.count`,
  /// `store[\.board.cells[4]]` as `\.board.cells[4]`, `store[\.rows, id: 7]` as the row with id
  /// 7, `store.state` as the whole state. Reads are recorded anew on every run, so a read behind
  /// an `if` is tracked only while the branch is taken.
  ///
  /// A value has changed when `!=` says so for `Equatable` values (a value whose bits are
  /// unchanged, such as the same `Double.nan`, is unchanged), when `!==` does for class
  /// instances, and after every action for any other type.
  ///
  /// ```swift
  /// let token = store.observe {
  ///   print("count:", store.count)
  /// }
  /// ```
  ///
  /// Keep the token for as long as the observer should run: dropping it stops the observer. In
  /// optimized builds `_ = token` does not keep it alive; store it in a property or a set, or use
  /// `withExtendedLifetime(token) { … }`.
  ///
  /// ## Guarantees
  ///
  /// - `body` runs at most once per action, after the action's state is committed (it never
  ///   sees a half-applied action), outside any lock, in registration order among the observers
  ///   that fire.
  /// - After an action, the reads of `body`'s latest run are checked in the order it made them,
  ///   stopping at the first that changed, so a read behind a guard is never evaluated once the
  ///   guard changed: `if store.items.count > 7 { store[\.items[7]] }` is safe when `items`
  ///   shrinks.
  /// - It runs on the thread that is processing the store's actions at that moment (see
  ///   ``Store``). Actions it sends are queued and reduced after the observers of the current
  ///   action have run. The first run happens inside this call, on the state as it is then (if
  ///   another thread is processing actions, on a copy of it); if that thread commits an action
  ///   that changes a value the first run read before the observer is filed, it runs `body`
  ///   once more, on the newer state.
  /// - Inside `body`, reads of this store are recorded for this observer only: a
  ///   `withObservationTracking` running inside an observer does not hear of changes to them.
  /// - Cost per action grows with what changed and with the observers that fire, not with the
  ///   number of observers, except for reads through key paths that are not chains of stored
  ///   properties (see ``subscript(_:)``), which are checked after every action.
  ///
  /// - Parameter body: The observer. Capture the store weakly, or cancel the token, if the
  ///   store should be able to go away while the observer is registered.
  /// - Returns: A token: the observer runs as long as it is alive and not cancelled.
  public func observe(_ body: @escaping @Sendable () -> Void) -> ObservationToken {
    if let scope { return scope.observe(body) }
    return ObservationToken(removing: register(body), from: self)
  }

  /// Registers an observer the store needs for itself (a child store's keeper): it behaves like
  /// any other, but is not counted in ``observationFootprint``.
  func observeInternally(_ body: @escaping @Sendable () -> Void) -> ObservationToken {
    ObservationToken(removing: register(body, isInternal: true), from: self)
  }

  /// Calls `body` with the value at `keyPath` now, and again after every action that changes
  /// it.
  ///
  /// ```swift
  /// let token = store.observe(\.count) { count in
  ///   print("count:", count)
  /// }
  /// ```
  ///
  /// The observer does not keep the store alive, and on a child store made by `scope` it keeps
  /// running after the child store object itself is gone, for as long as the token lives.
  ///
  /// - Parameters:
  ///   - keyPath: The value to observe.
  ///   - body: Receives the value.
  /// - Returns: A token: the observer runs as long as it is alive and not cancelled. In optimized
  ///   builds `_ = token` does not keep it alive; store it.
  @inlinable
  public func observe<Value>(
    _ keyPath: KeyPath<State, Value>,
    _ body: @escaping @Sendable (Value) -> Void
  ) -> ObservationToken {
    // Inlined, so that the observer's reads are specialized.
    let keyPath = UncheckedSendable(keyPath)
    if let scope {
      guard let elementAccess else { return scope.observe(keyPath.value, body) }
      // A row store: read through its `ElementAccess` when the root's owner runs the observer,
      // through the scope otherwise.
      let readThroughScope = scope.observedRead(of: keyPath.value)
      return scope.observe {
        if let recorder = elementAccess.ownerRecorder {
          body(
            recorder._withUnsafeGuaranteedRef { elementAccess.recordedRead(keyPath.value, by: $0) })
        } else if let value = readThroughScope() {
          body(value)
        }
      }
    }
    return observe { [weak self] in
      guard let self else { return }
      body(self.read(keyPath.value))
    }
  }

  /// Records the first run of a new observer and files it.
  private func register(_ body: @escaping @Sendable () -> Void, isInternal: Bool = false)
    -> ObserverRecord
  {
    let observer = ObserverRecord(
      id: nextObserverID.add(1, ordering: .relaxed).oldValue, body: body, isInternal: isInternal)
    if gate.isOwnedByCurrentThread {
      precondition(
        !gate.isReducing,
        """
        Unidirectional: an observer was registered on a store while it was reducing an action, \
        by the reducer or by code it called. Register observers from outside the reducer.
        """)
      // Inside one of this store's observers (or its interceptors, or the deinit of something
      // they released): the graph is ours, unless it is in the middle of a pass.
      if graph.isBusy {
        let reads = recordDeferred(body)
        graph.perform(
          .register(observer, reads: reads, generation: gate.generation), state: statePointer)
      } else {
        recordOwning(observer, body)
      }
      return observer
    }
    if gate.tryAcquire() {
      // Idle store: own it while the first run reads, so that no action commits in between.
      recordOwning(observer, body)
      drain()
      return observer
    }
    // Another thread owns the store: the first run reads a copy of the state, taken at once, so
    // that it sees one state, whatever the owner commits meanwhile; the owner files it.
    let (state, generation) = copyShared { $0.pointee }
    let reads = withUnsafeTemporaryAllocation(of: State.self, capacity: 1) { buffer in
      let copy = buffer.baseAddress!
      copy.initialize(to: state)
      defer { copy.deinitialize(count: 1) }
      return recordDeferred(body, state: UnsafeMutableRawPointer(copy))
    }
    if gate.submit({
      self.pending.requests.append(.register(observer, reads: reads, generation: generation))
    }) {
      drain()
    }
    return observer
  }

  /// Records a first run on the owner's thread, filing its probes as it reads, and files the
  /// observer.
  private func recordOwning(_ observer: ObserverRecord, _ body: @Sendable () -> Void) {
    let recorder = AccessRecorder(store: ObjectIdentifier(self), isOwning: true)
    recorder.recordInstalled(body)
    graph.insert(observer, reads: recorder.recordedProbes, state: statePointer)
  }

  /// Records a run whose reads the owner files later, and returns their standalone probes.
  ///
  /// - Parameter state: The state the run reads: a copy, or `nil` for the store's own (for the
  ///   owner, whose state does not change meanwhile).
  private func recordDeferred(_ body: @Sendable () -> Void, state: UnsafeMutableRawPointer? = nil)
    -> [Probe]
  {
    let recorder = AccessRecorder(store: ObjectIdentifier(self), isOwning: false, state: state)
    recorder.recordInstalled(body)
    return Array(recorder.recordedProbes)
  }

  /// Owner: carries out what other threads asked of the graph.
  func carryOut(_ requests: [ObservationRequest]) {
    let current = gate.generation
    for request in requests {
      switch request {
      case .register(let observer, let reads, let generation):
        // If actions were committed since the first run read, check its reads in order, as
        // after an action (so that a read behind a guard is not evaluated once the guard
        // changed): it runs again, on this state, only if one of them changed.
        if generation == current
          || !reads.contains(where: { $0.refreshAfterAnyAction(statePointer) })
        {
          graph.perform(request, state: statePointer)
        } else {
          graph.perform(.register(observer, reads: [], generation: current), state: statePointer)
          [observer].withUnsafeBufferPointer { runObservers($0) }
        }
      case .remove:
        graph.perform(request, state: statePointer)
      case .track(let entry, _, let generation):
        // If an action was committed after the read, tell the tracking now if the value changed
        // (or if the read could trap, without evaluating it). If the tracking is not installed
        // yet, the registrar drops this, but `TrackingInstalls` tells it again once it is.
        if generation != current
          && (!entry.probe.isSafe || entry.probe.refreshAfterAnyAction(statePointer))
        {
          entry.post()
        } else {
          graph.perform(request, state: statePointer)
        }
      }
    }
  }

  /// Stops an observer (for its token): it does not run again, and its closure is released
  /// outside any lock.
  func removeObserver(_ observer: ObserverRecord) {
    let body = observer.cancel()
    if gate.isOwnedByCurrentThread {
      graph.perform(.remove(observer), state: statePointer)
    } else if gate.submit({ self.pending.requests.append(.remove(observer)) }) {
      drain()
    }
    // Released last, with no lock held: its captures may run code that calls back in.
    _ = consume body
  }

  /// Owner: runs observers made stale by an action, recording what each reads.
  @usableFromInline
  func runObservers(_ observers: UnsafeBufferPointer<ObserverRecord>) {
    let previous = drainRecorder.install()
    // Lent without a reference each: the caller keeps `observers` for the whole loop.
    for index in observers.indices {
      Unmanaged.passUnretained(observers[index])._withUnsafeGuaranteedRef { run($0) }
    }
    AccessRecorder.restore(previous)
  }

  /// Owner: runs one observer and re-subscribes it to what it read. The closure is released, if
  /// the observer was cancelled meanwhile, when this returns: with no lock held.
  @inline(__always)
  private func run(_ observer: ObserverRecord) {
    // An observer cancelled by an earlier one, or from another thread, does not start.
    guard observer.isInGraph, let body = observer.beginRun() else { return }
    // The record holds the box until `endRun`, even if the run cancels the observer.
    body._withUnsafeGuaranteedRef { drainRecorder.record($0.call, running: observer) }
    let cancelled = observer.endRun()
    if cancelled != nil {
      graph.perform(.remove(observer), state: statePointer)
      // Reads made only as predicted are the observer's own, which the removal dropped.
      if !drainRecorder.readsAsPredicted { graph.dropIfUnused(drainRecorder.recordedProbes) }
      // Kept by a removal during the run (see `ObservationGraph.remove`).
      observer.reads = SmallArray()
      // The closure is released only now, after the removal: its captures' deinits may call in.
      withExtendedLifetime(cancelled) {}
    } else if observer.isInGraph {
      if drainRecorder.readsMatch(observer) {
        // The same reads as last time (the common case): nothing to re-subscribe.
        observer.ranAt = graph.generation
      } else {
        graph.update(
          observer, reads: drainRecorder.recordedProbes, unchanged: false, state: statePointer)
      }
    }
  }
}

extension Store: Observable {}

extension Store: ObserverRemoving {}
