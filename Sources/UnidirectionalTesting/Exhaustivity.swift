/// How strictly a ``TestStore`` checks each step and the end of the test.
public enum Exhaustivity: Equatable, Sendable {
  /// Every state change, fired observer, received action and running effect must be asserted.
  /// The default.
  case on

  /// Only what a step states is checked: the closure's changes to the actual state, the listed
  /// observers firing, the received action matching. Actions left unreceived are reduced and
  /// effects left running are cancelled without failing.
  ///
  /// - Parameter showSkippedAssertions: Whether what was skipped is recorded as a known issue
  ///   (Swift Testing) or printed (XCTest), so you can see what a test leaves unchecked.
  case off(showSkippedAssertions: Bool)

  /// Non-exhaustive, without showing skipped assertions.
  public static let off = Exhaustivity.off(showSkippedAssertions: false)
}
