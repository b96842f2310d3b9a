import Foundation
import Testing
import Unidirectional
import UnidirectionalTestSupport

/// A sink whose storage goes away and comes back (a database restarting): the log acknowledges
/// nothing meanwhile, keeps its lines, and writes them once the storage is back.
@Suite struct ActionLogUnavailableTests {
  typealias State = ActionLogRecoveryTests.State
  typealias Action = ActionLogRecoveryTests.Action

  /// Storage that can be taken down: lines written in a round are kept only once flushed while
  /// up. A flush while down forgets the round and throws `unavailable`; with `losesReplies`, it
  /// keeps the round but throws all the same (a commit whose reply was lost), and takes the
  /// same lines again without keeping them twice, as a database's unique key would.
  final class OutageSink: ActionLogSink {
    private struct Storage {
      var round = Data()
      var durable = Data()
      var isDown = false
      var losesReplies = false
      var failedFlushes = 0
      /// The first bytes of every write after a failed flush.
      var retriedWrites: [Data] = []
      var afterFailure = false
    }
    private let storage = Locked(Storage())

    func takeDown(losingReplies: Bool = false) {
      storage.withLock {
        $0.isDown = true
        $0.losesReplies = losingReplies
      }
    }

    func bringUp() { storage.withLock { $0.isDown = false } }

    var durable: Data { storage.withLock { $0.durable } }
    var failedFlushes: Int { storage.withLock { $0.failedFlushes } }
    var retriedWrites: [Data] { storage.withLock { $0.retriedWrites } }

    func write(_ lines: Data) throws(ActionLogError) {
      storage.withLock { storage in
        if storage.afterFailure {
          storage.retriedWrites.append(lines)
          storage.afterFailure = false
        }
        storage.round.append(lines)
      }
    }

    func flush() throws(ActionLogError) {
      let failed = storage.withLock { storage -> Bool in
        defer { storage.round = Data() }
        if !storage.isDown || storage.losesReplies {
          storage.durable.append(Self.linesNotYetHeld(storage.round, durable: storage.durable))
        }
        if storage.isDown {
          storage.failedFlushes += 1
          storage.afterFailure = true
        }
        return storage.isDown
      }
      if failed {
        // A storage out of reach answers slowly: this keeps the retries from spinning.
        usleep(1000)
        throw ActionLogError(
          path: "outage", line: nil, reason: .unavailable("connection refused"))
      }
    }

    /// The lines of `round` after the longest of its prefixes that `durable` ends with.
    private static func linesNotYetHeld(_ round: Data, durable: Data) -> Data {
      let lines = round.split(separator: 0x0A).map { Data($0) + [0x0A] }
      for start in (0...lines.count).reversed() {
        let prefix = Data(lines[..<start].joined())
        if durable.ends(with: prefix) { return Data(lines[start...].joined()) }
      }
      return round
    }
  }

  /// The sequences of the entries in `data`, as a reader of the log decodes them.
  func entries(_ data: Data) throws -> [Int] {
    try ActionLog<Action>(data: data, program: "server").entries.map(\.sequence)
  }

  @Test func nothingIsAcknowledgedWhileDownAndEverythingIsWrittenOnceWhenBack() async throws {
    let committer = ActionLogCommitter()
    let sink = OutageSink()
    let log = DurableActionLog<Action>(sink: sink, program: "server", committer: committer)
    let store = Store(
      initialState: State(), reducer: ActionLogRecoveryTests.feature,
      interceptors: [log.interceptor()])
    try await log.waitUntilDurable(store.send(.move(1)))
    try await log.waitUntilDurable(store.send(.move(2)))

    sink.takeDown()
    for move in 3...5 {
      await #expect(throws: ActionLogError.self) {
        try await log.waitUntilDurable(store.send(.move(move)))
      }
      let error = await #expect(throws: ActionLogError.self) {
        try await log.waitUntilDurable()
      }
      #expect(error?.reason == .unavailable("connection refused"))
    }
    #expect(log.failure == nil)  // Not stopped: only that round was refused.
    #expect(log.durableCount == 2)
    #expect(sink.failedFlushes >= 3)
    // The first write after a failed round starts with that round's lines (move 3 onwards).
    let retried = try #require(sink.retriedWrites.first)
    #expect(String(decoding: retried, as: UTF8.self).contains("\"sequence\":3"))

    sink.bringUp()
    try await log.waitUntilDurable(store.send(.move(6)))
    #expect(log.durableCount == 6)
    #expect(try entries(sink.durable) == [1, 2, 3, 4, 5, 6])
    #expect(store.state.moves == [1, 2, 3, 4, 5, 6])
  }

  @Test func aLostReplyMakesTheSameLinesComeAgainFirst() async throws {
    let committer = ActionLogCommitter()
    let sink = OutageSink()
    let log = DurableActionLog<Action>(sink: sink, program: "server", committer: committer)
    let store = Store(
      initialState: State(), reducer: ActionLogRecoveryTests.feature,
      interceptors: [log.interceptor()])
    try await log.waitUntilDurable(store.send(.move(1)))
    sink.takeDown(losingReplies: true)
    await #expect(throws: ActionLogError.self) {
      try await log.waitUntilDurable(store.send(.move(2)))
    }
    sink.bringUp()
    try await log.waitUntilDurable(store.send(.move(3)))
    let retried = try #require(sink.retriedWrites.first)
    #expect(String(decoding: retried, as: UTF8.self).contains("\"sequence\":2"))
    #expect(try entries(sink.durable) == [1, 2, 3])
  }

  @Test func theHeaderOfALogWhoseFirstRoundFailedIsWrittenOnceWhenBack() async throws {
    let committer = ActionLogCommitter()
    let sink = OutageSink()
    sink.takeDown()
    let log = DurableActionLog<Action>(sink: sink, program: "server", committer: committer)
    let store = Store(
      initialState: State(), reducer: ActionLogRecoveryTests.feature,
      interceptors: [log.interceptor()])
    await #expect(throws: ActionLogError.self) {
      try await log.waitUntilDurable(store.send(.move(1)))
    }
    sink.bringUp()
    try await log.waitUntilDurable(store.send(.move(2)))
    #expect(try entries(sink.durable) == [1, 2])
    let headers = sink.durable.split(separator: 0x0A).filter { $0.first == UInt8(ascii: "{") }
    #expect(headers.count == 1)
  }
}

extension Data {
  /// Whether the last bytes of `self` are `suffix`.
  fileprivate func ends(with suffix: Data) -> Bool {
    count >= suffix.count && self.suffix(suffix.count) == suffix
  }
}
