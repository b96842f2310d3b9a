import Foundation
import Testing
import TicTacToeCore
import TicTacToeServerCore
import Unidirectional
import UnidirectionalTestSupport

/// Recovered games nobody comes back to: closed at the recovery that finds their last activity
/// an abandonment time old, journaled as ended, and left out of the snapshot.
@Suite struct AbandonedGameTests {
  /// The wall time the first server starts at.
  static let start = Date(timeIntervalSince1970: 1_800_000_000)
  static let limit = Duration.seconds(3600)

  /// Opens (or recovers) the journal in `directory` and a server on it, the wall clock showing
  /// `now`; a snapshot after every entry, so that the snapshot shows what each entry did.
  static func open(_ directory: String, at now: Date) throws -> (GameJournal, GameServer) {
    let journal = try GameJournal(
      directory: directory, committer: ActionLogCommitter(), snapshotInterval: 1)
    let server = withDependencies {
      $0.date = .constant(now)
    } operation: {
      GameServer(configuration: GameServer.Configuration(abandonAfter: limit), journal: journal)
    }
    try DurableServerTests.awaitDurable(journal)
    return (journal, server)
  }

  /// The journal's entries, in order.
  static func entries(_ directory: String) throws -> [Journal.Action] {
    let log = try ActionLog<Journal.Action>(
      path: directory + "/journal.jsonl", program: GameJournal.program,
      schemaVersion: GameJournal.schemaVersion)
    #expect(log.error == nil, "\(String(describing: log.error))")
    return log.entries.map(\.action)
  }

  /// The snapshot's state once it covers every durable entry of `journal`.
  static func snapshot(_ directory: String, of journal: GameJournal) throws -> Journal.State? {
    struct Snapshot: Decodable {
      var sequence: Int
      var state: Journal.State
    }
    let path = directory + "/journal.snapshot.json"
    // wall-clock: a failure bound; a passing run goes on as soon as what it waits for happens.
    let deadline = ContinuousClock.now + .seconds(10)
    // The committer writes a snapshot before it acknowledges the entries it covers: the first
    // read finds it once they are durable.
    // wall-clock: a failure bound; a passing run goes on as soon as what it waits for happens.
    while ContinuousClock.now < deadline {
      if let data = FileManager.default.contents(atPath: path),
        let snapshot = try? JSONDecoder().decode(Snapshot.self, from: data),
        snapshot.sequence == journal.log.durableCount
      {
        return snapshot.state
      }
      sched_yield()
    }
    Issue.record("no snapshot through entry \(journal.log.durableCount)")
    return nil
  }

  /// Ann and Bob start game g1 and Ann plays the centre, at `start`.
  static func playOneMove(_ server: GameServer, _ journal: GameJournal) throws {
    let ann = RecordingClient(server)
    let bob = RecordingClient(server)
    ann.send(#"{"type":"hello","name":"Ann"}"#)
    ann.send(#"{"type":"join"}"#)
    bob.send(#"{"type":"hello","name":"Bob"}"#)
    bob.send(#"{"type":"join"}"#)
    _ = DurableServerTests.frames(ann, count: 6)
    _ = DurableServerTests.frames(bob, count: 6)
    ann.send(#"{"type":"move","game":"g1","cell":4,"seq":1}"#)
    _ = DurableServerTests.frames(ann, count: 1)
    try DurableServerTests.awaitDurable(journal)
  }

  @Test func aGameWithNoMoveOrRejoinForTheLimitIsClosedJournaledAsEndedAndLeftOutOfTheSnapshot()
    throws
  {
    try DurableServerTests.withDirectory { directory in
      do {
        let (journal, server) = try Self.open(directory, at: Self.start)
        try Self.playOneMove(server, journal)
        guard case .room(_, _, let at)? = try Self.entries(directory).last else {
          Issue.record("the move was not journaled last")
          return
        }
        #expect(at == Self.start)
      }
      // Recovered 59 minutes later: within the limit, the game stays open, and nothing is
      // journaled (a recovery is not activity: the clock still runs from the move).
      let before = try Self.entries(directory).count
      do {
        let (journal, server) = try Self.open(directory, at: Self.start + 59 * 60)
        #expect(server.statistics.games == 1 && server.statistics.gamesAbandoned == 0)
        #expect(journal.store.state.games["g1"]?.lastActivity == Self.start)
      }
      #expect(try Self.entries(directory).count == before)
      // Recovered an hour after the move: closed, journaled as ended, out of the snapshot.
      do {
        let (journal, server) = try Self.open(directory, at: Self.start + 3600)
        #expect(server.statistics.games == 0 && server.statistics.gamesAbandoned == 1)
        #expect(journal.store.state.games.isEmpty)
        #expect(try Self.entries(directory).last == .ended(game: "g1"))
        #expect(try Self.snapshot(directory, of: journal)?.games.isEmpty == true)
        #expect(journal.store.state.gamesStarted == 1)  // Ids go on from there.
      }
      // Replayed again, the journal gives the same: no game, nothing more journaled.
      let ended = try Self.entries(directory).count
      let (_, server) = try Self.open(directory, at: Self.start + 7200)
      #expect(server.statistics.games == 0 && server.statistics.gamesAbandoned == 0)
      #expect(try Self.entries(directory).count == ended)
    }
  }

  @Test func aRejoinStartsTheClockAgain() throws {
    try DurableServerTests.withDirectory { directory in
      var bobToken = ""
      do {
        let (journal, server) = try Self.open(directory, at: Self.start)
        let ann = RecordingClient(server)
        let bob = RecordingClient(server)
        ann.send(#"{"type":"hello","name":"Ann"}"#)
        ann.send(#"{"type":"join"}"#)
        bob.send(#"{"type":"hello","name":"Bob"}"#)
        bob.send(#"{"type":"join"}"#)
        _ = DurableServerTests.frames(ann, count: 6)
        if case .seat(_, _, let token)? = DurableServerTests.frames(bob, count: 6).dropLast().last {
          bobToken = token
        }
        try DurableServerTests.awaitDurable(journal)
      }
      // Bob comes back after 50 minutes, then the server stops again.
      do {
        let (journal, server) = try Self.open(directory, at: Self.start + 50 * 60)
        let bob = RecordingClient(server)
        bob.send(#"{"type":"rejoin","game":"g1","token":"\#(bobToken)"}"#)
        #expect(DurableServerTests.frames(bob, count: 4).count == 4)
        try DurableServerTests.awaitDurable(journal)
        #expect(
          try Self.entries(directory).last == .active(game: "g1", at: Self.start + 50 * 60))
      }
      // 90 minutes after the start, 40 after the rejoin: still open.
      let (journal, server) = try Self.open(directory, at: Self.start + 90 * 60)
      #expect(server.statistics.games == 1 && server.statistics.gamesAbandoned == 0)
      #expect(journal.store.state.games["g1"]?.lastActivity == Self.start + 50 * 60)
    }
  }

  /// Dated entries are schema version 2 of the journal: a program that reads only version 1
  /// refuses the journal by name, not on its first dated entry.
  @Test func aProgramThatReadsOnlyUndatedJournalsRefusesADatedOneByItsSchemaVersion() throws {
    try DurableServerTests.withDirectory { directory in
      do {
        let (journal, server) = try Self.open(directory, at: Self.start)
        try Self.playOneMove(server, journal)
      }
      do {
        _ = try DurableActionLog<Journal.Action>.recover(
          path: directory + "/journal.jsonl", program: GameJournal.program, schemaVersion: 1,
          redactsSecrets: false, initialState: Journal.State(), reducer: Journal(),
          committer: ActionLogCommitter())
        Issue.record("a version 1 reader recovered a version 2 journal")
      } catch let error as ActionLogError {
        #expect(error.reason == .newerSchema(recorded: GameJournal.schemaVersion, supported: 1))
      }
    }
  }

  @Test func aGameJournaledBeforeDatesIsDatedAtItsFirstRecoveryAndClosedAnHourLater() throws {
    try DurableServerTests.withDirectory { directory in
      do {
        let journal = try GameJournal(directory: directory, committer: ActionLogCommitter())
        // A record with no date encodes exactly as one written before dates (no key).
        journal.store.send(
          .started(
            game: "g1", number: 1,
            record: Journal.GameRecord(
              xName: "Ann", oName: "Bob", xToken: "a", oToken: "b", lastActivity: nil)))
        try DurableServerTests.awaitDurable(journal)
        let line =
          try String(contentsOfFile: directory + "/journal.jsonl", encoding: .utf8)
          .split(separator: "\n").last ?? ""
        #expect(line.contains(#""xName":"Ann""#) && !line.contains("lastActivity"))
      }
      let dated = Self.start + 10
      do {
        let (journal, server) = try Self.open(directory, at: dated)
        #expect(server.statistics.games == 1)
        #expect(journal.store.state.games["g1"]?.lastActivity == dated)
        #expect(try Self.entries(directory).last == .active(game: "g1", at: dated))
      }
      do {
        let (_, server) = try Self.open(directory, at: dated + 3599)
        #expect(server.statistics.games == 1)
      }
      let (_, server) = try Self.open(directory, at: dated + 3600)
      #expect(server.statistics.games == 0 && server.statistics.gamesAbandoned == 1)
      #expect(try Self.entries(directory).last == .ended(game: "g1"))
    }
  }
}
