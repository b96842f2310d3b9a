extension Effect {
  /// Delays this effect until `duration` has passed without another effect with the same `id`.
  ///
  /// Each new debounced effect cancels the one waiting before it, so a burst of actions (key
  /// presses in a search field) runs only the last one's effect, `duration` after it.
  ///
  /// ```swift
  /// case .queryChanged(let query):
  ///   state.query = query
  ///   return .run { send in await send(.results(try await search(query))) }
  ///     .debounce(id: SearchID(), for: .milliseconds(300), clock: clock)
  /// ```
  ///
  /// - Parameters:
  ///   - id: Groups the effects that replace each other (scoped to the store).
  ///   - duration: How long to wait.
  ///   - clock: The clock to wait on; use the `continuousClock` dependency, so tests can drive
  ///     it with a ``TestClock``.
  public func debounce(
    id: some Hashable & Sendable, for duration: Duration, clock: any Clock<Duration>
  ) -> Self {
    guard isNotNone else { return self }
    return .concatenate(.run { _ in try await clock.sleep(for: duration) }, self)
      .cancellable(id: id, cancelInFlight: true)
  }

  /// Runs this effect at most once per `interval` for the same `id`.
  ///
  /// The first effect runs at once and opens a window of `interval`. Effects that arrive while
  /// the window is open do not run then; when it closes, the kept one runs (the latest if
  /// `latest` is `true`, else the first) and opens the next window.
  ///
  /// - Parameters:
  ///   - id: Groups the effects that share windows (scoped to the store). Cancelling it closes
  ///     the window and drops the kept effect.
  ///   - interval: The length of a window.
  ///   - clock: The clock windows are measured on.
  ///   - latest: Whether the last effect of a window is kept (`true`) or the first (`false`).
  public func throttle(
    id: some Hashable & Sendable, for interval: Duration, clock: any Clock<Duration>,
    latest: Bool
  ) -> Self {
    guard isNotNone else { return self }
    return Self(.throttle(id: EffectID(id), interval: interval, clock: clock, latest: latest, self))
  }
}
