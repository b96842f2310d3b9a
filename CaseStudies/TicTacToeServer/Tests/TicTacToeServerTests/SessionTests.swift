import Testing
import TicTacToeCore
import TicTacToeServerCore
import Unidirectional
import UnidirectionalTesting

/// A session's phases and its idle timer, on a test clock. The "phase" observer reads what the
/// server pushes to the client (the `session` frame).
@Suite struct SessionTests {
  static func makeStore(clock: TestClock) -> TestStore<Session.State, Session.Action> {
    let store = TestStore(initialState: Session.State(id: 7, idleTimeout: .seconds(30))) {
      Session()
    } withDependencies: {
      $0.continuousClock = clock
    }
    store.observe("phase") { _ = ($0.phase, $0.name) }
    return store
  }

  @Test func aSilentClientTimesOutBeforeHello() async {
    let clock = TestClock()
    let store = Self.makeStore(clock: clock)
    await store.send(.connected)
    await clock.advance(by: .seconds(29))
    await store.send(.frameReceived)  // Restarts the timer: 30 s from now.
    await clock.advance(by: .seconds(29))
    await clock.advance(by: .seconds(1))
    await store.receive(.idleTimedOut, fires: ["phase"]) {
      $0.phase = .closed(.idle)
      $0.awaitsClient = false
    }
  }

  @Test func theTimerStopsWhileTheClientWaitsOnTheServerOrItsOpponent() async {
    let clock = TestClock()
    let store = Self.makeStore(clock: clock)
    await store.send(.connected)
    await store.send(.hello(name: "Ann"), fires: ["phase"]) {
      $0.name = "Ann"
      $0.phase = .lobby
    }
    await store.send(.queued, fires: ["phase"]) {
      $0.phase = .queued
      $0.awaitsClient = false
    }
    await clock.advance(by: .seconds(300))  // Queued: no timeout.
    await store.send(.matched(game: "g1", player: .o, opponent: "Bob"), fires: ["phase"]) {
      $0.phase = .playing(game: "g1", player: .o, opponent: "Bob")
    }
    await clock.advance(by: .seconds(300))  // Bob's turn: no timeout.
    await store.send(.turnChanged(isMine: true)) { $0.awaitsClient = true }
    await clock.advance(by: .seconds(20))
    await store.send(.turnChanged(isMine: false)) { $0.awaitsClient = false }
    await clock.advance(by: .seconds(300))
    await store.send(.turnChanged(isMine: true)) { $0.awaitsClient = true }
    await clock.advance(by: .seconds(30))
    await store.receive(.idleTimedOut, fires: ["phase"]) {
      $0.phase = .closed(.idle)
      $0.awaitsClient = false
    }
    await store.send(.hello(name: "Late"))  // A closed session ignores everything.
  }

  @Test func theGameEndsBackInTheLobbyAndCloseCancelsTheTimer() async {
    let clock = TestClock()
    let store = Self.makeStore(clock: clock)
    await store.send(.hello(name: "Ann"), fires: ["phase"]) {
      $0.name = "Ann"
      $0.phase = .lobby
    }
    await store.send(.queued, fires: ["phase"]) {
      $0.phase = .queued
      $0.awaitsClient = false
    }
    await store.send(.matched(game: "g1", player: .x, opponent: "Bob"), fires: ["phase"]) {
      $0.phase = .playing(game: "g1", player: .x, opponent: "Bob")
      $0.awaitsClient = true
    }
    #expect(store.state.game == "g1" && store.state.player == .x)
    await store.send(.gameEnded, fires: ["phase"]) {
      $0.phase = .lobby
      $0.lastGame = "g1"
    }
    await store.send(.close(.disconnected), fires: ["phase"]) {
      $0.phase = .closed(.disconnected)
      $0.awaitsClient = false
    }
    // The exhaustive test store fails if the timer effect were still running.
  }

  @Test func leavingTheQueueRestartsTheTimer() async {
    let clock = TestClock()
    let store = Self.makeStore(clock: clock)
    await store.send(.hello(name: "Ann"), fires: ["phase"]) {
      $0.name = "Ann"
      $0.phase = .lobby
    }
    await store.send(.queued, fires: ["phase"]) {
      $0.phase = .queued
      $0.awaitsClient = false
    }
    await store.send(.leftQueue, fires: ["phase"]) {
      $0.phase = .lobby
      $0.awaitsClient = true
    }
    await clock.advance(by: .seconds(30))
    await store.receive(.idleTimedOut, fires: ["phase"]) {
      $0.phase = .closed(.idle)
      $0.awaitsClient = false
    }
  }
}
