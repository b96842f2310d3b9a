extension Store {
  /// Subscribes the store to the shared values its reducer receives (see
  /// ``Reducer/receivingShared(_:action:)``), for the store's life.
  @usableFromInline
  func subscribeToSharedValues<R: Reducer>(of reducer: R)
  where R.State == State, R.Action == Action {
    guard let receiving = reducer as? any SharedReceiving<State, Action> else { return }
    subscribeToSharedValues(of: receiving, embed: { $0 })
  }

  /// Subscribes the store to the shared values `receiving` receives, sending each change as
  /// the action `embed` makes of it (a test store marks the actions it receives).
  package func subscribeToSharedValues<ReceivedAction>(
    of receiving: some SharedReceiving<State, ReceivedAction>,
    embed: @escaping @Sendable (ReceivedAction) -> Action
  ) {
    let receiver = SharedChangeReceiver<State, ReceivedAction>(
      isReducingOnThisThread: { [weak self] in
        guard let self else { return false }
        return gate.isOwnedByCurrentThread && gate.isReducing
      },
      state: { [weak self] in self?.copyShared { $0.pointee }.copy },
      send: { [weak self] action in _ = self?.send(embed(action)) })
    let tokens = receiving.subscribeToShared(in: peek(\.self), for: receiver)
    // Released with the store: the subscriptions end with it.
    gate.withLock { pending.sharedSubscriptions = tokens }
  }
}
