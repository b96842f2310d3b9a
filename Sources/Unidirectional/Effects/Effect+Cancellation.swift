extension Effect {
  /// Makes this effect cancellable by `id`.
  ///
  /// Identifiers are scoped to the store that runs the effect: two stores never cancel each
  /// other's effects, even with equal identifiers. Within a store, the identifiers a presented
  /// child or a stack element uses are its own too: another element, or the parent, cancelling
  /// an equal identifier does not reach them (see ``Reducer/ifLet(_:action:destination:fileID:line:)``
  /// and ``Reducer/forEach(_:action:destination:fileID:line:)``).
  ///
  /// - Parameters:
  ///   - id: Any hashable, sendable value, for example a case of a private enum.
  ///   - cancelInFlight: When `true`, effects already running with the same `id` are cancelled
  ///     before this one starts, so at most one runs at a time.
  public func cancellable(id: some Hashable & Sendable, cancelInFlight: Bool = false) -> Self {
    // Nothing to cancel later; but cancelling in flight must still happen.
    if !isNotNone && !cancelInFlight { return self }
    return Self(.cancellable(id: EffectID(id), cancelInFlight: cancelInFlight, self))
  }

  /// An effect that cancels every running effect that was made cancellable with `id`.
  ///
  /// Cancellation is immediate: actions the cancelled effects send afterwards are dropped.
  ///
  /// - Parameter id: The identifier given to ``cancellable(id:cancelInFlight:)``.
  public static func cancel(id: some Hashable & Sendable) -> Self {
    Self(.cancel(id: EffectID(id)))
  }
}
