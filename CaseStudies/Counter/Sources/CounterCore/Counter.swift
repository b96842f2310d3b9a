import Unidirectional

/// The counter feature, in the spirit of TCA's "Effects basics": a count, a number fact about it,
/// a timer that counts up, and a delayed return to zero after going below it; and a step for `+`
/// and `-`, kept in a settings file shared by every counter (see ``CounterSettings``).
public struct Counter: Reducer {
  /// The counter's state.
  public struct State: Equatable, Sendable {
    /// The current count.
    public var count: Int
    /// The last number fact received, if any.
    public var fact: String?
    /// Whether a number fact is being computed.
    public var isFactRequestInFlight: Bool
    /// Whether a change of the count cancelled the last fact request, so that the program can
    /// say why no fact comes; `false` again once another fact is asked for.
    public var wasFactRequestCancelled: Bool
    /// Whether the timer is counting up.
    public var isTimerOn: Bool
    /// The settings, shared with every counter of the user (see ``CounterSettings``).
    public var settings: Shared<CounterSettings>

    /// Creates a state.
    public init(
      count: Int = 0, fact: String? = nil, isFactRequestInFlight: Bool = false,
      wasFactRequestCancelled: Bool = false, isTimerOn: Bool = false,
      settings: Shared<CounterSettings> = Shared(.inMemory("counter"), default: CounterSettings())
    ) {
      self.count = count
      self.fact = fact
      self.isFactRequestInFlight = isFactRequestInFlight
      self.wasFactRequestCancelled = wasFactRequestCancelled
      self.isTimerOn = isTimerOn
      self.settings = settings
    }
  }

  /// What the user and the effects can do.
  public enum Action: Codable, Equatable, Sendable {
    /// Adds the step; cancels a pending return to zero once the count is back at zero or above.
    /// Like every change of the count, it cancels a fact request in flight (and sets
    /// ``State/wasFactRequestCancelled``).
    case increment
    /// Subtracts the step; below zero, starts a one-second delayed increment back toward zero.
    case decrement
    /// The delay started by a decrement below zero has passed.
    case decrementDelayFinished
    /// Asks the `NumberFact` dependency for a fact about the current count.
    case factButtonTapped
    /// The fact arrived.
    case factResponse(String)
    /// The fact could not be computed; the message says why.
    case factFailed(String)
    /// Starts the timer, or stops it if it is on.
    case toggleTimer
    /// One second of the timer has passed.
    case timerTicked
    /// Sets the step, for this counter and every other (saved in the settings file).
    case setStep(Int)
    /// The settings changed elsewhere: another counter, or an edit of the file.
    case settingsChanged(SharedChange<CounterSettings>)
  }

  /// Cancellation ids of the counter's long-running effects.
  public enum CancelID: Hashable, Sendable {
    /// The delayed return toward zero after going below it.
    case decrementDelay
    /// The number-fact request.
    case fact
    /// The timer.
    case timer
  }

  @Dependency(\.numberFact) var numberFact
  @Dependency(\.continuousClock) var clock

  /// Creates the feature.
  public init() {}

  /// Handles one action. The count saturates at the bounds of `Int` instead of trapping.
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .increment:
      state.count = Self.saturating(state.count, plus: state.settings.value.step)
      state.fact = nil
      return .merge(
        Self.countChanged(&state),
        state.count >= 0 ? .cancel(id: CancelID.decrementDelay) : .none)

    case .decrement:
      state.count = Self.saturating(state.count, plus: -state.settings.value.step)
      state.fact = nil
      guard state.count < 0 else { return Self.countChanged(&state) }
      return .merge(
        Self.countChanged(&state),
        .run { [clock] send in
          try await clock.sleep(for: .seconds(1))
          await send(.decrementDelayFinished)
        }
        .cancellable(id: CancelID.decrementDelay, cancelInFlight: true))

    case .decrementDelayFinished:
      guard state.count < 0 else { return .none }
      state.count += 1
      return Self.countChanged(&state)

    case .factButtonTapped:
      state.fact = nil
      state.isFactRequestInFlight = true
      state.wasFactRequestCancelled = false
      let count = state.count
      return .run { [numberFact] send in
        await send(.factResponse(try await numberFact.fact(count)))
      } catch: { error, send in
        await send(.factFailed("\(error)"))
      }
      .cancellable(id: CancelID.fact, cancelInFlight: true)

    case .factResponse(let fact):
      state.fact = fact
      state.isFactRequestInFlight = false
      return .none

    case .factFailed:
      state.isFactRequestInFlight = false
      return .none

    case .toggleTimer:
      state.isTimerOn.toggle()
      guard state.isTimerOn else { return .cancel(id: CancelID.timer) }
      return .run { [clock] send in
        while true {
          try await clock.sleep(for: .seconds(1))
          await send(.timerTicked)
        }
      }
      .cancellable(id: CancelID.timer, cancelInFlight: true)

    case .timerTicked:
      guard state.count < .max else { return .none }
      state.count += 1
      return Self.countChanged(&state)

    case .setStep(let step):
      // The command refuses other steps; a replayed log or a test might not.
      let step = min(max(step, CounterSettings.steps.lowerBound), CounterSettings.steps.upperBound)
      state.settings.withLock { $0.step = step }
      return .none

    case .settingsChanged:
      // The copy has the new settings already (see `receivingShared`).
      return .none
    }
  }

  /// The counter as a program runs it: its copy of the settings follows changes made by other
  /// counters and edits of the file.
  public static func receivingSettings() -> ReceiveSharedReducer<Counter, CounterSettings> {
    Counter().receivingShared(\.settings, action: .case(Action.settingsChanged))
  }

  /// `count + step`, held at the bounds of `Int` instead of trapping.
  private static func saturating(_ count: Int, plus step: Int) -> Int {
    let (sum, overflow) = count.addingReportingOverflow(step)
    guard overflow else { return sum }
    return step > 0 ? .max : .min
  }

  /// The count changed: a fact being computed would be about the old count, so its request is
  /// cancelled (as in TCA's "Effects cancellation" case study) instead of showing it late. The
  /// state says so, for the program to tell the user why no fact comes.
  private static func countChanged(_ state: inout State) -> Effect<Action> {
    guard state.isFactRequestInFlight else { return .none }
    state.isFactRequestInFlight = false
    state.wasFactRequestCancelled = true
    return .cancel(id: CancelID.fact)
  }
}
