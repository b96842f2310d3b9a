import Synchronization
import Unidirectional

/// One part of a program's output, drawn by its own observer: it is redrawn only when a value it
/// read changed.
///
/// A case study lists its concerns once; the executable shows them on the terminal with
/// ``Store/display(_:on:)``, and its tests register the same renderings as named observers of a
/// test store, so they prove which parts of the output each action redraws.
public struct DisplayConcern<State: Sendable, Action: Sendable>: Sendable {
  /// The concern's name (a test store's observer name).
  public let name: String
  /// Whether the concern is drawn at start, or only when it changes.
  public let showsInitialValue: Bool
  /// The lines to print for the store's current state (reading it through the store, which is
  /// what the observer tracks), or `nil` to print nothing.
  public let render: @Sendable (Store<State, Action>, Terminal) -> String?

  /// Creates a concern.
  public init(
    _ name: String,
    showsInitialValue: Bool = false,
    render: @escaping @Sendable (Store<State, Action>, Terminal) -> String?
  ) {
    self.name = name
    self.showsInitialValue = showsInitialValue
    self.render = render
  }
}

extension Store {
  /// Draws each concern on `terminal` now (those that show their initial value) and whenever
  /// the values it read change.
  ///
  /// - Returns: The observers' tokens; keep them alive as long as the output should update.
  public func display(
    _ concerns: [DisplayConcern<State, Action>], on terminal: Terminal
  ) -> [ObservationToken] {
    concerns.map { concern in
      let isRegistered = RegistrationFlag()
      let token = observe { [unowned self] in
        let output = concern.render(self, terminal)
        guard concern.showsInitialValue || isRegistered.value.load(ordering: .acquiring),
          let output
        else { return }
        terminal.print(output)
      }
      isRegistered.value.store(true, ordering: .releasing)
      return token
    }
  }
}

private final class RegistrationFlag: Sendable {
  let value = Atomic<Bool>(false)
}
