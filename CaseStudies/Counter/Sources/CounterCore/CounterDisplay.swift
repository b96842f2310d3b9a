import Unidirectional
import UnidirectionalTerminal

/// What the counter program shows, one concern per observer.
public enum CounterDisplay {
  /// The counter's output concerns: the count, the fact request (in flight, or cancelled by a
  /// change of the count), the fact, the step (when it changes), the timer.
  public static let concerns: [DisplayConcern<Counter.State, Counter.Action>] = [
    DisplayConcern("count", showsInitialValue: true) { store, styler in
      "count: " + styler.styled("\(store.count)", .bold)
    },
    // A change of the count cancels a fact request: said, or the user would wait for the fact.
    DisplayConcern("fact request") { store, styler in
      if store.isFactRequestInFlight { return styler.styled("computing a fact…", .dim) }
      guard store.wasFactRequestCancelled else { return nil }
      return styler.styled(
        "fact request cancelled: the count changed; type 'fact' for one about the new count",
        .dim)
    },
    DisplayConcern("fact") { store, styler in
      store.fact.map { "fact: " + styler.styled($0, .cyan) }
    },
    // Not shown at start: the transcripts of a counter with the default step stay as they were.
    DisplayConcern("step") { store, styler in
      "step: " + styler.styled("\(store[\.settings.value.step])", .bold)
    },
    DisplayConcern("timer") { store, styler in
      let isOn = store.isTimerOn
      return "timer: " + styler.styled(isOn ? "on" : "off", isOn ? .green : .yellow)
    },
  ]
}
