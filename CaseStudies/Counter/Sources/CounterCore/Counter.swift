import Unidirectional

/// The counter feature: a number you can increment and decrement.
public struct Counter: Reducer {
  /// The counter's state.
  public struct State: Equatable, Sendable {
    /// The current count.
    public var count: Int

    /// Creates a state.
    ///
    /// - Parameter count: The starting count.
    public init(count: Int = 0) {
      self.count = count
    }
  }

  /// What the user can do.
  public enum Action: Equatable, Sendable {
    /// Adds one.
    case increment
    /// Subtracts one.
    case decrement
  }

  /// Creates the feature.
  public init() {}

  /// Adds or subtracts one. The count saturates at the bounds of `Int` instead of trapping.
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .increment:
      if state.count < .max { state.count += 1 }
    case .decrement:
      if state.count > .min { state.count -= 1 }
    }
    return .none
  }
}
