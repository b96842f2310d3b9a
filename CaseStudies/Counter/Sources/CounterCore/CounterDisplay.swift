import CaseStudySupport
import Unidirectional

/// What the counter program shows, one concern per observer.
public enum CounterDisplay {
  /// The counter's output concerns: the count, the fact request, the fact, the timer.
  public static let concerns: [DisplayConcern<Counter.State, Counter.Action>] = [
    DisplayConcern("count", showsInitialValue: true) { store, terminal in
      "count: " + terminal.styled("\(store.count)", .bold)
    },
    DisplayConcern("fact request") { store, terminal in
      store.isFactRequestInFlight ? terminal.styled("computing a fact…", .dim) : nil
    },
    DisplayConcern("fact") { store, terminal in
      store.fact.map { "fact: " + terminal.styled($0, .cyan) }
    },
    DisplayConcern("timer") { store, terminal in
      let isOn = store.isTimerOn
      return "timer: " + terminal.styled(isOn ? "on" : "off", isOn ? .green : .yellow)
    },
  ]
}
