/// One of the two players.
public enum Player: String, Equatable, Sendable, CaseIterable {
  /// Plays first, marked X.
  case x = "X"
  /// Plays second, marked O.
  case o = "O"

  /// The other player.
  public var other: Player { self == .x ? .o : .x }
}
