/// A child store's link to its root store.
final class ScopedStore<
  RootState: Sendable, RootAction: Sendable, State: Sendable, Action: Sendable
>:
  StoreScope, Sendable
{
  let root: Store<RootState, RootAction>
  let reader: ChildReader<RootState, State>
  let embed: @Sendable (Action) -> RootAction
  let fileID: String
  let line: UInt

  init(
    root: Store<RootState, RootAction>, reader: ChildReader<RootState, State>,
    embed: @escaping @Sendable (Action) -> RootAction, fileID: String, line: UInt,
    keep: (@Sendable () -> Bool)? = nil
  ) {
    self.root = root
    self.reader = reader
    self.embed = embed
    self.fileID = fileID
    self.line = line
    reader.keepLastKnown(in: root, byOwner: keep)
  }

  func read<Value>(_ keyPath: KeyPath<State, Value>) -> Value {
    reader.read(keyPath, from: root)
  }

  func waitForEffects() async {
    await root.waitForEffects()
  }

  func send(_ action: Action) -> StoreTask {
    guard reader.isPresent(in: root) else {
      root.effects.reportIssue(
        StoreIssue(
          kind: .actionWithoutState(
            action: ValueDump.line(action),
            state: "the state of a child store of \(ValueDump.typeName(State.self))"),
          fileID: fileID, line: line))
      return StoreTask(nil)
    }
    return root.send(embed(action))
  }

  func observe(_ body: @escaping @Sendable () -> Void) -> ObservationToken {
    root.observe(body)
  }

  func observe<Value>(_ keyPath: KeyPath<State, Value>, _ body: @escaping @Sendable (Value) -> Void)
    -> ObservationToken
  {
    let read = observedRead(of: keyPath)
    return root.observe {
      if let value = read() { body(value) }
    }
  }

  func observedRead<Value>(of keyPath: KeyPath<State, Value>) -> @Sendable () -> Value? {
    let reader = self.reader
    let keyPath = UncheckedSendable(keyPath)
    return { [weak root] in root.map { reader.read(keyPath.value, from: $0) } }
  }

  func scope<ChildState: Sendable, ChildAction: Sendable>(
    state: ScopePath<State, ChildState>, action: @escaping @Sendable (ChildAction) -> Action
  ) -> Store<ChildState, ChildAction>? {
    let embed = self.embed
    let path = reader.toState.appending(state)
    let childEmbed: @Sendable (ChildAction) -> RootAction = { embed(action($0)) }
    if let store = root.makeScope(state: path, action: childEmbed, fileID: fileID, line: line) {
      return store
    }
    // This store's own state is gone. A required child still gets a store, which answers from
    // the last state it had, as this one does; an optional child has none.
    guard case .required(let keyPath) = state else { return nil }
    let initialState = reader.lastKnown.withLock { $0 }[keyPath: keyPath]
    return Store(
      scope: ScopedStore<RootState, RootAction, ChildState, ChildAction>(
        root: root,
        reader: ChildReader(toState: path, element: nil, initialState: initialState),
        embed: childEmbed, fileID: fileID, line: line),
      initialState: initialState)
  }
}
