/// The check that a case path made from a constructor alone gives back what it embeds: a closure
/// that changes its argument (`.case { Action.remove(id: $0 + 1) }`) makes the right case, so
/// the tag test of ``CasePath/extract(_:)`` accepts it, yet `embed(extract(root))` is another
/// value than `root`.
extension CasePath {
  /// Stops the program, naming the case path, the root and the two values, if `embedded` (what
  /// `embed` made of the payload `value` extracted from `root`) is known to differ from `root`;
  /// returns `true` otherwise.
  ///
  /// Called inside `assert`, so debug builds alone pay for it (a dynamic cast and two
  /// comparisons per matched `extract`).
  @usableFromInline
  static func checkRoundTrip(_ root: Root, _ value: Value, _ embedded: Root) -> Bool {
    guard let problem = roundTripProblem(root, value, embedded) else { return true }
    preconditionFailure(problem)
  }

  /// Why the case path does not round-trip, or `nil` if it does or that cannot be known.
  ///
  /// It is known only when `Root` is `Equatable` and `root == root` (a payload holding a NaN is
  /// equal to nothing, itself included): then `embedded != root` proves that `embed` is not the
  /// case's constructor. Otherwise nothing is said: the check never guesses.
  ///
  /// - Parameters:
  ///   - root: The value `extract` matched.
  ///   - value: The payload extracted from it.
  ///   - embedded: `embed(value)`.
  /// - Returns: A message for a precondition failure, or `nil`.
  static func roundTripProblem(_ root: Root, _ value: Value, _ embedded: Root) -> String? {
    guard let equatable = root as? any Equatable, differs(equatable, from: embedded) else {
      return nil
    }
    return """
      Unidirectional: CasePath<\(Root.self), \(Value.self)> is not a case path: it extracted \
      \(String(reflecting: value)) from \(String(reflecting: root)), but its embed closure makes \
      \(String(reflecting: embedded)) of it. Pass the case's constructor itself, not a closure \
      that changes its argument, or use CasePath(embed, extract:) with a pattern match that \
      undoes embed.
      """
  }

  /// Whether `other` is known to differ from `value`: `value` equals itself, and not `other`.
  private static func differs<T: Equatable>(_ value: T, from other: Root) -> Bool {
    guard let other = other as? T, value == value else { return false }
    return value != other
  }
}
