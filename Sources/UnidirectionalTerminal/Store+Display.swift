import Synchronization
import Unidirectional

extension Store {
  /// Draws each concern on `terminal` now (those that show their initial value) and whenever
  /// the values it read change: `concerns` as output lines, `errors` as error lines.
  ///
  /// Observers run on the thread that changed the state, an effect's included, and the
  /// terminal prints from any thread at once, even while the main thread waits for input.
  ///
  /// - Parameters:
  ///   - concerns: The concerns printed on standard output.
  ///   - errors: The concerns printed as `error:` lines on standard error.
  ///   - terminal: Where to print.
  /// - Returns: The observers' tokens; keep them alive as long as the output should update.
  public func display(
    _ concerns: [DisplayConcern<State, Action>],
    errors: [DisplayConcern<State, Action>] = [],
    on terminal: Terminal
  ) -> [ObservationToken] {
    let all = concerns.map { ($0, false) } + errors.map { ($0, true) }
    return all.map { concern, isError in
      let isRegistered = RegistrationFlag()
      let styler = isError ? terminal.errorStyler : terminal.outputStyler
      let token = observe { [unowned self] in
        let text = concern.render(self, styler)
        // The first run registers what the concern reads; it prints only if asked to.
        guard concern.showsInitialValue || isRegistered.value.load(ordering: .acquiring),
          let text
        else { return }
        if isError { terminal.printError(text) } else { terminal.print(text) }
      }
      isRegistered.value.store(true, ordering: .releasing)
      return token
    }
  }
}

private final class RegistrationFlag: Sendable {
  let value = Atomic<Bool>(false)
}
