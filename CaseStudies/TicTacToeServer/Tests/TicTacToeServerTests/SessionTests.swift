import Testing
import TicTacToeCore
import TicTacToeServerCore
import Unidirectional
import UnidirectionalTesting

/// A session's phases and its idle timer, on a test clock. The "phase" observer reads what the
/// server pushes to the client (the `session` frame): ticks and turns never fire it.
@Suite struct SessionTests {
  static let tick = Duration.milliseconds(7500)  // A quarter of the 30 s timeout.

  /// A session whose timer reads the turn of its game from `turn` (what the server reads from
  /// the game's store) and takes `frame` (which the server raises on each frame).
  static func makeStore(
    clock: TestClock, turn: Locked<GameTurn?> = Locked(nil), frame: Locked<Bool> = Locked(false)
  ) -> TestStore<Session.State, Session.Action> {
    let reader = IdleReader {
      let sawFrame = frame.withLock { raised in
        defer { raised = false }
        return raised
      }
      return IdleReading(sawFrame: sawFrame, turn: turn.withLock { $0 })
    }
    let store = TestStore(initialState: Session.State(id: 7, idleTimeout: .seconds(30))) {
      Session(idleReader: reader)
    } withDependencies: {
      $0.continuousClock = clock
    }
    store.observe("phase") { _ = ($0.phase, $0.name) }
    return store
  }

  /// Advances one tick and asserts the tick action, which carries `turn` and no frame: counted
  /// up to `count`, or ignored (`nil`).
  static func tick(
    _ store: TestStore<Session.State, Session.Action>, _ clock: TestClock, counting count: Int?,
    turn: GameTurn? = nil
  ) async {
    await clock.advance(by: tick)
    if let count {
      await store.receive(.idleTick(reading(turn))) { $0.idleTicks = count }
    } else {
      await store.receive(.idleTick(reading(turn)))
    }
  }

  /// What the timer reads: `turn`, and a frame or not.
  static func reading(_ turn: GameTurn?, sawFrame: Bool = false) -> IdleReading {
    IdleReading(sawFrame: sawFrame, turn: turn)
  }

  @Test func aSilentClientIsClosedAfterTheTimeoutAndAFrameResetsTheCount() async {
    let clock = TestClock()
    let frame = Locked(false)
    let store = Self.makeStore(clock: clock, frame: frame)
    await store.send(.connected)
    for count in 1...4 { await Self.tick(store, clock, counting: count) }
    // A frame: the next tick reads it, starts the count again, and counts itself.
    frame.withLock { $0 = true }
    await clock.advance(by: Self.tick)
    await store.receive(.idleTick(Self.reading(nil, sawFrame: true))) { $0.idleTicks = 1 }
    for count in 2...4 { await Self.tick(store, clock, counting: count) }
    await clock.advance(by: Self.tick)
    await store.receive(.idleTick(Self.reading(nil)), fires: ["phase"]) {
      $0.idleTicks = 5
      $0.phase = .closed(.idle)
      $0.awaitsClient = false
    }
    // The timer stopped: the exhaustive test store fails if an effect is still running.
  }

  @Test func ticksCountOnlyWhileTheServerWaitsOnTheClient() async {
    let clock = TestClock()
    let turn = Locked<GameTurn?>(nil)
    let store = Self.makeStore(clock: clock, turn: turn)
    await store.send(.connected)
    await store.send(.hello(name: "Ann"), fires: ["phase"]) {
      $0.name = "Ann"
      $0.phase = .lobby
    }
    await Self.tick(store, clock, counting: 1)
    await store.send(.queued, fires: ["phase"]) {
      $0.phase = .queued
      $0.awaitsClient = false
      $0.idleTicks = 0
    }
    for _ in 1...10 { await Self.tick(store, clock, counting: nil) }  // Queued: not counted.
    await store.send(.matched(game: "g1", player: .o, opponent: "Bob"), fires: ["phase"]) {
      $0.phase = .playing(game: "g1", player: .o, opponent: "Bob")
    }
    // Not seated yet: no turn to read, nothing counted.
    await Self.tick(store, clock, counting: nil)
    // Bob's turn: the tick reads the game's move count, and does not count.
    turn.withLock { $0 = GameTurn(isMine: false, moves: 0) }
    await clock.advance(by: Self.tick)
    await store.receive(.idleTick(Self.reading(GameTurn(isMine: false, moves: 0)))) {
      $0.turnMoves = 0
    }
    for _ in 1...10 {
      await Self.tick(store, clock, counting: nil, turn: GameTurn(isMine: false, moves: 0))
    }
    // Bob moved: the server waits on Ann from the next tick on, which counts.
    turn.withLock { $0 = GameTurn(isMine: true, moves: 1) }
    await clock.advance(by: Self.tick)
    await store.receive(.idleTick(Self.reading(GameTurn(isMine: true, moves: 1)))) {
      $0.turnMoves = 1
      $0.awaitsClient = true
      $0.idleTicks = 1
    }
    for count in 2...4 {
      await Self.tick(store, clock, counting: count, turn: GameTurn(isMine: true, moves: 1))
    }
    // Ann moved, then Bob, within one tick: the turn changed, so the count starts again.
    turn.withLock { $0 = GameTurn(isMine: true, moves: 3) }
    await clock.advance(by: Self.tick)
    await store.receive(.idleTick(Self.reading(GameTurn(isMine: true, moves: 3)))) {
      $0.turnMoves = 3
      $0.idleTicks = 1
    }
    // Ann moved: Bob's turn, the count is reset and stops.
    turn.withLock { $0 = GameTurn(isMine: false, moves: 4) }
    await clock.advance(by: Self.tick)
    await store.receive(.idleTick(Self.reading(GameTurn(isMine: false, moves: 4)))) {
      $0.turnMoves = 4
      $0.awaitsClient = false
      $0.idleTicks = 0
    }
    turn.withLock { $0 = GameTurn(isMine: true, moves: 5) }
    await clock.advance(by: Self.tick)
    await store.receive(.idleTick(Self.reading(GameTurn(isMine: true, moves: 5)))) {
      $0.turnMoves = 5
      $0.awaitsClient = true
      $0.idleTicks = 1
    }
    for count in 2...4 {
      await Self.tick(store, clock, counting: count, turn: GameTurn(isMine: true, moves: 5))
    }
    await clock.advance(by: Self.tick)
    await store.receive(.idleTick(Self.reading(GameTurn(isMine: true, moves: 5))), fires: ["phase"])
    {
      $0.idleTicks = 5
      $0.phase = .closed(.idle)
      $0.awaitsClient = false
    }
    await store.send(.hello(name: "Late"))  // A closed session ignores everything.
  }

  @Test func theGameEndsBackInTheLobbyAndCloseStopsTheTimer() async {
    let clock = TestClock()
    let store = Self.makeStore(clock: clock, turn: Locked(GameTurn(isMine: true, moves: 0)))
    await store.send(.connected)
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
    await clock.advance(by: Self.tick)
    await store.receive(.idleTick(Self.reading(GameTurn(isMine: true, moves: 0)))) {
      $0.turnMoves = 0
      $0.idleTicks = 1
    }
    await store.send(.gameEnded, fires: ["phase"]) {
      $0.phase = .lobby
      $0.lastGame = "g1"
      $0.idleTicks = 0
      $0.turnMoves = nil
    }
    await store.send(.close(.disconnected), fires: ["phase"]) {
      $0.phase = .closed(.disconnected)
      $0.awaitsClient = false
    }
  }

  @Test func leavingTheQueueMakesTheServerWaitAgain() async {
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
  }
}
