import Foundation
import Testing
import Unidirectional
import UnidirectionalTestSupport

/// Checksummed entries (format version 2): what recovery keeps, cuts to a quarantine file, or
/// refuses, for damage anywhere in a log.
@Suite struct ActionLogChecksumTests {
  enum Action: Codable, Equatable, Sendable {
    case move(Int)
  }

  static let feature = Reduce<[Int], Action> { state, action in
    switch action {
    case .move(let value):
      state.append(value)
      return .none
    }
  }

  /// A directory of its own, removed at the end of the test.
  struct Files {
    let directory: String
    var log: String { directory + "/game.jsonl" }

    init() throws {
      directory = temporaryFilePath("checksum").replacingOccurrences(of: ".jsonl", with: "")
      try FileManager.default.createDirectory(
        atPath: directory, withIntermediateDirectories: false)
    }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }

    /// The files beside the log whose names start with the log's and `.quarantine-`.
    var quarantined: [String] {
      let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
      return names.filter { $0.hasPrefix("game.jsonl.quarantine-") }.sorted()
        .map { directory + "/" + $0 }
    }

    var bytes: [UInt8] { Array(FileManager.default.contents(atPath: log) ?? Data()) }

    func write(_ bytes: [UInt8]) throws {
      try Data(bytes).write(to: URL(fileURLWithPath: log))
    }
  }

  /// Plays `moves` on a live store logging durably to `files`, each acknowledged.
  func play(_ moves: some Sequence<Int>, files: Files, committer: ActionLogCommitter)
    async throws
  {
    let log = try DurableActionLog<Action>(
      path: files.log, overwrite: true, program: "server", committer: committer)
    let store = Store(initialState: [], reducer: Self.feature, interceptors: [log.interceptor()])
    for move in moves { try await log.waitUntilDurable(store.send(.move(move))) }
  }

  func recover(_ files: Files, committer: ActionLogCommitter) throws(ActionLogError)
    -> ActionLogRecovery<[Int], Action>
  {
    try DurableActionLog<Action>.recover(
      path: files.log, program: "server", initialState: [], reducer: Self.feature,
      committer: committer)
  }

  /// A byte flipped in the complete last line of a log is damage, not a torn write: the entry
  /// was acknowledged, and its bytes must survive somewhere.
  @Test func aFlippedByteInTheLastCompleteLineIsNotDestroyed() async throws {
    let files = try Files()
    defer { files.remove() }
    let committer = ActionLogCommitter()
    try await play(1...3, files: files, committer: committer)
    var bytes = files.bytes
    let original = bytes
    let lastLineStart = bytes.dropLast().lastIndex(of: 0x0A)! + 1
    bytes[lastLineStart + 5] ^= 0x01
    try files.write(bytes)

    let recovery = try recover(files, committer: committer)
    #expect(recovery.state == [1, 2])
    let quarantine = try #require(files.quarantined.first)
    let moved = Array(FileManager.default.contents(atPath: quarantine) ?? Data())
    #expect(moved == Array(bytes[lastLineStart...]))
    #expect(files.bytes == Array(original[..<lastLineStart]))
  }
}
