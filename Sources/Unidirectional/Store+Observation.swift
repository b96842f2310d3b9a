import Observation

extension Store {
  /// Runs `body` now, and again after every action that changes a value it read.
  ///
  /// Every read of this store's state inside `body` is recorded as its key path: `store.count`
  /// as `\.count`, `store[\.board.cells[4]]` as `\.board.cells[4]`, `store.state` as the
  /// whole state. Reads are recorded anew on every run, so a read behind an `if` is tracked
  /// only while the branch is taken.
  ///
  /// A value has changed when `!=` says so for `Equatable` values, when `!==` does for class
  /// instances, and after every action for any other type.
  ///
  /// ```swift
  /// let token = store.observe {
  ///   print("count:", store.count)
  /// }
  /// ```
  ///
  /// ## Guarantees
  ///
  /// - `body` runs at most once per action, after the action's state is committed (it never
  ///   sees a half-applied action), outside the store's lock, in registration order among the
  ///   observers that fire.
  /// - It runs on the thread that is processing the store's actions at that moment (see
  ///   ``Store``). Actions it sends are queued and reduced after the observers of the current
  ///   action have run.
  /// - Cost per action grows with the number of distinct key paths observed and the observers
  ///   that fire, not with the number of observers.
  ///
  /// - Parameter body: The observer. Capture the store weakly, or cancel the token, if the
  ///   store should be able to go away while the observer is registered.
  /// - Returns: A token: the observer runs as long as it is alive and not cancelled.
  public func observe(_ body: @escaping @Sendable () -> Void) -> ObservationToken {
    if let scope { return scope.observe(body) }
    return ObservationToken(removing: register(body), from: self)
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
  /// - Parameters:
  ///   - keyPath: The value to observe.
  ///   - body: Receives the value.
  /// - Returns: A token: the observer runs as long as it is alive and not cancelled.
  public func observe<Value>(
    _ keyPath: KeyPath<State, Value>,
    _ body: @escaping @Sendable (Value) -> Void
  ) -> ObservationToken {
    let keyPath = UncheckedSendable(keyPath)
    return observe { [weak self] in
      guard let self else { return }
      body(self.read(keyPath.value))
    }
  }

  /// Records the first run of a new observer and installs it.
  private func register(_ body: @escaping @Sendable () -> Void) -> ObserverRecord {
    // Idle store: own it while the first run reads, so no action commits in between.
    core.lock()
    if !core.value.isDraining {
      core.value.isDraining = true
      core.unlock()
      let recorder = AccessRecorder(store: ObjectIdentifier(self), isDrainer: true)
      recorder.recordInstalled(body)
      core.lock()
      let observer = core.value.graph.register(body: body, reads: recorder, state: statePointer)
      core.unlock()
      drain()
      return observer
    }
    core.unlock()
    // Busy store (another thread is processing, or we are inside one of its observers): keep
    // the run only if no action was committed while it read.
    let recorder = AccessRecorder(store: ObjectIdentifier(self), isDrainer: false)
    for _ in 0..<3 {
      let generation = core.withLock { $0.generation }
      recorder.recordInstalled(body)
      core.lock()
      if core.value.generation == generation {
        let observer = core.value.graph.register(body: body, reads: recorder, state: statePointer)
        core.unlock()
        return observer
      }
      core.unlock()
    }
    // Still racing a busy drainer: install with the latest reads and have it run again.
    core.lock()
    let observer = core.value.graph.register(body: body, reads: recorder, state: statePointer)
    guard !core.value.isDraining else {
      core.value.staleObservers.append(observer)
      core.unlock()
      return observer
    }
    core.value.isDraining = true
    core.unlock()
    runObservers([observer])
    drain()
    return observer
  }

  func removeObserver(_ observer: ObserverRecord) {
    let body = core.withLock { $0.graph.remove(observer) }
    // Released here, after the lock: its captures may run code that calls back in.
    _ = consume body
  }

  /// Runs observers made stale by an action, recording what each reads. Called by the
  /// draining thread, outside the lock.
  @inlinable
  func runObservers(_ observers: [ObserverRecord]) {
    let previous = drainRecorder.install()
    core.lock()
    for observer in observers {
      // Checked under the lock: an observer cancelled by an earlier one does not run.
      guard let body = observer.body else { continue }
      core.unlock()
      drainRecorder.record(body, running: observer)
      core.lock()
      core.value.graph.update(observer, reads: drainRecorder, state: statePointer)
    }
    core.unlock()
    AccessRecorder.restore(previous)
  }

  func makeRegistrarProbe<Value>(
    _ keyPath: KeyPath<State, Value>, state: UnsafeRawPointer
  ) -> RegistrarProbe {
    let storeKeyPath = UncheckedSendable(\Store.[dynamicMember: keyPath])
    return RegistrarProbe(
      probe: keyPath.makeProbe(state: state),
      storeKeyPath: storeKeyPath.value,
      post: { [weak self] in
        guard let self else { return }
        self.registrar.willSet(self, keyPath: storeKeyPath.value)
        self.registrar.didSet(self, keyPath: storeKeyPath.value)
      }
    )
  }
}

extension Store: Observable {}

extension Store: ObserverRemoving {}
