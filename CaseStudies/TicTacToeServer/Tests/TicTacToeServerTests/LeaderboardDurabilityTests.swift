import Dispatch
import Foundation
import Synchronization
import Testing
import TicTacToeCore
import TicTacToeServerCore
import Unidirectional
import UnidirectionalTestSupport

/// What a durable server's `leaders` frame may show (only wins a crash cannot take back), and
/// what bounds its size (the name limits of `hello`).
@Suite struct LeaderboardDurabilityTests {
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
        let otherIsDone = DispatchSemaphore(value: 0)
        let other = Thread {
          journal.store.send(.active(game: "g1", at: Date()))
          otherIsDone.signal()
        }
        other.start()
        entered.wait()
        // Ann's winning move: the game counts it on the live board at once; its journal
        // entries (the move, the game's end) are queued behind the other thread.
        x.send(#"{"type":"move","game":"g1","cell":2,"seq":4}"#)
        shown = LeaderboardTests.leaders(server)
        // What a crash now leaves on disk.
        try FileManager.default.copyItem(atPath: directory, toPath: crashed)
        release.signal()
        token.cancel()
        // The other thread reduces what was queued behind it (the move, the game's end) before
        // it gives the store up; once that is on disk, the frame shows the win. (Not a wait for
        // Ann's `state` frame: a task delivers it, and other tests may hold the cooperative
        // threads.)
        otherIsDone.wait()
        try DurableServerTests.awaitDurable(journal)
        #expect(LeaderboardTests.leaders(server) == [Leaderboard.Entry(name: "Ann", wins: 1)])
      }
      let (_, recovered) = try LeaderboardTests.open(crashed)
      let after = LeaderboardTests.leaders(recovered)
      // The crash took the win back (its move was not on disk): the frame never showed it.
      #expect(after == [])
      #expect(
        shown == after, "shown \(String(describing: shown)), recovered \(String(describing: after))"
      )
    }
  }

  /// A name is at most 32 characters, but a character can be one letter and a thousand
  /// combining marks: a name is bounded in bytes too, so ten winners cannot make every
  /// `leaders` reply (a 19-byte request) tens of kilobytes.
  @Test func aNameOfTooManyBytesIsRefusedSoALeadersReplyIsBounded() throws {
    let long = "a" + String(repeating: "\u{301}", count: 1900)
    #expect(long.count == 1)
    #expect(throws: FrameError.self) {
      try ClientFrame.decode(Array(#"{"type":"hello","name":"\#(long)"}"#.utf8))
    }
    // The longest names accepted: 128 bytes, in 32 characters of 4 bytes, or in 2 characters.
    let emoji = String(repeating: "\u{1F600}", count: ClientFrame.maximumNameLength)
    let marks = "ab" + String(repeating: "\u{301}", count: 63)
    var names: [String] = []
    for (index, name) in ([emoji, marks] + (0..<8).map { "\($0)" + marks.dropFirst() }).enumerated()
    {
      #expect(name.utf8.count == ClientFrame.maximumNameBytes, "name \(index)")
      let hello = try ClientFrame.decode(Array(#"{"type":"hello","name":"\#(name)"}"#.utf8))
      #expect(hello == .hello(name: name))
      names.append(name)
    }
    #expect(Set(names).count == Leaderboard.shownInFrames)
    // One byte more is refused.
    #expect(throws: FrameError.self) {
      try ClientFrame.decode(Array(#"{"type":"hello","name":"\#(marks)b"}"#.utf8))
    }
    let entries = names.map { Leaderboard.Entry(name: $0, wins: Int.max) }
    let bytes = ServerFrame.leaders(entries).bytes.count
    // Each entry is its name and at most 40 bytes of JSON around it (the widest count).
    #expect(bytes <= Leaderboard.shownInFrames * (ClientFrame.maximumNameBytes + 40) + 40)
  }

  @Test(arguments: ServerKind.allCases) func bothServersRefuseANameOfTooManyBytes(
    _ kind: ServerKind
  ) {
    let server = kind.make()
    let client = RecordingClient(server)
    _ = client.take()
    let long = "a" + String(repeating: "\u{301}", count: ClientFrame.maximumNameBytes)
    client.send(#"{"type":"hello","name":"\#(long)"}"#)
    guard case .error(let code, _, nil)? = client.take().first else {
      Issue.record("a name of \(long.utf8.count) bytes was not refused")
      return
    }
    #expect(code == "bad-name")
  }
}
