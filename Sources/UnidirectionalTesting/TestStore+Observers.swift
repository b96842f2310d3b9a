import Unidirectional

extension TestStore {
  /// Registers a named observer of the store, tracked by the real observation engine.
  ///
  /// `body` receives a store over the whole state; the values it reads through it are what the
  /// observer depends on, exactly as with `Store.observe`. It runs now, and again after any
  /// action that changed a value it read. Every step then asserts the set of observers that ran
  /// because of its action (its `fires:` argument).
  ///
  /// - Parameters:
  ///   - name: The name steps use in `fires:`. Names must be unique within a test store.
  ///   - fileID: The file of the call, where failures are reported (filled in for you).
  ///   - filePath: The full path of that file (filled in for you).
  ///   - line: The line of the call (filled in for you).
  ///   - column: The column of the call (filled in for you).
  ///   - body: The observer.
  public func observe(
    _ name: String,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column,
    _ body: @escaping @Sendable (Store<State, Action>) -> Void
  ) {
    let location = TestSourceLocation(
      fileID: fileID, filePath: filePath, line: line, column: column)
    guard observers.withLock({ $0[name] == nil }) else {
      TestFailure.record("An observer named \"\(name)\" is already registered.", at: location)
      return
    }
    let reduced = self.reduced
    // The first run happens now, not because of an action: it is not recorded.
    let hasRun = Locked(false)
    let token = view.observe { [weak view] in
      guard let view else { return }
      body(view)
      if hasRun.withLock({ hasRun in
        defer { hasRun = true }
        return hasRun
      }) {
        reduced.observerRan(name)
      }
    }
    observers.withLock { $0[name] = token }
  }
}
