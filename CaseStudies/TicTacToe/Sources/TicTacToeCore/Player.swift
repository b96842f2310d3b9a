/// One of the two players.
public enum Player: String, Equatable, Sendable, CaseIterable {
  case x = "X"
  case o = "O"

  /// The other player.
  public var other: Player { self == .x ? .o : .x }
}
