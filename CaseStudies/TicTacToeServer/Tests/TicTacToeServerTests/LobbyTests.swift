import Testing
import TicTacToeServerCore
import Unidirectional
import UnidirectionalTesting

/// The lobby pairs players first come, first served, and the server's reader of pairings runs
/// once per pairing.
@Suite struct LobbyTests {
  static let ann = Lobby.Entrant(session: 1, name: "Ann")
  static let bob = Lobby.Entrant(session: 2, name: "Bob")
  static let cy = Lobby.Entrant(session: 3, name: "Cy")

  static func makeStore() -> TestStore<Lobby.State, Lobby.Action> {
    let store = TestStore(initialState: Lobby.State()) { Lobby() }
    store.observe("pairings") { _ = $0.lastPairing }
    return store
  }

  @Test func twoJoinsMakeAGameAndTheFirstPlaysX() async {
    let store = Self.makeStore()
    await store.send(.join(Self.ann)) { $0.waiting = [Self.ann] }
    await store.send(.join(Self.ann))  // Already queued: ignored.
    await store.send(.join(Self.bob), fires: ["pairings"]) {
      $0.waiting = []
      $0.gamesStarted = 1
      $0.lastPairing = Lobby.Pairing(game: "g1", x: Self.ann, o: Self.bob)
    }
    await store.send(.join(Self.cy)) { $0.waiting = [Self.cy] }
    await store.send(.join(Self.ann), fires: ["pairings"]) {
      $0.waiting = []
      $0.gamesStarted = 2
      $0.lastPairing = Lobby.Pairing(game: "g2", x: Self.cy, o: Self.ann)
    }
  }

  @Test func leavingTheQueue() async {
    let store = Self.makeStore()
    await store.send(.join(Self.ann)) { $0.waiting = [Self.ann] }
    await store.send(.leave(session: 1)) { $0.waiting = [] }
    await store.send(.leave(session: 1))
    await store.send(.join(Self.bob)) { $0.waiting = [Self.bob] }
  }
}
