import Unidirectional
import UnidirectionalTestSupport

// Features for the navigation tests: a screen with effects of every kind that matters (one that
// waits for a gate then sends, one that sends after it is cancelled, a cancellable one, one that
// dismisses), presented by `Presenter` and stacked by `Navigator`.

struct Screen: Reducer {
  struct State: Equatable, Sendable, Identifiable {
    var id: Int
    var count = 0
  }

  enum Action: Equatable, Sendable {
    case increment
    /// Waits for the gate, then sends `.tick`.
    case waitThenTick
    /// Waits until cancelled, logs it, then sends `.tick` anyway (a stale send).
    case workUntilCancelled
    /// Like `workUntilCancelled`, cancellable by `.cancelWork`.
    case startCancellableWork
    case cancelWork
    case tick
    /// Calls `dismiss()` from an effect, then logs that it returned.
    case close
  }

  struct WorkID: Hashable, Sendable {}

  let log: Log<String>
  let gate: Gate
  @Dependency(\.dismiss) var dismiss

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .increment, .tick:
      state.count += 1
      return .none
    case .waitThenTick:
      return .run { [gate] send in
        await gate.wait()
        await send(.tick)
      }
    case .workUntilCancelled:
      return .run { [id = state.id, log] send in
        await waitForCancellation()
        log.append("screen \(id) cancelled")
        await send(.tick)
      }
    case .startCancellableWork:
      return .run { [id = state.id, log] send in
        await waitForCancellation()
        log.append("screen \(id) work cancelled")
        await send(.tick)
      }
      .cancellable(id: WorkID())
    case .cancelWork:
      return .cancel(id: WorkID())
    case .close:
      return .run { [id = state.id, log, dismiss] _ in
        await dismiss()
        log.append("screen \(id) dismiss returned, cancelled: \(Task.isCancelled)")
      }
    }
  }
}

struct Presenter: Reducer {
  struct State: Equatable, Sendable {
    @PresentationState var screen: Screen.State?
    var events: [String] = []
  }

  enum Action: Equatable, Sendable {
    case screen(PresentationAction<Screen.Action>)
    case present(Int)
    case clear
    case bump
  }

  let log: Log<String>
  let gate: Gate

  var body: some Reducer<State, Action> {
    Reduce { state, action in
      switch action {
      case .present(let id):
        state.screen = Screen.State(id: id)
      case .clear:
        state.screen = nil
      case .bump:
        state.screen?.count += 10
      case .screen(.dismiss):
        state.events.append("parent saw dismiss of \(state.screen.map { "\($0.id)" } ?? "nil")")
      case .screen(.presented(let action)):
        state.events.append("parent saw \(action), count \(state.screen?.count ?? -1)")
      }
      return .none
    }
    .ifLet(\.$screen, action: .screen) { Screen(log: log, gate: gate) }
  }
}

extension CasePath where Root == Presenter.Action {
  static var screen: CasePath<Presenter.Action, PresentationAction<Screen.Action>> {
    .init(Presenter.Action.screen) { if case .screen(let a) = $0 { a } else { nil } }
  }
}

struct Navigator: Reducer {
  struct State: Equatable, Sendable {
    var path = StackState<Screen.State>()
    var other = StackState<Screen.State>()
    var events: [String] = []
  }

  enum Action: Equatable, Sendable {
    case path(StackAction<Screen.State, Screen.Action>)
    case other(StackAction<Screen.State, Screen.Action>)
    case push(Int)
    case popLast
    case replacePath(Int)
  }

  let log: Log<String>
  let gate: Gate

  var body: some Reducer<State, Action> {
    Reduce { state, action in
      switch action {
      case .push(let id):
        state.path.append(Screen.State(id: id))
      case .popLast:
        state.path.popLast()
      case .replacePath(let id):
        state.path = StackState([Screen.State(id: id)])
      case .path(.element(let id, let action)):
        state.events.append(
          "parent saw \(action) on \(id), count \(state.path[id: id]?.count ?? -1)")
      case .path(.popFrom(let id)):
        state.events.append("parent saw popFrom \(id), depth \(state.path.count)")
      case .path(.push(let id, _)):
        state.events.append("parent saw push \(id), depth \(state.path.count)")
      case .other:
        break
      }
      return .none
    }
    .forEach(\.path, action: .path) { Screen(log: log, gate: gate) }
    .forEach(\.other, action: .other) { Screen(log: log, gate: gate) }
  }
}

extension CasePath where Root == Navigator.Action {
  static var path: CasePath<Navigator.Action, StackAction<Screen.State, Screen.Action>> {
    .init(Navigator.Action.path) { if case .path(let a) = $0 { a } else { nil } }
  }
  static var other: CasePath<Navigator.Action, StackAction<Screen.State, Screen.Action>> {
    .init(Navigator.Action.other) { if case .other(let a) = $0 { a } else { nil } }
  }
}
