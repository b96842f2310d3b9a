import Synchronization
import Testing
import Unidirectional
import UnidirectionalTesting

// The code of the article "Coming from TCA" (Unidirectional.docc/ComingFromTCA.md), compiled and
// run. Every ```swift block of the article appears here line for line (up to indentation);
// `DocumentationSnippetTests` checks it. Change both together.

struct Seat: Reducer {
  struct State: Equatable, Sendable, Identifiable {
    let id: Int
    var isTaken = false
  }
  enum Action: Equatable, Sendable {
    case takeTapped
  }
  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    state.isTaken = true
    return .none
  }
}

struct Invite: Reducer {
  struct State: Equatable, Sendable {
    var name = ""
  }
  enum Action: Equatable, Sendable {
    case nameChanged(String)
    case sendTapped
  }
  @Dependency(\.dismiss) var dismiss

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .nameChanged(let name):
      state.name = name
      return .none
    case .sendTapped:
      return .run { _ in await dismiss() }
    }
  }
}

struct Lobby: Reducer {
  struct State: Equatable, Sendable {
    var seats: IdentifiedArray<Seat.State> = []
    @PresentationState var invite: Invite.State?
  }
  enum Action: Equatable, Sendable {
    case seats(IdentifiedActionOf<Seat>)
    case invite(PresentationAction<Invite.Action>)
    case inviteTapped
  }

  var body: some Reducer<State, Action> {
    Reduce { state, action in
      switch action {
      case .inviteTapped:
        state.invite = Invite.State()
        return .none
      case .seats, .invite:
        return .none
      }
    }
    .forEach(\.seats, action: .seats) { Seat() }
    .ifLet(\.$invite, action: .invite) { Invite() }
  }
}

extension CasePath<Lobby.Action, IdentifiedActionOf<Seat>> {
  static var seats: Self { .case(Lobby.Action.seats) }
}

extension CasePath<Lobby.Action, PresentationAction<Invite.Action>> {
  static var invite: Self { .case(Lobby.Action.invite) }
}

/// The article's names that would clash with the test module's.
enum TCAArticle {
  /// The lines printed in a test.
  final class Output: Sendable {
    let lines = Mutex<[String]>([])
  }

  /// What the article's `print` calls write in the current test.
  @TaskLocal static var output: Output?

  /// Stands for `Swift.print` in the article's code: the line goes to the test's `output`.
  static func print(_ items: Any...) {
    let line = items.map { "\($0)" }.joined(separator: " ")
    output?.lines.withLock { $0.append(line) }
  }
}

extension TCAArticle {
  @Suite struct Tests {
    @Test func anObserverInsteadOfAView() {
      let output = Output()
      TCAArticle.$output.withValue(output) {
        let seats: IdentifiedArray = [Seat.State(id: 1), Seat.State(id: 2)]
        let store = Store(initialState: Lobby.State(seats: seats)) { Lobby() }
        let seatLine = store.observe {
          print("seat 1 taken:", store[\.seats, id: 1, \.isTaken] ?? false)
        }
        store.send(.seats(.element(id: 2, action: .takeTapped)))  // prints nothing: seat 2
        store.send(.seats(.element(id: 1, action: .takeTapped)))  // prints "seat 1 taken: true"
        withExtendedLifetime(seatLine) {}
      }
      #expect(output.lines.withLock { $0 } == ["seat 1 taken: false", "seat 1 taken: true"])
    }

    @Test func invitingSomeone() async {
      let store = TestStore(initialState: Lobby.State()) { Lobby() }

      await store.send(.inviteTapped) { $0.invite = Invite.State() }
      await store.send(.invite(.presented(.nameChanged("Ann")))) { $0.invite?.name = "Ann" }
      await store.send(.invite(.presented(.sendTapped)))
      await store.receive(.invite(.dismiss)) { $0.invite = nil }
      await store.finish()
    }
  }
}
