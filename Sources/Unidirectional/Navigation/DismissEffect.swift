/// Dismisses the presented child feature, or pops the stack element, whose effect calls it.
///
/// Read it from the dependencies and call it from an effect of a child presented with
/// ``Reducer/ifLet(_:action:destination:fileID:line:)`` or of a stack element of
/// ``Reducer/forEach(_:action:destination:fileID:line:)``:
///
/// ```swift
/// @Dependency(\.dismiss) var dismiss
/// …
/// case .saveTapped:
///   return .run { send in
///     try await save()
///     await dismiss()
///   }
/// ```
///
/// It sends the parent `.dismiss` (or `.popFrom(id:)` for a stack element) and returns once that
/// action is reduced; by then the child's effects, this one included, are cancelled. Called
/// anywhere else (a reducer, an effect of a feature that was not presented) it reports the
/// mistake through ``DependencyValues/reportIssue`` and does nothing.
public struct DismissEffect: Sendable {
  /// How the child's effect reaches its parent: installed by the navigation reducer around the
  /// child's effect operations (it alone holds the parent's `Send`).
  struct Handler: Sendable {
    let dismiss: @Sendable () async -> Void
  }

  /// The handler of the presented child or stack element whose effect is running, if any.
  @TaskLocal static var handler: Handler?

  private let dismiss: (@Sendable () async -> Void)?

  /// The dismissal of whichever child's effect calls it: the value of
  /// ``DependencyValues/dismiss`` unless a test replaced it.
  init() {
    self.dismiss = nil
  }

  /// Creates a dismissal that runs `dismiss` instead, for testing a child feature on its own.
  ///
  /// - Parameter dismiss: Called in place of dismissing.
  public init(_ dismiss: @escaping @Sendable () async -> Void) {
    self.dismiss = dismiss
  }

  /// Dismisses the child whose effect is running, and returns once the parent has reduced the
  /// dismissal.
  ///
  /// - Parameters:
  ///   - fileID: The file of the call, named if it is reported (filled in for you).
  ///   - line: The line of the call (filled in for you).
  public func callAsFunction(fileID: StaticString = #fileID, line: UInt = #line) async {
    if let dismiss { return await dismiss() }
    guard let handler = Self.handler else {
      DependencyValues.current.reportIssue(
        "Unidirectional: dismiss() was called at \(fileID):\(line) outside an effect of a "
          + "presented child feature or stack element; nothing was dismissed.")
      return
    }
    await handler.dismiss()
  }
}

extension DependencyValues {
  /// Dismisses the presented child feature or stack element whose effect calls it (see
  /// ``DismissEffect``). Live and test value: the same, which reports a call made anywhere else.
  public var dismiss: DismissEffect {
    get { self[DismissKey.self] }
    set { self[DismissKey.self] = newValue }
  }
}

private enum DismissKey: DependencyKey {
  static var liveValue: DismissEffect { DismissEffect() }
  static var testValue: DismissEffect { DismissEffect() }
}
