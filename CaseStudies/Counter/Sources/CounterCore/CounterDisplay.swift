import Unidirectional
import UnidirectionalTerminal

/// What the counter program shows, one concern per observer.
public enum CounterDisplay {
  /// The counter's output concerns: the count, the fact request, the fact, the timer.
  public static let concerns: [DisplayConcern<Counter.State, Counter.Action>] = [
    DisplayConcern("count", showsInitialValue: true) { store, styler in
      "count: " + styler.styled("\(store.count)", .bold)
    },
    DisplayConcern("fact request") { store, styler in
      store.isFactRequestInFlight ? styler.styled("computing a fact…", .dim) : nil
    },
    DisplayConcern("fact") { store, styler in
      store.fact.map { "fact: " + styler.styled($0, .cyan) }
    },
    DisplayConcern("timer") { store, styler in
      let isOn = store.isTimerOn
      return "timer: " + styler.styled(isOn ? "on" : "off", isOn ? .green : .yellow)
    },
  ]
}
