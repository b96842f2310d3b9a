/// A problem a store noticed at run time that is not fatal, such as an effect that threw.
///
/// Every store reports its issues to one handler, given when the store is created:
///
/// ```swift
/// let store = Store(initialState: Feature.State(), reducer: Feature()) { issue in
///   logger.error("\(issue)")
/// }
/// ```
///
/// The default handler, ``printToStandardError``, writes one line per issue to standard error.
/// Handlers are called on whichever thread or task noticed the issue.
public struct StoreIssue: Sendable, CustomStringConvertible {
  /// What went wrong.
  public enum Kind: Sendable {
    /// A `.run` effect threw an error that was not a cancellation, and had no `catch:` handler.
    case effectFailed(any Error)

    /// A child action arrived while its child state was absent (an `ifLet` child that is `nil`,
    /// a `forEach` element that was removed, an enum state in another case). It was ignored.
    /// `description` names the action and where its reducer was declared.
    case actionWithoutState(action: String, state: String)

    /// An effect of a navigation child (an `ifLet`, `ifCaseLet`, presented or stack child, a
    /// `forEach` element) handed its `Send` to work the store does not track (an unstructured
    /// `Task`, a Dispatch queue, a callback), which sent an action after the child was
    /// dismissed, popped, removed or replaced. The action was dropped, never given to whatever
    /// child is there now; the work outlived its child, a leak in the feature (a `TestStore`
    /// fails the test). `fileID` and `line` say where the effect was created. (An action sent
    /// by the child's own effect task after it was cancelled with the child is dropped in
    /// silence, as is one sent while the child was there that still waited to be reduced.)
    case actionFromDismissedChild(action: String)
  }

  /// What went wrong.
  public let kind: Kind

  /// The file that created the effect or sent the action concerned.
  public let fileID: String

  /// The line in ``fileID``.
  public let line: UInt

  /// Creates an issue.
  ///
  /// - Parameters:
  ///   - kind: What went wrong.
  ///   - fileID: Where it came from.
  ///   - line: The line in `fileID`.
  public init(kind: Kind, fileID: String, line: UInt) {
    self.kind = kind
    self.fileID = fileID
    self.line = line
  }

  /// One line that says what went wrong and where.
  public var description: String {
    switch kind {
    case .effectFailed(let error):
      "Unidirectional: an effect created at \(fileID):\(line) threw an error that no 'catch:' "
        + "handled: \(String(reflecting: error))"
    case .actionWithoutState(let action, let state):
      "Unidirectional: the reducer at \(fileID):\(line) received \(action) while \(state) was "
        + "absent; the action was ignored."
    case .actionFromDismissedChild(let action):
      "Unidirectional: an effect created at \(fileID):\(line) sent \(action) after its child "
        + "feature was dismissed or replaced; the action was ignored."
    }
  }

  /// The default handler: writes ``description`` and a newline to standard error.
  public static let printToStandardError: @Sendable (StoreIssue) -> Void = { issue in
    writeToStandardError(issue.description + "\n")
  }
}
