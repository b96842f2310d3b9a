import Unidirectional

/// A number-fact dependency for the test store's tests.
struct FactClient: Sendable {
  var fetch: @Sendable (Int) async throws -> String
}

extension FactClient: DependencyKey {
  static let liveValue = FactClient { "\($0) is a number." }
  static let testValue = FactClient { "\($0) is a test number." }
}

/// A dependency with no test value, to prove that using it fails a test store's test.
struct LiveOnlyClient: DependencyKey, Sendable {
  static let liveValue = LiveOnlyClient()
  func value() -> Int { 42 }
}

extension DependencyValues {
  var fact: FactClient {
    get { self[FactClient.self] }
    set { self[FactClient.self] = newValue }
  }
  var liveOnly: LiveOnlyClient {
    get { self[LiveOnlyClient.self] }
    set { self[LiveOnlyClient.self] = newValue }
  }
}

/// A counter with a fact, a timer and a few effects, used by the test store's tests.
struct Feature: Reducer {
  struct State: Equatable, Sendable {
    var count = 0
    var fact: String?
    var isTimerOn = false
    var name = "counter"
  }

  enum Action: Equatable, Sendable {
    case increment
    case decrement
    case noop
    case factButtonTapped
    case factResponse(String)
    case startTimer
    case stopTimer
    case tick
    case sendTwice
    case first
    case second
    case useLiveOnly
    case throwInEffect
    case neverEnding
    case rename(String)
  }

  enum TimerID: Hashable, Sendable { case timer }

  @Dependency(\.fact) var fact
  @Dependency(\.continuousClock) var clock
  @Dependency(\.liveOnly) var liveOnly

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .increment:
      state.count += 1
      return .none
    case .decrement:
      state.count -= 1
      return .none
    case .noop, .first, .second:
      return .none
    case .factButtonTapped:
      state.fact = nil
      let count = state.count
      return .run { [fact] send in
        await send(.factResponse(try await fact.fetch(count)))
      }
    case .factResponse(let fact):
      state.fact = fact
      return .none
    case .startTimer:
      state.isTimerOn = true
      return .run { [clock] send in
        while true {
          try await clock.sleep(for: .seconds(1))
          await send(.tick)
        }
      }
      .cancellable(id: TimerID.timer)
    case .stopTimer:
      state.isTimerOn = false
      return .cancel(id: TimerID.timer)
    case .tick:
      state.count += 1
      return .none
    case .sendTwice:
      return .merge(.send(.first), .run { send in await send(.second) })
    case .useLiveOnly:
      state.count = liveOnly.value()
      return .none
    case .throwInEffect:
      struct Failure: Error {}
      return .run { _ in throw Failure() }
    case .neverEnding:
      // wall-clock: an effect that never ends by itself (the tests cancel it); nothing waits for it.
      return .run { _ in try await Task.sleep(for: .seconds(3600)) }
    case .rename(let name):
      state.name = name
      return .none
    }
  }
}

extension CasePath where Root == Feature.Action {
  static var factResponse: CasePath<Feature.Action, String> {
    .init(Feature.Action.factResponse) {
      if case .factResponse(let fact) = $0 { fact } else { nil }
    }
  }
}
