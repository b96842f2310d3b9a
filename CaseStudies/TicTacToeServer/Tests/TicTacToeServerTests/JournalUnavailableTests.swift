import Foundation
import Testing
import TicTacToeCore
import TicTacToeServerCore
import Unidirectional
import UnidirectionalTestSupport

/// A durable server whose journal's storage goes away (a database restarting): clients are told,
/// nothing is acknowledged meanwhile, no game is forfeited for it, and players rejoin and play on
/// once the storage is back.
@Suite struct JournalUnavailableTests {
  /// Storage that keeps the lines of a round only if it is up when the round is flushed.
  final class OutageSink: ActionLogSink {
    private struct Storage {
      var round = Data()
      var durable = Data()
      var isDown = false
    }
    private let storage = Locked(Storage())

    func takeDown() { storage.withLock { $0.isDown = true } }
    func bringUp() { storage.withLock { $0.isDown = false } }
    var durable: Data { storage.withLock { $0.durable } }

    func write(_ lines: Data) throws(ActionLogError) {
      storage.withLock { $0.round.append(lines) }
    }

    func flush() throws(ActionLogError) {
      let isDown = storage.withLock { storage -> Bool in
        defer { storage.round = Data() }
        if !storage.isDown { storage.durable.append(storage.round) }
        return storage.isDown
      }
      guard isDown else { return }
      usleep(1000)  // A storage out of reach answers slowly: the retries do not spin.
      throw ActionLogError(path: "outage", line: nil, reason: .unavailable("connection refused"))
    }
  }

  /// Waits, without sleeping, until `client` has a frame `matching`, and returns the frames up to
  /// it.
  static func frames(
    _ client: RecordingClient, until matching: (ServerFrame) -> Bool
  ) -> [ServerFrame] {
    var seen: [ServerFrame] = []
    // wall-clock: a failure bound; a passing run goes on as soon as what it waits for happens.
    let deadline = ContinuousClock.now + .seconds(10)
    // wall-clock: a failure bound; a passing run goes on as soon as what it waits for happens.
    while ContinuousClock.now < deadline {
      seen += client.take()
      if seen.contains(where: matching) { return seen }
      sched_yield()  // The journal's committer thread delivers them.
    }
    Issue.record("no matching frame; got \(seen)")
    return seen
  }

  static func isState(moves: Int) -> (ServerFrame) -> Bool {
    { frame in
      if case .state(let view) = frame { view.moveCount == moves } else { false }
    }
  }

  @Test func playersAreToldAndRejoinWithoutAForfeitOnceTheStorageIsBack() throws {
    let sink = OutageSink()
    let recovered = try DurableActionLog<Journal.Action>.recover(
      header: nil, snapshot: nil, entries: Data(), continuingIn: sink, name: "outage",
      program: GameJournal.program, schemaVersion: GameJournal.schemaVersion,
      redactsSecrets: false, initialState: Journal.State(), reducer: Journal(),
      committer: ActionLogCommitter())
    let journal = GameJournal(recovered: recovered, writeSnapshot: { _, _ in })
    let server = GameServer(journal: journal)
    let ann = RecordingClient(server)
    let bob = RecordingClient(server)
    ann.send(#"{"type":"hello","name":"Ann"}"#)
    ann.send(#"{"type":"join"}"#)
    bob.send(#"{"type":"hello","name":"Bob"}"#)
    bob.send(#"{"type":"join"}"#)
    var tokens: [String: String] = [:]
    for (client, name) in [(ann, "ann"), (bob, "bob")] {
      for frame in Self.frames(client, until: Self.isState(moves: 0)) {
        if case .seat(_, _, let token) = frame { tokens[name] = token }
      }
    }
    ann.send(#"{"type":"move","game":"g1","cell":4,"seq":1}"#)
    _ = Self.frames(ann, until: Self.isState(moves: 1))
    _ = Self.frames(bob, until: Self.isState(moves: 1))

    sink.takeDown()
    bob.send(#"{"type":"move","game":"g1","cell":0,"seq":1}"#)
    for client in [ann, bob] {
      let frames = Self.frames(client) { $0 == .bye(.unavailable) }
      #expect(!frames.contains(where: Self.isState(moves: 2)), "acknowledged while down")
      #expect(
        frames.contains { frame in
          if case .error(let code, _, _) = frame { code == "unavailable" } else { false }
        })
      #expect(client.closed.withLock { $0 })
      // What the connection's end does on a real server: the session closes.
      server.disconnect(client.id, reason: .disconnected)
    }
    #expect(server.statistics.games == 1)  // Not forfeited: the game waits for its players.

    sink.bringUp()
    let bobAgain = RecordingClient(server)
    bobAgain.send(#"{"type":"rejoin","game":"g1","token":"\#(tokens["bob"]!)"}"#)
    _ = Self.frames(bobAgain, until: Self.isState(moves: 2))
    let annAgain = RecordingClient(server)
    annAgain.send(#"{"type":"rejoin","game":"g1","token":"\#(tokens["ann"]!)"}"#)
    _ = Self.frames(annAgain, until: Self.isState(moves: 2))
    annAgain.send(#"{"type":"move","game":"g1","cell":8,"seq":2}"#)
    _ = Self.frames(annAgain, until: Self.isState(moves: 3))

    // Bob's move, reduced while the storage was down, is in it once, after Ann's first.
    let log = try ActionLog<Journal.Action>(
      data: sink.durable, program: GameJournal.program, schemaVersion: GameJournal.schemaVersion)
    let moves = log.entries.compactMap { entry -> Int? in
      if case .room(_, .move(_, let cell, _), _) = entry.action { cell } else { nil }
    }
    #expect(moves == [4, 0, 8])
  }

  /// A client that hangs up as soon as it reads `bye`: its connection's end may reach the
  /// server before the committer's thread, which sent the `bye`, marks the session as closed
  /// for `unavailable` (here the hang-up runs inside the delivery, as it would on a preempted
  /// committer thread).
  @Test func aClientThatHangsUpOnByeAtOnceDoesNotForfeitItsGame() throws {
    let sink = OutageSink()
    let recovered = try DurableActionLog<Journal.Action>.recover(
      header: nil, snapshot: nil, entries: Data(), continuingIn: sink, name: "outage",
      program: GameJournal.program, schemaVersion: GameJournal.schemaVersion,
      redactsSecrets: false, initialState: Journal.State(), reducer: Journal(),
      committer: ActionLogCommitter())
    let journal = GameJournal(recovered: recovered, writeSnapshot: { _, _ in })
    let server = GameServer(journal: journal)
    let ann = RecordingClient(server)
    // Bob's connection ends the moment `bye` arrives.
    let bobID = Locked<Int?>(nil)
    let bobFrames = Locked<[ServerFrame]>([])
    let bob = server.connect(
      ClientLink(
        deliver: { frame in
          bobFrames.withLock { $0.append(frame) }
          if case .bye = frame, let id = bobID.withLock({ $0 }) {
            server.disconnect(id, reason: .disconnected)
          }
        },
        close: {}))
    bobID.withLock { $0 = bob }
    ann.send(#"{"type":"hello","name":"Ann"}"#)
    ann.send(#"{"type":"join"}"#)
    server.receive(Array(#"{"type":"hello","name":"Bob"}"#.utf8), from: bob)
    server.receive(Array(#"{"type":"join"}"#.utf8), from: bob)
    _ = Self.frames(ann, until: Self.isState(moves: 0))

    sink.takeDown()
    ann.send(#"{"type":"move","game":"g1","cell":4,"seq":1}"#)
    _ = Self.frames(ann) { $0 == .bye(.unavailable) }
    server.disconnect(ann.id, reason: .disconnected)
    // wall-clock: a failure bound; a passing run goes on as soon as Bob's bye arrived.
    let deadline = ContinuousClock.now + .seconds(10)
    while !bobFrames.withLock({ $0.contains(.bye(.unavailable)) }), ContinuousClock.now < deadline {
      sched_yield()
    }
    #expect(bobFrames.withLock { $0.contains(.bye(.unavailable)) })
    // Neither player forfeited: the game waits for both to rejoin.
    #expect(server.statistics.games == 1)
    #expect(
      !bobFrames.withLock { $0 }.contains { frame in
        if case .state(let view) = frame { view.outcome != nil } else { false }
      })
  }
}
