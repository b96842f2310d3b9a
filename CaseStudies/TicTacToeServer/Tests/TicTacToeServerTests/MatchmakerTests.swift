import Foundation
import Testing
import TicTacToeCore
import TicTacToeServerCore
import Unidirectional

/// A server whose players are paired elsewhere (a cluster's lobby): `join` queues the session
/// and tells the matchmaker; the matchmaker starts games, with a side that is a player of
/// another server taking its seat with `rejoin`.
@Suite struct MatchmakerTests {
  final class Calls: Sendable {
    let joined = Locked<[Lobby.Entrant]>([])
    let left = Locked<[Int]>([])
  }

  static func server(_ calls: Calls, journal: GameJournal? = nil) -> GameServer {
    GameServer(
      configuration: GameServer.Configuration(
        matchmaker: GameServer.Matchmaker(
          joined: { entrant in calls.joined.withLock { $0.append(entrant) } },
          left: { session in calls.left.withLock { $0.append(session) } })),
      journal: journal)
  }

  @Test func joinQueuesAndAsksTheMatchmakerWhichStartsTheGame() {
    let calls = Calls()
    let server = Self.server(calls)
    let ann = RecordingClient(server)
    let bob = RecordingClient(server)
    let cy = RecordingClient(server)
    for (client, name) in [(ann, "Ann"), (bob, "Bob"), (cy, "Cy")] {
      client.send(#"{"type":"hello","name":"\#(name)"}"#)
      client.send(#"{"type":"join"}"#)
    }
    // Nobody is paired by the server itself.
    #expect(ann.take().last == .session(name: "Ann", phase: .queued))
    #expect(bob.take().last == .session(name: "Bob", phase: .queued))
    #expect(calls.joined.withLock { $0.map(\.name) } == ["Ann", "Bob", "Cy"])
    cy.send(#"{"type":"leave"}"#)
    #expect(calls.left.withLock { $0 } == [cy.id])
    #expect(server.isQueued(ann.id) && !server.isQueued(cy.id))
    // A side that left is not seated, and the other stays queued.
    #expect(server.startGame(x: .session(cy.id), o: .session(ann.id)) == nil)
    #expect(server.isQueued(ann.id))
    let started = server.startGame(x: .session(ann.id), o: .session(bob.id))
    #expect(started?.id == "g1" && started?.tokens == nil)
    #expect(
      ann.take().first
        == .session(name: "Ann", phase: .playing(game: "g1", player: .x, opponent: "Bob")))
    ann.send(#"{"type":"move","game":"g1","cell":4,"seq":1}"#)
    guard case .state(let view)? = bob.take().last else {
      Issue.record("no state")
      return
    }
    #expect(view.moveCount == 1 && server.statistics.gamesStarted == 1)
    // A session that disconnects while queued is reported once; one seated, never.
    let di = RecordingClient(server)
    di.send(#"{"type":"hello","name":"Di"}"#)
    di.send(#"{"type":"join"}"#)
    server.disconnect(di.id, reason: .disconnected)
    #expect(calls.left.withLock { $0 } == [cy.id, di.id])
    // Taken for a game elsewhere: out of the queue, its name given, no `left`.
    let ed = RecordingClient(server)
    ed.send(#"{"type":"hello","name":"Ed"}"#)
    ed.send(#"{"type":"join"}"#)
    #expect(server.takeQueued(ed.id) == "Ed")
    #expect(server.takeQueued(ed.id) == nil)
    server.disconnect(ed.id, reason: .disconnected)
    #expect(calls.left.withLock { $0 } == [cy.id, di.id])
  }

  @Test func aRemoteSideTakesItsSeatWithTheTokenOnceTheStartIsDurable() throws {
    try DurableServerTests.withDirectory { directory in
      let journal = try GameJournal(directory: directory, committer: ActionLogCommitter())
      let calls = Calls()
      let server = Self.server(calls, journal: journal)
      let bob = RecordingClient(server)
      bob.send(#"{"type":"hello","name":"Bob"}"#)
      bob.send(#"{"type":"join"}"#)
      guard let started = server.startGame(x: .remote(name: "Ann"), o: .session(bob.id)),
        let tokens = started.tokens, let task = started.started
      else {
        Issue.record("no durable start")
        return
      }
      let durable = Locked<Bool?>(nil)
      journal.log.whenDurable(task) { failure in durable.withLock { $0 = failure == nil } }
      // wall-clock: a failure bound; a passing run goes on as soon as the start is durable.
      let deadline = ContinuousClock.now + .seconds(10)
      // wall-clock: a failure bound, as above.
      while durable.withLock({ $0 }) == nil, ContinuousClock.now < deadline { sched_yield() }
      #expect(durable.withLock { $0 } == true)
      // connected, lobby, queued, playing, seat, state.
      let frames = DurableServerTests.frames(bob, count: 6)
      #expect(
        frames.dropFirst(3).first
          == .session(name: "Bob", phase: .playing(game: "g1", player: .o, opponent: "Ann")))
      let ann = RecordingClient(server)
      ann.send(#"{"type":"rejoin","game":"g1","token":"\#(tokens.x)"}"#)
      #expect(
        DurableServerTests.frames(ann, count: 4).dropFirst().first
          == .session(name: "Ann", phase: .playing(game: "g1", player: .x, opponent: "Bob")))
      ann.send(#"{"type":"move","game":"g1","cell":4,"seq":1}"#)
      guard case .state(let view)? = DurableServerTests.frames(bob, count: 1).first else {
        Issue.record("no state for Bob")
        return
      }
      #expect(view.moveCount == 1 && view.lastMove?.player == .x)
      #expect(journal.store.state.games["g1"]?.xName == "Ann")
    }
  }
}
