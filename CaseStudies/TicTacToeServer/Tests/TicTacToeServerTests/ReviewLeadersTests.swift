import Dispatch
import Foundation
import Synchronization
import Testing
import TicTacToeCore
import TicTacToeServerCore
import Unidirectional
import UnidirectionalTestSupport

/// Review of issue 37: a `leaders` frame on a durable server must never show a win that a crash
/// could take back (GameServer+Frames.swift, README "Durability").
@Suite struct ReviewLeadersTests {
  @Test func aLeadersFrameNeverShowsAWinWhoseMoveIsNotOnDisk() throws {
    try DurableServerTests.withDirectory { directory in
      let crashed = directory + "-crashed"
      defer { try? FileManager.default.removeItem(atPath: crashed) }
      let shown: [Leaderboard.Entry]?
      do {
        let (journal, server) = try LeaderboardTests.open(directory)
        let (x, _) = LeaderboardTests.play(
          server, "Ann", "Bob", ending: "in progress", game: "g1")
        LeaderboardTests.findFrames(x) { frames in
          frames.contains { if case .seat = $0 { true } else { false } }
        }
        try DurableServerTests.awaitDurable(journal)
        // Another thread holds the journal store for a moment (as an idle timer's forfeit, or
        // a rejoin's `active`, does): its observer runs while it owns the store.
        let armed = Locked(false)
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let token = journal.store.observe {
          _ = journal.store.games["g1"]?.lastActivity
          let block = armed.withLock { armed in
            defer { armed = false }
            return armed
          }
          if block {
            entered.signal()
            release.wait()
          }
        }
        armed.withLock { $0 = true }
        let other = Thread { journal.store.send(.active(game: "g1", at: Date())) }
        other.start()
        entered.wait()
        // Ann's winning move: the game counts it on the board at once; its journal entry is
        // queued behind the other thread.
        x.send(#"{"type":"move","game":"g1","cell":2,"seq":4}"#)
        shown = LeaderboardTests.leaders(server)
        // What a crash now leaves on disk.
        try FileManager.default.copyItem(atPath: directory, toPath: crashed)
        release.signal()
        token.cancel()
        try DurableServerTests.awaitDurable(journal)
      }
      let (_, recovered) = try LeaderboardTests.open(crashed)
      let after = LeaderboardTests.leaders(recovered)
      // The frame showed Ann's win; the server recovered from that disk has no such win.
      #expect(
        shown == after, "shown \(String(describing: shown)), recovered \(String(describing: after))"
      )
    }
  }

  /// A name is at most 32 characters, but a character can be one letter and a thousand
  /// combining marks: ten such winners make every `leaders` reply (a 19-byte request) tens of
  /// kilobytes.
  @Test func aLeadersReplyIsBoundedByTheNameLimit() throws {
    let long = "a" + String(repeating: "\u{301}", count: 1900)
    let hello = try ClientFrame.decode(Array(#"{"type":"hello","name":"\#(long)"}"#.utf8))
    guard case .hello(let name) = hello else {
      Issue.record("not a hello: \(hello)")
      return
    }
    let entries = (0..<10).map { Leaderboard.Entry(name: name + "\($0)", wins: 1) }
    let bytes = ServerFrame.leaders(entries).bytes.count
    // 10 names of at most 32 characters: a reply of a few kilobytes at most, one would think.
    #expect(bytes <= 10 * 32 * 4 + 500, "a leaders reply of \(bytes) bytes")
  }
}
