extension Store {
  /// Waits until every effect of this store has ended, including the effects of actions that
  /// effects sent meanwhile.
  ///
  /// A ``StoreTask`` covers the effects of one action. Before a program exits, wait for all of
  /// them, so that work an effect is doing (saving a file, say) is not cut off:
  ///
  /// ```swift
  /// await store.send(.exiting).finish()  // the reducer cancels its timers
  /// await store.waitForEffects()
  /// exit(0)
  /// ```
  ///
  /// Effects that never end by themselves (a timer, a subscription) keep it waiting: cancel them
  /// first. Effects started while it waits are waited for too. On a child store, it waits for
  /// the effects of the root store.
  public func waitForEffects() async {
    if let scope { return await scope.waitForEffects() }
    await effects.activity.waitUntilDone()
  }
}
