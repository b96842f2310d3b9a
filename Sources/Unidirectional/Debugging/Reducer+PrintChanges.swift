extension Reducer {
  /// This reducer, printing each action it receives and the change it made to the state.
  ///
  /// For debugging: each action prints as one block, the action's dump, then a line diff of
  /// the state's dump before and after (removed lines marked `−`, added `+`, long unchanged runs
  /// collapsed), in the style of the test store's failure messages:
  ///
  /// ```
  /// received action:
  ///     Counter.Action.increment
  ///     Counter.State(
  ///   −   count: 0,
  ///   +   count: 1,
  ///       isTimerOn: false
  ///     )
  /// ```
  ///
  /// An action that changes nothing prints `(no state change)` under it.
  ///
  /// ```swift
  /// let store = Store(initialState: Counter.State()) {
  ///   Counter().printChanges()
  /// }
  /// ```
  ///
  /// - Parameter output: Receives each block of text, ending with a newline. `nil` (the
  ///   default) writes it to standard error. Called on the thread reducing the action while the store is
  ///   locked: it must not read from or send to the store.
  /// - Returns: A reducer that behaves exactly like this one, and prints.
  /// - Complexity: Dumps and diffs the whole state on every action (O(*n*) in the size of the
  ///   state's dump, O(*n*·*m*) in the changed region for the diff); keep it out of hot paths.
  public func printChanges(
    to output: (@Sendable (String) -> Void)? = nil
  ) -> some Reducer<State, Action> {
    let output = output ?? { writeToStandardError($0) }
    return Reduce { state, action in
      let oldState = state
      let effect = self.reduce(into: &state, action: action)
      output(ChangeDescription.describe(action: action, from: oldState, to: state))
      return effect
    }
  }
}

/// The text `printChanges` writes for one action.
enum ChangeDescription {
  static func describe(action: Any, from oldState: Any, to newState: Any) -> String {
    let indent = { (text: String) in
      text.split(separator: "\n", omittingEmptySubsequences: false).map { "    " + $0 }
        .joined(separator: "\n")
    }
    let change =
      LineDiff.diff(expected: ValueDump.dump(oldState), actual: ValueDump.dump(newState))
      ?? "    (no state change)"
    return "received action:\n" + indent(ValueDump.dump(action)) + "\n" + change + "\n"
  }
}
